import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The rule index (path tree, discriminators, literal prefilter of regular expressions) gives the
/// answer a plain scan of every rule in precedence order gives, on generated bundles and requests
/// whose values collide often, with patterns the literal analysis understands and patterns it does
/// not (look-around, back-references, flags, invalid ones).
struct RuleIndexEquivalenceTests {
    static let seed: UInt64 = 0x5EED_1D3E

    static let words = ["a", "b", "api", "users", "v1", "graphql", "7", "ab"]
    static let regexPieces = [
        "a", "b", "api", "users/", "v1", "graphql", "/7", "h\\.example", "h.example", "\\?page=2", "?", "page=2", "q=1",
        ".*", "\\d+", "[ab]", "(a|b)", "(api|users)", "(?=a)", "(a)\\1", "\\b", "a?", "(ab)+", ".", "\\.", "x{2}", "(?i)API",
        "[^/]+", "/", "https://", "(", "b{1,2}", "s?",
        // Optional and alternative runs long enough to be indexed: a literal taken from them would be unsound.
        "(v1/)?", "(users/)*", "(api|graphql)", "(page=2)?", "(/7){0,2}",
    ]

    static func randomPattern(_ rng: inout SeededGenerator) -> RegexPattern? {
        var text = rng.below(3) == 0 ? "^" : ""
        if text == "^", rng.below(2) == 0 { text += "https://h\\.example/" }
        for _ in 0..<(1 + rng.below(4)) { text += regexPieces[rng.below(regexPieces.count)] }
        if rng.below(3) == 0 { text += "$" }
        return try? RegexPattern(text)
    }

    /// Without `globstar`, no rule has `**`: the path tree then takes its loop walk (and its one-child
    /// shortcut), with nodes where a literal and a `{param}` child both take a segment.
    static func randomRule(_ i: Int, _ rng: inout SeededGenerator, globstar: Bool = true) -> StubRule {
        var request = RequestConditions()
        if rng.below(4) == 0, let pattern = randomPattern(&rng) {
            request.urlPattern = pattern
            if globstar, rng.below(8) == 0 { request.path = PathPattern(components: [.globstar]) }
        } else {
            // Few shapes, so many rules share a node of the tree and discriminators form.
            let shapes: [[PathPattern.Component]] = [
                [.literal("graphql")], [.literal("users"), .parameter("id")], [.literal("api"), .literal("v1"), .wildcard],
                [.literal("a")], globstar ? [.globstar, .literal("b")] : [.parameter("p"), .literal("b")],
                [.literal(words[rng.below(words.count)]), .parameter("x")],
            ] + (globstar ? [] : [[.literal("users"), .literal("7")], [.wildcard, .parameter("q")], [.literal("api"), .literal("v1"), .literal("ab")]])
            request.path = PathPattern(components: shapes[rng.below(shapes.count)])
        }
        if rng.below(5) == 0 { request.methods = [["GET"], ["POST"], ["GET", "POST"]][rng.below(3)] }
        if rng.below(8) == 0 { request.host = ["h.example", "k"][rng.below(2)] }
        if rng.below(2) == 0 {
            request.query["q"] = [.equals("1"), .equals("2"), .equals("3"), .present, .absent, .matches(try! RegexPattern("^[12]$"))][rng.below(6)]
        }
        if rng.below(4) == 0 { request.query["page"] = [.equals("2"), .equals("1")][rng.below(2)] }
        if rng.below(3) == 0 {
            request.headers[["X-Op", "x-op", "X-OP"][rng.below(3)]] = [.equals("A"), .equals("B"), .present, .absent][rng.below(4)]
        }
        if rng.below(2) == 0 {
            let operation: JSONValue = [.string("A"), .string("B"), .string("C"), .number(1), .null, .bool(true)][rng.below(6)]
            switch rng.below(5) {
            case 0: request.body = [.containsJSON(.object(["operationName": operation]))]
            case 1: request.body = [.containsJSON(.object(["operationName": operation, "variables": .object(["id": .number(7)])]))]
            case 2: request.body = [.equalsJSON(.object(["operationName": operation]))]
            case 3: request.body = [.contains("\"A\""), .containsJSON(.object(["operationName": operation]))]
            default: request.body = [.containsJSON(.object(["variables": .object(["id": .number(Double(rng.below(2) + 6))])]))]
            }
        }
        let source = RuleSource(file: "gen.json", position: SourcePosition(line: i + 1, column: 3), index: i, keyPath: "[\(i)]")
        return StubRule(source: source, request: request, response: StubResponse(), priority: [0, 0, 0, 1, -1][rng.below(5)])
    }

    static func randomRequest(_ rng: inout SeededGenerator) -> StubRequest {
        let host = ["h.example", "k", "H.example"][rng.below(3)]
        let path = (0..<rng.below(4)).map { _ in words[rng.below(words.count)] }.joined(separator: "/")
        let query = ["", "?q=1", "?q=2", "?q=3&page=2", "?page=2", "?page=1&q=1", "?q=", "?q=2&q=1"][rng.below(8)]
        var headers: [String: String] = [:]
        if rng.below(2) == 0 { headers[["X-Op", "x-op"][rng.below(2)]] = ["A", "B", "C"][rng.below(3)] }
        let bodies: [String?] = [nil, #"{"operationName":"A"}"#, #"{"operationName": "B", "variables": {"id": 7}}"#,
                                 #"{"operationName":"C","variables":{"id":6}}"#, #"{"operationName":1.0}"#, #"{"operationName":null}"#,
                                 #"{"operationName":true}"#, "not json", #"["operationName"]"#, #"{"variables":{"id":7}}"#]
        let body = bodies[rng.below(bodies.count)].map { Data($0.utf8) }
        var request = StubRequest(method: ["GET", "POST"][rng.below(2)], url: URL(string: "https://\(host)/\(path)\(query)")!,
                                  headers: headers, body: body)
        if body == nil, rng.below(4) == 0 { request.bodyPending = true }
        return request
    }

    /// Every rule in precedence order (higher priority, later bundle, file order), checked one by one.
    static func linearMatch(_ bundles: [StubBundle], _ request: StubRequest) -> RuleIndex.RuleKey? {
        var all: [(priority: Int, key: RuleIndex.RuleKey, rule: StubRule)] = []
        for (b, bundle) in bundles.enumerated() {
            for (r, rule) in bundle.rules.enumerated() { all.append((rule.priority, RuleIndex.RuleKey(bundleOrder: b, ruleIndex: r), rule)) }
        }
        all.sort { ($1.priority, $1.key.bundleOrder, $0.key.ruleIndex) < ($0.priority, $0.key.bundleOrder, $1.key.ruleIndex) }
        return all.first { RequestMatcher.matches($0.rule.request, request) }?.key
    }

    /// Rounds 4 and 5 have no `**` rule (the path tree's loop walk).
    @Test("the indexed matcher answers exactly as a linear scan, precedence included", arguments: 0..<6)
    func sameAsLinearScan(_ round: Int) {
        let seed = Self.seed &+ UInt64(round)
        print("RuleIndexEquivalenceTests.sameAsLinearScan seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        var next = 0
        let bundles = (0..<3).map { b in
            StubBundle(template: "b\(b)", folder: URL(fileURLWithPath: "/b\(b)"), rulesFile: nil, rules: (0..<(60 + rng.below(120))).map { _ in
                next += 1
                return Self.randomRule(next, &rng, globstar: round < 4)
            })
        }
        let index = RuleIndex(bundles: bundles)
        var hits = 0
        for _ in 0..<300 {
            let request = Self.randomRequest(&rng)
            let expected = Self.linearMatch(bundles, request)
            let actual = index.lookup(for: request).entry?.key
            #expect(actual == expected, "seed \(seed): \(request.method) \(request.url) \(request.headers) body \(request.body.map { String(decoding: $0, as: UTF8.self) } ?? (request.bodyPending ? "pending" : "none"))")
            if expected != nil { hits += 1 }
        }
        #expect(hits > 80, "the corpus should exercise hits as well as misses")
        #expect(!index.alwaysChecked.isEmpty, "the corpus should hold patterns without a usable literal")
    }

    static let graphQLNames = ["A", "B", "GetMenu", "Search"]

    /// Rules on one GraphQL path: most pin an operation (the discriminator's field), some also its
    /// type, variables, a persisted query's hash or the document's absence; a few match by body field,
    /// header or nothing at all.
    static func randomGraphQLRule(_ i: Int, _ rng: inout SeededGenerator) -> StubRule {
        var request = RequestConditions()
        request.path = PathPattern(components: [.literal("graphql")])
        if rng.below(4) == 0 { request.methods = [["GET"], ["POST"]][rng.below(2)] }
        if rng.below(6) != 0 {
            var condition = GraphQLCondition(operationName: graphQLNames[rng.below(graphQLNames.count)])
            if rng.below(4) == 0 { condition.operationType = [.query, .mutation][rng.below(2)] }
            switch rng.below(5) {
            case 0: condition.variables = .object(["id": .number(Double(rng.below(2) + 6))])
            case 1: condition.variablesEqual = [.object([:]), .object(["id": .number(7)])][rng.below(2)]
            default: break
            }
            if rng.below(6) == 0 { condition.document = [.present, .absent][rng.below(2)] }
            if rng.below(8) == 0 { condition.persistedQuery = String(repeating: "ab", count: 32) }
            request.graphQL = condition
        } else if rng.below(2) == 0 {
            request.body = [.containsJSON(.object(["operationName": .string(graphQLNames[rng.below(graphQLNames.count)])]))]
        }
        if rng.below(6) == 0 { request.headers["X-Op"] = [.equals("A"), .present][rng.below(2)] }
        let source = RuleSource(file: "gql.json", position: SourcePosition(line: i + 1, column: 3), index: i, keyPath: "[\(i)]")
        return StubRule(source: source, request: request, response: StubResponse(), priority: [0, 0, 0, 1, -1][rng.below(5)])
    }

    /// GraphQL requests of every form the payload reader knows: operationName sent or only the
    /// document, a name the document lacks, two operations with and without a name, a persisted
    /// query's hash alone, GET, `application/graphql`, batches, not GraphQL at all, a pending body.
    static func randomGraphQLRequest(_ rng: inout SeededGenerator) -> StubRequest {
        let name = graphQLNames[rng.below(graphQLNames.count)], other = graphQLNames[rng.below(graphQLNames.count)]
        let kind = ["query", "mutation"][rng.below(2)]
        let variables = [#""#, #","variables":{"id":7}"#, #","variables":{"id":6,"x":1}"#, #","variables":{}"#][rng.below(4)]
        let hash = #","extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(String(repeating: "ab", count: 32))"}}"#
        let bodies = [
            #"{"operationName":"\#(name)","query":"\#(kind) \#(name) { a }"\#(variables)}"#,
            #"{"query":"\#(kind) \#(name) { a }"\#(variables)}"#,
            #"{"operationName":"\#(other)","query":"\#(kind) \#(name) { a }"\#(variables)}"#,
            #"{"operationName":"\#(name)","query":"query \#(name) { a } mutation \#(other)X { b }"\#(variables)}"#,
            #"{"query":"query \#(name) { a } query \#(other)Y { b }"}"#,
            #"{"query":"{ a }"\#(variables)}"#,
            #"{"operationName":"\#(name)"\#(variables)\#(hash)}"#,
            #"{"query":"\#(kind) \#(name) { a }"\#(hash)}"#,
            #"[{"query":"query \#(name) { a }"},{"query":"query \#(other) { b }"}]"#,
            #"{"operationName":"\#(name)"}"#,
        ]
        var headers: [String: String] = ["Content-Type": "application/json"]
        if rng.below(3) == 0 { headers["X-Op"] = "A" }
        var request: StubRequest
        switch rng.below(6) {
        case 0:
            var url = URLComponents(string: "https://h.example/graphql")!
            url.queryItems = [URLQueryItem(name: "query", value: "\(kind) \(name) { a }")]
            if rng.below(2) == 0 { url.queryItems?.append(URLQueryItem(name: "operationName", value: other)) }
            request = StubRequest(method: "GET", url: url.url!, headers: headers)
        case 1:
            headers["Content-Type"] = "application/graphql"
            request = StubRequest(method: "POST", url: URL(string: "https://h.example/graphql")!, headers: headers, body: Data("\(kind) \(name) { a }".utf8))
        default:
            request = StubRequest(method: "POST", url: URL(string: "https://h.example/graphql")!, headers: headers,
                                  body: Data(bodies[rng.below(bodies.count)].utf8))
        }
        if rng.below(10) == 0 { request = StubRequest(method: "POST", url: URL(string: "https://h.example/graphql")!, headers: headers); request.bodyPending = true }
        return request
    }

    @Test("with GraphQL rules on one path, the operation index answers exactly as a linear scan", arguments: 0..<3)
    func graphQLSameAsLinearScan(_ round: Int) {
        let seed = Self.seed &+ 0x6_0000 &+ UInt64(round)
        print("RuleIndexEquivalenceTests.graphQLSameAsLinearScan seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        var next = 0
        let bundles = (0..<2).map { b in
            StubBundle(template: "g\(b)", folder: URL(fileURLWithPath: "/g\(b)"), rulesFile: nil, rules: (0..<(20 + rng.below(60))).map { _ in
                next += 1
                return Self.randomGraphQLRule(next, &rng)
            })
        }
        let index = RuleIndex(bundles: bundles)
        var hits = 0
        for _ in 0..<400 {
            let request = Self.randomGraphQLRequest(&rng)
            let expected = Self.linearMatch(bundles, request)
            let actual = index.lookup(for: request).entry?.key
            #expect(actual == expected, "seed \(seed): \(request.method) \(request.url) \(request.headers) body \(request.body.map { String(decoding: $0, as: UTF8.self) } ?? (request.bodyPending ? "pending" : "none"))")
            if expected != nil { hits += 1 }
        }
        #expect(hits > 100, "the corpus should exercise hits as well as misses")
    }

    @Test("the literal search finds every occurrence of every literal, overlapping ones included")
    func literalSearchFindsAll() {
        let literals = ["he", "she", "his", "hers", "e", "/v1/", "v1/users", "é", "ab", "abab"]
        let search = LiteralSearch(literals.enumerated().map { ($0.element, $0.offset) })
        for text in ["ushers", "https://h/v1/users/7", "ahishers", "café/ababab", "", "zzz"] {
            var found: [Int] = []
            search.forEachMatch(in: text) { found.append($0) }
            let expected = literals.enumerated().flatMap { i, literal in
                Array(repeating: i, count: Self.occurrences(of: Array(literal.utf8), in: Array(text.utf8)))
            }
            #expect(found.sorted() == expected.sorted(), "in '\(text)'")
        }
    }

    private static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard needle.count <= haystack.count else { return 0 }
        return (0...(haystack.count - needle.count)).filter { Array(haystack[$0..<($0 + needle.count)]) == needle }.count
    }
}
