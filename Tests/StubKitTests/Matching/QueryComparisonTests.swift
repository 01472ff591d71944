import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Query names and values compare in one form (``PercentEncoding``): every escape decoded but `%25`
/// and `%2B`, so `%2B` and `+` are different values, and everything else compares as decoded text.
struct QueryComparisonTests {
    struct FormCase: CustomTestStringConvertible, Sendable {
        var text: String
        var form: String
        var why: String
        var testDescription: String { "\(text) → \(form) (\(why))" }
    }

    static let forms: [FormCase] = [
        FormCase(text: "a+b", form: "a+b", why: "a plain plus stays"),
        FormCase(text: "a%2Bb", form: "a%2Bb", why: "an escaped plus stays an escape"),
        FormCase(text: "a%2bb", form: "a%2Bb", why: "its hex upper-cased"),
        FormCase(text: "%41", form: "A", why: "an unreserved escape decoded"),
        FormCase(text: "%7c%7C|", form: "|||", why: "escape case does not matter"),
        FormCase(text: "a%20b", form: "a b", why: "a space decoded"),
        FormCase(text: "x%26y%3Dz", form: "x&y=z", why: "escaped separators decoded after the split"),
        FormCase(text: "100%25", form: "100%25", why: "an escaped % stays an escape"),
        FormCase(text: "100%", form: "100%25", why: "a lone % at the end is the data %"),
        FormCase(text: "%zz", form: "%25zz", why: "a % without two hex digits is the data %"),
        FormCase(text: "%2", form: "%252", why: "one hex digit is not an escape"),
        FormCase(text: "%2541", form: "%2541", why: "an escaped % before hex digits is not decoded twice"),
        FormCase(text: "%C3%A9 é", form: "é é", why: "UTF-8 escapes decoded"),
        FormCase(text: "%c3%a9", form: "é", why: "in either case"),
        FormCase(text: "%ff%41", form: "%FFA", why: "bytes that are not UTF-8 stay escaped, upper-cased"),
        FormCase(text: "", form: "", why: "empty"),
    ]

    @Test("the comparison form of a query name or value; applying it again changes nothing", arguments: forms)
    func comparisonForm(_ c: FormCase) {
        #expect(PercentEncoding.comparable(c.text) == c.form)
        #expect(PercentEncoding.comparable(c.form) == c.form, "idempotent")
    }

    @Test("%2B and + differ, %2b and %2B do not, %25 and a lone % are the same data")
    func distinctions() {
        #expect(PercentEncoding.comparable("%2B") != PercentEncoding.comparable("+"))
        #expect(PercentEncoding.comparable("%2b") == PercentEncoding.comparable("%2B"))
        #expect(PercentEncoding.comparable("%41") == PercentEncoding.comparable("A"))
        #expect(PercentEncoding.comparable("%25") == PercentEncoding.comparable("%"))
        #expect(PercentEncoding.comparable("%2541") != PercentEncoding.comparable("%41"))
    }

    @Test("what writers put in a rules file: decoded text, unless that would compare differently", arguments: [
        ("a+b", "a+b"), ("a%2Bb", "a%2Bb"), ("a%2bb", "a%2Bb"), ("a%20b", "a b"), ("100%25", "100%"), ("%2541", "%2541"), ("%7c", "|"),
    ])
    func ruleText(_ raw: String, _ text: String) {
        #expect(PercentEncoding.ruleText(ofQuery: raw[...]) == text)
    }

    @Test("a pinned query's escapes match in either case, and only as escapes", arguments: [
        ("%7C", "%7[Cc]"), ("a%c3%A9", "a%[Cc]3%[Aa]9"), ("%20%2B", "%20%2[Bb]"), ("100%", "100%"), ("%zz", "%zz"),
    ])
    func escapeCase(_ pattern: String, _ expected: String) throws {
        #expect(PercentEncoding.escapeCaseInsensitive(pattern: pattern) == expected)
    }

    @Test("generated names and values: idempotent; rule text and URL text compare as the value sent (fixed seed)")
    func generated() {
        var generator = QueryURLGenerator(random: .fromEnvironment(default: 0x5EED_C0_3A2E))
        let seed = "seed \(generator.random.seed) (STUBKIT_SEED reruns another)"
        for _ in 0..<3_000 {
            let raw = generator.random.below(3) == 0 ? generator.name() : generator.value()
            let form = PercentEncoding.comparable(raw)
            #expect(PercentEncoding.comparable(form) == form, "\(seed): \(raw)")
            #expect(PercentEncoding.comparable(PercentEncoding.ruleText(ofQuery: raw[...])) == form, "\(seed): \(raw)")
            let written = PercentEncoding.queryText(comparable: form)
            #expect(PercentEncoding.comparable(written) == form, "\(seed): \(raw) written as \(written)")
            #expect(!written.contains("&") && !written.contains("=") && !written.contains("#"), "\(seed): \(written)")
            let decoded = PercentEncoding.decoded(raw[...])
            #expect(PercentEncoding.decoded(PercentEncoding.queryText(decoded: decoded)[...]) == decoded, "\(seed): \(raw)")
        }
    }
}

extension QueryComparisonTests {
    /// Rules on `/d` are enough to be told apart by a discriminator on `q`; `/m…` have one rule each.
    static let rules = #"""
    [
      {"path": "/d", "query": {"q": "a+b"}, "status": 201},
      {"path": "/d", "query": {"q": "a%2Bb"}, "status": 202},
      {"path": "/d", "query": {"q": "a b"}, "status": 203},
      {"path": "/d", "query": {"q": "100%"}, "status": 204},
      {"path": "/d", "query": {"q": "%41"}, "status": 205},
      {"path": "/m1", "query": {"q": "a+b"}, "status": 211},
      {"path": "/m2", "query": {"q": {"equals": "a%2bb"}}, "status": 212},
      {"path": "/m3", "query": {"q": {"matches": "^a\\+b$"}}, "status": 213},
      {"path": "/m4", "query": {"%71": "x"}, "status": 214}
    ]
    """#

    struct MatchCase: CustomTestStringConvertible, Sendable {
        var target: String
        var status: Int?
        init(_ target: String, _ status: Int?) { (self.target, self.status) = (target, status) }
        var testDescription: String { "\(target) → \(status.map(String.init) ?? "no rule")" }
    }

    static let requests: [MatchCase] = [
        .init("/d?q=a+b", 201), .init("/d?q=a%2Bb", 202), .init("/d?q=a%2bb", 202), .init("/d?q=a%20b", 203),
        .init("/d?q=100%25", 204), .init("/d?q=100%", 204), .init("/d?q=A", 205), .init("/d?q=%41", 205),
        .init("/d?q=%2541", nil), .init("/d?q=a%2B", nil),
        .init("/m1?q=a+b", 211), .init("/m1?q=a%2Bb", nil), .init("/m2?q=a%2Bb", 212), .init("/m2?q=a+b", nil),
        .init("/m3?q=a+b", 213), .init("/m3?q=a%2Bb", 213), .init("/m4?q=x", 214), .init("/m4?%71=x", 214), .init("/m4?%2571=x", nil),
    ]

    @Test("rules answer the requests whose query compares equal: + and %2B apart, a regex sees the decoded value", arguments: requests)
    func matching(_ c: MatchCase) throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine(killSwitch: true)
        try folder.activate(engine, bundle: "b", rules: Self.rules)
        let request = StubRequest(url: try #require(URL(string: "https://api.example.test" + c.target)))
        #expect(engine.match(request)?.rule.response.status == c.status)
    }

    @Test("two query names that are one name once decoded are reported, naming both")
    func collidingNames() throws {
        let diagnostics = try RuleValueTests.load(#"[{"path": "/a", "query": {"q": "1", "%71": "2"}}]"#)
        #expect(diagnostics.map { "\($0.code) \($0.keyPath)" } == ["SK020 [0].query.%71"], "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("'q' and '%71'") == true, "\(diagnostics)")
    }

    @Test("a rule after one whose regex accepts its decoded query value is reported as shadowed; + against %2B is not")
    func shadowing() throws {
        let shadowed = try RuleValueTests.load(#"""
            [{"path": "/a", "query": {"q": {"matches": "^a\\+b$"}}}, {"path": "/a", "query": {"q": "a%2Bb"}}]
            """#, options: .lint)
        #expect(shadowed.map { "\($0.code) \($0.keyPath)" } == ["SK041 [1]"], "\(shadowed)")
        let apart = try RuleValueTests.load(#"[{"path": "/a", "query": {"q": "a+b"}}, {"path": "/a", "query": {"q": "a%2Bb"}}]"#, options: .lint)
        // Not shadowed; the hand-written '+' gets its note (SK024) and nothing else.
        #expect(apart.map { "\($0.code) \($0.keyPath)" } == ["SK024 [0].query.q"], "\(apart)")
    }
}
