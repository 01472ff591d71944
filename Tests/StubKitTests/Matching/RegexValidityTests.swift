import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// `RegexPattern` compiles `NSRegularExpression` only for patterns outside the linear-time subset
/// (loading 10,000 legacy rules spent most of its time there). That is right only if every pattern
/// the subset parser accepts is one `NSRegularExpression` accepts too: otherwise an invalid pattern
/// would load silently instead of failing with SK016.
struct RegexValidityTests {
    static let seed: UInt64 = 0x00DD_BA11

    /// Short strings over regex syntax, so most are invalid or odd in some way.
    static let alphabet: [String] = ["a", "b", "0", "9", ".", "*", "+", "?", "{", "}", ",", "(", ")", "[", "]", "^", "$", "|", "\\",
                                     "-", "/", ":", "=", "!", "<", ">", "&", "#", "d", "w", "s", "D", "1", "2", "é", " ", "\\d", "\\.", "{2}", "{1,3}", "(?:", "[^", "[:", ":]", "&-"]

    @Test("every pattern the linear-time parser accepts compiles in NSRegularExpression")
    func parserAcceptsOnlyValidPatterns() {
        print("RegexValidityTests.parserAcceptsOnlyValidPatterns seed \(Self.seed)")
        var rng = SeededGenerator(seed: Self.seed)
        var accepted = 0
        for _ in 0..<40_000 {
            let pattern = (0..<(1 + rng.below(8))).map { _ in Self.alphabet[rng.below(Self.alphabet.count)] }.joined()
            guard let node = try? RegexParser.parse(pattern), (try? RegexProgram(node)) != nil else { continue }
            accepted += 1
            #expect((try? NSRegularExpression(pattern: pattern)) != nil, "the subset parser accepts /\(pattern)/, NSRegularExpression does not")
        }
        #expect(accepted > 2_000, "the corpus should hold patterns the parser accepts: \(accepted)")
    }
}
