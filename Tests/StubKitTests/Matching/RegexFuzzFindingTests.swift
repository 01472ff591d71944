import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Inputs the regex fuzzer (Fuzz/regex, differential against NSRegularExpression) stopped on, kept as
/// regression tests: on each, the linear engine either agrees or leaves the pattern to NSRegularExpression.
struct RegexFuzzFindingTests {
    /// The fuzzer's input file: pattern, NUL, text (both decoded leniently, as the fuzz target does).
    static func fuzzInput(_ name: String) throws -> (pattern: String, text: String) {
        let bytes = try [UInt8](Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("fuzz/\(name)")))
        let separator = try #require(bytes.firstIndex(of: 0))
        return (String(decoding: bytes[..<separator], as: UTF8.self),
                String(decoding: bytes[(separator + 1)...].prefix(64), as: UTF8.self))
    }

    @Test("a class with a range ending in '-' before another '-': ICU reads '--' as set difference")
    func classRangeEndingInHyphen() throws {
        let input = try Self.fuzzInput("regex-class-disagreement.bin")
        let regex = try RegexPattern(input.pattern)
        #expect(regex.matches(input.text) == RegexEngineTests.foundationMatches(input.pattern, input.text),
                "/\(input.pattern)/ on \(input.text.debugDescription)")
    }

    @Test("set operators anywhere in a class leave the pattern to NSRegularExpression, which gives the answer", arguments: [
        ("[\u{1b}--\u{8}]", "-"), ("[\u{1b}--\u{8}]", "\u{1b}"), ("[!-&&a]", "&"), ("[!-&&a]", "a"),
    ])
    func setOperatorsInClass(pattern: String, text: String) throws {
        let regex = try RegexPattern(pattern)
        #expect(!regex.isLinear, "/\(pattern.debugDescription)/ should be left to NSRegularExpression")
        #expect(regex.matches(text) == RegexEngineTests.foundationMatches(pattern, text))
    }

    @Test("a pattern ICU refuses is refused by RegexPattern too (the subset parser must accept nothing ICU refuses)", arguments: [
        "(?<a>x)(?<a>y)", "(?<a>x)|(?<a>y)", "(?:){2147483648}", "(){99999999999}", "a{100001}", "a{2,100001}",
        "",  // the CI fuzz run's finding: Foundation on Linux refuses an empty pattern
    ])
    func icuRefusals(_ pattern: String) {
        let icuAccepts = (try? NSRegularExpression(pattern: pattern, options: [])) != nil
        let ours = (try? RegexPattern(pattern)) != nil
        #expect(ours == icuAccepts, "/\(pattern)/: ICU \(icuAccepts ? "accepts" : "refuses"), RegexPattern \(ours ? "accepts" : "refuses")")
    }
}
