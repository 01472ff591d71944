import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The shadowing check compares only rules that can overlap, and reports exactly what comparing every
/// pair reported (issue 10: 10,000 rules under one prefix took 13 s).
struct RuleOverlapEquivalenceTests {
    static let seed: UInt64 = 0x0FE7_1A95

    /// Rules drawn from small alphabets so that covering, duplicates and priorities collide often.
    static func generatedRules(count: Int, _ rng: inout SeededGenerator) -> [StubRule] {
        let regexes = try! [RegexPattern(".*/a"), RegexPattern("^https://h/b"), RegexPattern("c$")]
        return (0..<count).map { i in
            var request = RequestConditions()
            if rng.below(8) == 0 {
                request.urlPattern = regexes[rng.below(regexes.count)]
            } else if rng.below(20) != 0 {
                let components = PathPatternComplexityTests.randomComponents(&rng, maxLength: 4)
                // Parameter names are unique within a pattern, as the parser guarantees.
                request.path = PathPattern(components: components)
            }
            switch rng.below(4) {
            case 0: request.methods = ["GET"]
            case 1: request.methods = ["GET", "POST"]
            case 2: request.methods = ["POST"]
            default: break
            }
            if rng.below(3) == 0 { request.host = ["h", "k"][rng.below(2)] }
            if rng.below(6) == 0 { request.scheme = "https" }
            if rng.below(4) == 0 { request.query["q"] = [.present, .equals("1"), .equals("2"), .absent][rng.below(4)] }
            if rng.below(6) == 0 { request.headers[["X-A", "x-a"][rng.below(2)]] = [.present, .equals("v")][rng.below(2)] }
            if rng.below(10) == 0 { request.body = [.contains("x")] }
            if rng.below(10) == 0 { request.scenarioState = ScenarioCondition(scenario: "s", state: ["one", "two"][rng.below(2)]) }
            let source = RuleSource(file: "gen.json", position: SourcePosition(line: i + 1, column: 3), index: i, keyPath: "[\(i)]")
            return StubRule(source: source, request: request, response: StubResponse(), priority: [0, 0, 0, 1, -1][rng.below(5)])
        }
    }

    @Test("the indexed check reports the same warnings, with both locations, as comparing every pair", arguments: 0..<8)
    func sameAsAllPairs(_ round: Int) {
        let seed = Self.seed &+ UInt64(round)
        print("RuleOverlapEquivalenceTests.sameAsAllPairs seed \(seed)")
        var rng = SeededGenerator(seed: seed)
        let rules = Self.generatedRules(count: 400, &rng)
        let expected = ReferenceRuleOverlap.overlaps(in: rules)
        let actual = RuleOverlapValidator.overlaps(in: rules)
        #expect(actual == expected)
        #expect(expected.count > 20, "the corpus should produce warnings to compare")
        #expect(Set(expected.map(\.code)) == [.duplicateRule, .shadowedRule])
    }

    @Test("10,000 rules under one prefix are checked without comparing every pair")
    func manyRulesUnderOnePrefix() {
        let rules = (0..<10_000).map { i in
            StubRule(source: RuleSource(file: "big.json", position: SourcePosition(line: i + 1, column: 3), index: i, keyPath: "[\(i)]"),
                     request: RequestConditions(methods: ["GET"], path: PathPattern(components: [.literal("api"), .literal("r\(i)"), .parameter("id")])),
                     response: StubResponse())
        } + [StubRule(source: RuleSource(file: "big.json", position: SourcePosition(line: 10_001, column: 3), index: 10_000, keyPath: "[10000]"),
                      request: RequestConditions(methods: ["GET"], path: PathPattern(components: [.literal("api"), .literal("r9999"), .literal("7")])),
                      response: StubResponse())]
        let diagnostics = RuleOverlapValidator.overlaps(in: rules)
        #expect(diagnostics.map(\.code) == [.shadowedRule])
        #expect(diagnostics.first?.keyPath == "[10000]")
        #expect(diagnostics.first?.related?.keyPath == "[9999]")
        #expect(RuleOverlapValidator.comparisons(in: rules) < 50_000, "every rule was compared with every other")
    }
}

/// The shadowing check as it was before issue 10 (every later rule against every earlier one), kept
/// as the reference the indexed check must agree with.
enum ReferenceRuleOverlap {
    static func overlaps(in rules: [StubRule]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        for (i, rule) in rules.enumerated() {
            for j in 0..<i {
                let a = rules[j]
                guard a.priority >= rule.priority, RuleOverlapValidator.covers(a.request, rule.request) else { continue }
                let isDuplicate = a.priority == rule.priority && RuleOverlapValidator.covers(rule.request, a.request)
                diagnostics.append(RuleOverlapValidator.diagnostic(rule, coveredBy: a, isDuplicate: isDuplicate))
                break
            }
        }
        return diagnostics
    }
}
