import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Regular expressions in rules run on StubKit's own linear-time engine when they stay inside the
/// subset real bundles use, and give the answers `NSRegularExpression` gives (issue 10).
struct RegexEngineTests {
    static let seed: UInt64 = 0x00E6_E710

    /// What `NSRegularExpression` says, with the options `RegexPattern` has always used.
    static func foundationMatches(_ pattern: String, _ text: String) -> Bool {
        let expression = try! NSRegularExpression(pattern: pattern, options: [])
        return expression.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// The same, or `nil` when NSRegularExpression itself runs away (a generated `(\\w*)*`-like
    /// pattern): the differential test cannot ask it then, and counts the case as skipped.
    static func foundationMatches(_ pattern: String, _ text: String, budget: Duration) -> Bool? {
        let expression = try! NSRegularExpression(pattern: pattern, options: [])
        let deadline = ContinuousClock.now.advanced(by: budget)
        var answer: Bool? = false
        expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { result, _, stop in
            if result != nil {
                answer = true
                stop.pointee = true
            } else if ContinuousClock.now >= deadline {
                answer = nil
                stop.pointee = true
            }
        }
        return answer
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var pattern: String
        var text: String
        var testDescription: String { "/\(pattern)/ on '\(text)'" }
        init(_ pattern: String, _ text: String) {
            self.pattern = pattern
            self.text = text
        }
    }

    @Test("the subset gives NSRegularExpression's answer", arguments: [
        Case(".*/sign_up", "https://api.example.org/v1/sign_up"),
        Case(".*/sign_up", "https://api.example.org/v1/sign_in"),
        Case("^https://api\\.example\\.org/v1/users/\\d+$", "https://api.example.org/v1/users/42"),
        Case("^https://api\\.example\\.org/v1/users/\\d+$", "https://api.example.org/v1/users/42/"),
        Case("users/\\d{2,3}(\\?|$)", "https://h/users/123?x=1"),
        Case("users/\\d{2,3}(\\?|$)", "https://h/users/1234"),
        Case("(?:foo|bar)+baz", "https://h/foobarfoobaz"),
        Case("[^/]+\\.json$", "https://h/a/b.json"),
        Case("[^/]+\\.json$", "https://h/a/.json"),
        Case("[A-Z]", "https://h/abc"),
        Case("a$", "xa\n"),
        Case("a$", "xa\n\n"),
        Case("a$", "xa\r\n"),
        Case("^b", "a\nb"),
        Case("a.b", "a\nb"),
        Case("a.b", "a\u{2028}b"),
        Case("\\w+", "é"),
        Case("^\\s$", "\u{00A0}"),
        Case("^\\s$", "\u{000B}"),
        Case("^\\d$", "٣"),
        Case("a{0}b", "b"),
        Case("x*", ""),
        Case("(a|)+b", "aab"),
        Case("^$", ""),
        Case("[a\\-z]", "-"),
        Case("[-a]", "-"),
        Case("[\\d.]+", "1.2"),
        Case("é+", "caféé"),
        Case("😀.", "😀😀"),
        Case(".", "\u{1F600}"),
    ])
    func table(_ c: Case) throws {
        let regex = try RegexPattern(c.pattern)
        #expect(regex.isLinear, "/\(c.pattern)/ should be inside the linear-time subset")
        #expect(regex.matches(c.text) == Self.foundationMatches(c.pattern, c.text))
    }

    @Test("patterns outside the subset keep NSRegularExpression and say so", arguments: [
        "(a)\\1", "a(?=b)", "a(?!b)", "(?<=a)b", "a*+", "(?>a)", "(?i)abc", "\\bword\\b", "\\p{L}", "[[:alpha:]]", "[a-z&&[^c]]",
    ])
    func outsideSubset(_ pattern: String) throws {
        let regex = try RegexPattern(pattern)
        #expect(!regex.isLinear)
        #expect(regex.matches("abc") == Self.foundationMatches(pattern, "abc"))
    }

    @Test("an invalid expression still fails to compile")
    func invalid() {
        #expect(throws: (any Error).self) { try RegexPattern("(a") }
        #expect(throws: (any Error).self) { try RegexPattern("[a") }
    }

    @Test("pathological expressions give the right answer instead of hanging or a false miss")
    func pathological() throws {
        let aaa = "https://h/" + String(repeating: "a", count: 5000)
        // Hung the request forever with NSRegularExpression.
        #expect(try RegexPattern("(a|aa)+$").evaluate(aaa + "!") == .noMatch)
        #expect(try RegexPattern("(a|aa)+$").evaluate(aaa) == .match)
        // NSRegularExpression hung on the first and gave up on the second (ICU's backtracking stack
        // limit), reporting no match: a false miss.
        #expect(try RegexPattern("(a+)+$").evaluate(aaa + "!/a") == .match)
        #expect(try RegexPattern("(a+)+$").evaluate("https://h/" + String(repeating: "a", count: 400_000)) == .match)
        #expect(try RegexPattern("(a*)*b").evaluate(aaa) == .noMatch)
        #expect(try RegexPattern("(.*a){12}").evaluate(aaa + "b") == .match)
    }

    @Test("outside the subset a runaway match stops at its budget and says so")
    func overBudget() throws {
        let regex = try RegexPattern("(?=a)(a|aa)+$")
        #expect(!regex.isLinear)
        let text = "https://h/" + String(repeating: "a", count: 5000) + "!"
        #expect(regex.evaluate(text, budget: .milliseconds(50)) == .overBudget)
        #expect(!regex.matches("https://h/b"))
        #expect(regex.evaluate("https://h/aa") == .match)
    }

    @Test("a request whose URL regex runs over budget is a miss that the near-miss report explains")
    func overBudgetNearMiss() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "slow", rules: #"""
            [ { "name": "slow", "urlRegex": "(?=a)(a|aa)+$", "body": "x" } ]
            """#)
        let request = StubRequest(url: URL(string: "https://h/" + String(repeating: "a", count: 3000) + "!")!)
        #expect(engine.match(request) == nil)
        let text = RequestExplanation(engine: engine, request: request).text
        #expect(text.contains("regular expression over budget"), "\(text)")
        let lookup = engine.snapshot.index.lookup(for: request)
        #expect(lookup.entry == nil)
        #expect(lookup.overBudget.map(\.rule.displayName) == ["slow"])
    }

    @Test("differential: the linear engine agrees with NSRegularExpression on a generated corpus")
    func differential() throws {
        print("RegexEngineTests.differential seed \(Self.seed)")
        var rng = SeededGenerator(seed: Self.seed)
        var matches = 0, total = 0, linear = 0, skipped = 0
        for _ in 0..<600 {
            let pattern = RegexCorpus.pattern(&rng)
            let regex = try RegexPattern(pattern)
            // The few outside the subset (a lazy loop around something empty) must agree too.
            if regex.isLinear { linear += 1 }
            for _ in 0..<6 {
                let text = RegexCorpus.text(&rng)
                guard let expected = Self.foundationMatches(pattern, text, budget: .seconds(1)) else {
                    skipped += 1
                    continue
                }
                #expect(regex.matches(text) == expected, "/\(pattern)/ on \(text.debugDescription)")
                if expected { matches += 1 }
                total += 1
            }
        }
        #expect(matches > total / 10 && matches < total * 9 / 10, "the corpus should be balanced: \(matches) of \(total)")
        #expect(skipped < total / 100, "NSRegularExpression ran away on \(skipped) cases")
        #expect(linear > 550, "the corpus should exercise the linear engine: \(linear) of 600")
    }

    static var realWorldPatterns: [String] {
        guard let root = PackagePaths.realworld?.appendingPathComponent("stubrules") else { return [] }
        let files = (FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { $0.pathExtension == "plist" }.sorted { $0.path < $1.path }
        var patterns: [String] = []
        for file in files {
            guard let data = try? Data(contentsOf: file),
                  let rules = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [[String: Any]] else { continue }
            patterns += rules.compactMap { ($0["matching_url"] ?? $0["urlRegex"]) as? String }
        }
        return patterns
    }

    @Test("the real-world matching_url patterns run on the linear engine with the same answers",
          .enabled(if: PackagePaths.realworldTestsEnabled, "../shared/realworld is absent (CI requires it)"))
    func realWorld() throws {
        let patterns = Self.realWorldPatterns
        #expect(!patterns.isEmpty)
        let urls = ["https://api.example.org/v1/sign_up", "https://api.example.org/v1/medications", "https://api.example.org/v1/medications/3",
                    "https://api.example.org/sign_up?x=1", "https://h/", "http://localhost:8080/a/b/c"]
        for pattern in patterns {
            let regex = try RegexPattern(pattern)
            #expect(regex.isLinear, "/\(pattern)/")
            for url in urls {
                #expect(regex.matches(url) == Self.foundationMatches(pattern, url), "/\(pattern)/ on \(url)")
            }
        }
    }

    @Test("required literals: strings every match contains", arguments: [
        ("api\\.example\\.org/v1/sign_up", ["api.example.org/v1/sign_up"]),
        (".*/recommendations$", ["/recommendations"]),
        ("^https://h/users/\\d+/orders", ["https://h/users/", "/orders"]),
        ("(foo|bar)baz", ["baz"]),
        ("a?b", ["b"]),
        ("(ab)+c", ["ab", "c"]),
        (".*", []),
        ("(?=a)b", []),
    ])
    func requiredLiterals(pattern: String, literals: [String]) throws {
        #expect(try RegexPattern(pattern).requiredLiterals == literals)
    }

    @Test("a literal indexes its rule unless it is under two bytes or a piece of every URL's scheme part")
    func selectiveLiterals() throws {
        // Every piece of "https://" and "http://", and literals around them, against the plain rule.
        var literals = ["", "a", "é", "ap", "api", "//x", "https://a", "http:/x", "tps:", "ps:/", "https://h/users/", "ttp:"]
        for scheme in ["https://", "http://"] {
            let bytes = Array(scheme.utf8)
            for start in bytes.indices { for end in (start + 1)...bytes.count { literals.append(String(decoding: bytes[start..<end], as: UTF8.self)) } }
        }
        for literal in literals {
            let expected = literal.utf8.count >= 2 && !["https://", "http://"].contains { $0.contains(literal) }
            #expect(RegexPattern.isSelective(literal) == expected, "\(literal)")
        }
        #expect(try RegexPattern("^https://.*").indexLiterals.isEmpty)
        #expect(try RegexPattern("^https://api/x").indexLiterals == ["https://api/x"])
    }
}

/// Random patterns from the subset real bundles use, and texts that hit them often.
enum RegexCorpus {
    static let atoms = ["a", "b", "/", "\\.", ".", "\\d", "\\w", "\\s", "\\D", "\\W", "\\S", "[ab]", "[^a/]", "[a-c1]", "[\\d.]", "\\?", "\\-", "-", ":", "1", "é"]

    static func pattern(_ rng: inout SeededGenerator, depth: Int = 0) -> String {
        var out = rng.below(6) == 0 ? "^" : ""
        let alternatives = rng.below(5) == 0 && depth < 2 ? 2 : 1
        for alternative in 0..<alternatives {
            if alternative > 0 { out += "|" }
            for _ in 0..<(1 + rng.below(4)) {
                var atom: String
                if depth < 2 && rng.below(5) == 0 {
                    atom = (rng.below(2) == 0 ? "(" : "(?:") + pattern(&rng, depth: depth + 1) + ")"
                } else {
                    atom = atoms[rng.below(atoms.count)]
                }
                switch rng.below(10) {
                case 0: atom += "*"
                case 1: atom += "+"
                case 2: atom += "?"
                case 3: atom += ["{2}", "{1,3}", "{0,2}", "{2,}"][rng.below(4)]
                case 4: atom += ["*?", "+?", "??"][rng.below(3)]
                default: break
                }
                out += atom
            }
        }
        if rng.below(5) == 0 { out += "$" }
        return out
    }

    static let alphabet: [String] = ["a", "b", "/", ".", "1", "9", "-", ":", "?", " ", "\n", "é", "_", "A"]

    static func text(_ rng: inout SeededGenerator) -> String {
        var out = rng.below(3) == 0 ? "https://h/" : ""
        for _ in 0..<rng.below(12) { out += alphabet[rng.below(alphabet.count)] }
        return out
    }
}
