import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// Rules pick GraphQL operations the way clients send them, through real `URLSession` requests: by the
/// operation's name whether or not the request says it, by type, by variables, by persisted query, over
/// POST, GET and `application/graphql`.
struct GraphQLMatchingTests {
    static let endpoint = "https://api.takeaway.example/graphql"
    /// A stubbed session is answered only while its engine lives.
    private let engines = Locked<[StubEngine]>([])

    func session(rules: String) throws -> (StubEngine, URLSession, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let engine = StubEngine(killSwitch: true, now: Date(timeIntervalSince1970: 1_714_590_000))
        try folder.activate(engine, bundle: "g", rules: rules)
        engines.withLock { $0.append(engine) }
        return (engine, URLSession(configuration: .stubbed(by: engine, base: .ephemeral)), folder)
    }

    func session(bundle: String) throws -> (StubEngine, URLSession) {
        let engine = StubEngine(killSwitch: true, now: Date(timeIntervalSince1970: 1_714_590_000))
        try engine.activate(folder: PackagePaths.stubBundles.appendingPathComponent(bundle))
        engines.withLock { $0.append(engine) }
        return (engine, URLSession(configuration: .stubbed(by: engine, base: .ephemeral)))
    }

    static func json(_ object: [String: Any]) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    static let rules = """
    [
      { "path": "/graphql", "graphql": { "operationName": "GetMenu", "operationType": "query", "variables": { "restaurantId": "r1" } }, "body": "menu r1" },
      { "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "body": "menu other" },
      { "path": "/graphql", "graphql": { "operationName": "PlaceOrder", "operationType": "mutation", "variablesEqual": { "mode": "DELIVERY" } }, "body": "placed" },
      { "path": "/graphql", "graphql": { "operationName": "PlaceOrder", "operationType": "mutation" }, "body": "placed, other mode" },
      { "path": "/graphql", "graphql": { "operationType": "subscription" }, "body": "some subscription" },
      { "path": "/graphql", "graphql": { "persistedQuery": "ECF4EDB46DB40B5132295C0291D62FB65D6759A9EEDFA4D5D612DD5EC54A6B38" }, "body": "by hash" }
    ]
    """

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var method = "POST"
        var query: String? = nil
        var body: String?
        var contentType = "application/json"
        var expected: String?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "operationName and variables sent", body: json(["operationName": "GetMenu", "query": "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }",
                                                                    "variables": ["restaurantId": "r1", "extra": true]]), expected: "menu r1"),
        Case(name: "no operationName: the document's only operation names it",
             body: json(["query": "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }", "variables": ["restaurantId": "r1"]]), expected: "menu r1"),
        Case(name: "other variables fall to the rule without them", body: json(["query": "query GetMenu { restaurant(id: \"r9\") { id } }"]), expected: "menu other"),
        Case(name: "operationName picks one of several operations, and its type",
             body: json(["operationName": "PlaceOrder", "query": "query GetMenu { a } mutation PlaceOrder($mode: DeliveryMode) { placeOrder { id } }",
                         "variables": ["mode": "DELIVERY"]]), expected: "placed"),
        Case(name: "variablesEqual wants exactly those variables",
             body: json(["query": "mutation PlaceOrder { placeOrder { id } }", "variables": ["mode": "DELIVERY", "note": "ring twice"]]), expected: "placed, other mode"),
        Case(name: "a query named like the mutation is not it (type)", body: json(["query": "query PlaceOrder { a }"]), expected: nil),
        Case(name: "an anonymous subscription by type", body: json(["query": "subscription { orderStatus(id: 1) { status } }"]), expected: "some subscription"),
        Case(name: "several operations and no operationName: no name to match", body: json(["query": "query GetMenu { a } query Other { b }"]), expected: nil),
        Case(name: "GET with the fields in the URL", method: "GET",
             query: "query=" + "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                + "&variables=%7B%22restaurantId%22%3A%22r1%22%7D", body: nil, expected: "menu r1"),
        Case(name: "GET of a persisted query: its hash and name only", method: "GET",
             query: "operationName=GetMenu&extensions=" + #"{"persistedQuery":{"version":1,"sha256Hash":"00"}}"#.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!,
             body: nil, expected: "menu other"),
        Case(name: "a persisted query matched by its hash, in any case",
             body: json(["extensions": ["persistedQuery": ["version": 1, "sha256Hash": "ecf4edb46db40b5132295c0291d62fb65d6759a9eedfa4d5d612dd5ec54a6b38"]]]), expected: "by hash"),
        Case(name: "application/graphql: the body is the document", query: "variables=%7B%22restaurantId%22%3A%22r1%22%7D",
             body: "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }", contentType: "application/graphql; charset=utf-8", expected: "menu r1"),
        Case(name: "variables sent as JSON text, as older clients do",
             body: json(["query": "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }", "variables": #"{"restaurantId": "r1"}"#]), expected: "menu r1"),
        Case(name: "JSON that is not GraphQL", body: json(["operation": "GetMenu"]), expected: nil),
    ]

    @Test("each request is answered by the rule for its operation", arguments: cases)
    func matching(_ c: Case) async throws {
        let (_, session, _) = try session(rules: Self.rules)
        let url = Self.endpoint + (c.query.map { "?" + $0 } ?? "")
        let result = await session.result(c.method, url, body: c.body, headers: ["Content-Type": c.contentType])
        #expect(result.text == c.expected, "\(result.error.map { "\($0)" } ?? "")")
        if c.expected == nil { #expect(result.error?.code == .notConnectedToInternet) }
    }

    @Test("Apollo's persisted queries with the example bundle: the hash alone is not known, the document is, and a hash with its name is")
    func automaticPersistedQueries() async throws {
        let (_, session) = try session(bundle: "graphql_menu")
        let hash = String(repeating: "ab", count: 32)
        let extensions: [String: Any] = ["persistedQuery": ["version": 1, "sha256Hash": hash]]
        // Apollo iOS first sends the hash without the document: the server does not know it yet.
        let first = await session.result("POST", Self.endpoint, body: Self.json(["extensions": extensions]), headers: ["Content-Type": "application/json"])
        let errors = first.json?["errors"] as? [[String: Any]]
        #expect((errors?.first?["extensions"] as? [String: Any])?["code"] as? String == "PERSISTED_QUERY_NOT_FOUND", "\(first.text ?? "")")
        // Then the document with the hash: answered by the operation's rule.
        let second = await session.result("POST", Self.endpoint, body: Self.json([
            "query": "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id name } }",
            "variables": ["restaurantId": "r1"], "extensions": extensions]), headers: ["Content-Type": "application/json"])
        #expect(((second.json?["data"] as? [String: Any])?["restaurant"] as? [String: Any])?["name"] as? String == "Pizza Palace", "\(second.text ?? "")")
        // A client that sends the name with the hash is answered by the operation at once.
        let named = await session.result("POST", Self.endpoint, body: Self.json([
            "operationName": "RestaurantList", "variables": ["postcode": "EC1A 1BB"], "extensions": extensions]), headers: ["Content-Type": "application/json"])
        #expect(((named.json?["data"] as? [String: Any])?["restaurants"] as? [Any])?.count == 2, "\(named.text ?? "")")
    }

    @Test("templates read the operation's name, type and variables")
    func templates() async throws {
        let (_, session, _) = try session(rules: """
        [{ "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "template": true,
           "json": { "data": { "restaurant": { "id": "{{graphql.variables.restaurantId}}", "tags": "{{graphql.variables.tags | json}}",
                                               "op": "{{graphql.operationType}} {{graphql.operationName}}", "missing": "{{graphql.variables.nope}}" } } } }]
        """)
        let result = await session.result("POST", Self.endpoint, body: Self.json([
            "query": "query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { id } }",
            "variables": ["restaurantId": "r42", "tags": ["vegan", 1]]]), headers: ["Content-Type": "application/json"])
        let restaurant = (result.json?["data"] as? [String: Any])?["restaurant"] as? [String: Any]
        #expect(restaurant?["id"] as? String == "r42", "\(result.text ?? "")")
        #expect(restaurant?["op"] as? String == "query GetMenu")
        #expect(restaurant?["missing"] as? String == "")
        #expect((restaurant?["tags"] as? [Any])?.count == 2)
    }

    @Test("the kill switch names the operation and the rule spelt closest to it first")
    func nearMisses() async throws {
        let (engine, _, _) = try session(rules: """
        [
          { "name": "restaurants", "path": "/graphql", "graphql": { "operationName": "RestaurantList" }, "body": "list" },
          { "name": "persisted", "path": "/graphql", "graphql": { "document": "absent" }, "body": "not found" },
          { "name": "menu", "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "body": "menu" }
        ]
        """)
        let request = StubRequest(method: "POST", url: URL(string: Self.endpoint)!, headers: ["Content-Type": "application/json"],
                                  body: Data(Self.json(["query": "query GetMenus { a }"]).utf8))
        guard case .refuse(let report) = engine.decision(for: request) else {
            Issue.record("the request was answered")
            return
        }
        #expect(report.description.contains("no stub answers POST \(Self.endpoint) (GraphQL query GetMenus)"), "\(report)")
        #expect(report.nearMisses.first?.rule.name == "menu", "\(report)")
        #expect(report.nearMisses.first?.mismatches.map(\.description) == ["graphql operation: expected GetMenu, got GetMenus"])
    }

    @Test("a document the request cannot be read by says why in the near miss")
    func unreadableDocument() throws {
        let (engine, _, _) = try session(rules: #"[{ "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "body": "menu" }]"#)
        let request = StubRequest(method: "POST", url: URL(string: Self.endpoint)!,
                                  body: Data(Self.json(["query": "query GetMenu { a(x: \"oops) }"]).utf8))
        guard case .refuse(let report) = engine.decision(for: request) else {
            Issue.record("the request was answered")
            return
        }
        #expect(report.nearMisses.first?.mismatches.first?.detail == "the document does not parse: a string that is never closed at line 1, column 22", "\(report)")
    }

    @Test("10,000 rules on one endpoint: each request is answered by its operation's rule, found through the index")
    func manyOperations() throws {
        let rules = (0..<10_000).map { #"{ "path": "/graphql", "graphql": { "operationName": "Op\#($0)" }, "body": "\#($0)" }"# }
        let (engine, _, folder) = try session(rules: "[" + rules.joined(separator: ",\n") + "]")
        for n in [0, 4_321, 9_999] {
            let request = StubRequest(method: "POST", url: URL(string: Self.endpoint)!, body: Data(Self.json(["query": "query Op\(n) { a }"]).utf8))
            guard case .answer(let match) = engine.decision(for: request) else {
                Issue.record("Op\(n) was not answered")
                continue
            }
            #expect(match.rule.name == nil && match.rule.source.index == n)
        }
        // The rules went into one table keyed by operation name, not a list checked in turn.
        let index = RuleIndex(bundles: [try engine.load(folder: folder.url.appendingPathComponent("g")).0])
        let request = StubRequest(method: "POST", url: URL(string: Self.endpoint)!, body: Data(Self.json(["query": "query Op7 { a }"]).utf8))
        #expect(index.candidates(for: request) == [7])
    }

    @Test("a GraphQL GET is read once and kept with the request, as a body is")
    func getReadOnce() {
        let request = StubRequest(url: URL(string: Self.endpoint + "?query=query%20GetMenu%20%7B%20a%20%7D")!)
        #expect(!request.holdsDecodedBody)
        #expect(request.graphQL?.operations.first?.name == "GetMenu")
        #expect(request.holdsDecodedBody, "the reading is kept for the next rule that looks")
        // A REST GET without GraphQL's fields carries no cache at all.
        #expect(!StubRequest(url: URL(string: "https://api.test/search?q=pizza")!).holdsDecodedBody)
    }

    @Test("a report names a request GraphQL only when it reads as GraphQL, and cuts long variables")
    func reportsSayOnlyWhatTheyKnow() throws {
        let (engine, _, _) = try session(rules: #"[{ "path": "/**", "graphql": { "operationName": "Login", "variables": { "user": "bob" } }, "body": "ok" }]"#)
        guard case .refuse(let rest) = engine.decision(for: StubRequest(url: URL(string: "https://api.test/search?query=pizza")!)) else {
            Issue.record("answered")
            return
        }
        #expect(rest.description.contains("no stub answers GET https://api.test/search?query=pizza (active bundles"), "\(rest)")
        let long = String(repeating: "A", count: 3_000)
        let request = StubRequest(method: "POST", url: URL(string: Self.endpoint)!,
                                  body: Data(Self.json(["query": "query Login { me }", "variables": ["user": "alice", "blob": long]]).utf8))
        guard case .refuse(let report) = engine.decision(for: request) else {
            Issue.record("answered")
            return
        }
        let variables = try #require(report.nearMisses.first?.mismatches.first { $0.field == "graphql variables" })
        #expect(variables.actual.utf8.count <= 124 && variables.actual.hasSuffix("…"), "\(variables.actual.count) characters")
        #expect(report.description.contains("(GraphQL query Login)"))
    }

    @Test("a refused batch of many unknown operations names each, and looks for near misses of the first ten only")
    func largeRefusedBatch() throws {
        let (engine, _, _) = try session(rules: #"[{ "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "body": "menu" }]"#)
        let operations = (0..<40).map { ["query": "query Op\($0) { a }"] }
        let body = try JSONSerialization.data(withJSONObject: operations)
        guard case .refuse(let report) = engine.decision(for: StubRequest(method: "POST", url: URL(string: Self.endpoint)!, body: body)) else {
            Issue.record("the batch was answered")
            return
        }
        #expect(report.operations.count == 40)
        #expect(report.operations.prefix(10).allSatisfy { !$0.nearMisses.isEmpty })
        #expect(report.operations.dropFirst(10).allSatisfy { $0.nearMisses.isEmpty })
    }
}

