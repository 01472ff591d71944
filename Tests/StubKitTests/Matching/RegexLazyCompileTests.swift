import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Loading parses every `urlRegex`/`matching_url` pattern (so invalid and too-large ones are reported
/// with the bundle) but compiles a pattern's program only when a request first runs it. These tests
/// hold the two halves to what a user sees: the same diagnostics at load, the same answers after.
struct RegexLazyCompileTests {
    static let seed: UInt64 = 0x1A2_C0DE

    @Test("loading reports invalid and too-large patterns at once, without compiling any program")
    func diagnosticsAtLoad() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("lazy", ["stubsRules.json": #"""
            [
              { "name": "plain", "urlRegex": "^https://h/items/\\d+$", "body": "1" },
              { "name": "broken", "urlRegex": "/items/(\\d+", "body": "2" },
              { "name": "huge", "urlRegex": "/big/(a{5000}){20}", "body": "3" }
            ]
            """#])
        let result = BundleLoader().load(folder: bundle)
        let codes = result.diagnostics.map(\.code)
        #expect(codes.contains(.invalidRegex), "\(result.diagnostics)")
        #expect(codes.contains(.backtrackingRegex), "the too-large program is reported at load: \(result.diagnostics)")
        #expect(result.diagnostics.contains { $0.message.contains("too large to expand") })
        let plain = try #require(result.bundle.rules.first { $0.displayName == "plain" }?.request.urlPattern)
        #expect(plain.isLinear)
        #expect(!plain.isCompiled, "loading must not compile the program")
        #expect(plain.matches("https://h/items/42"))
        #expect(plain.isCompiled)
        let huge = try #require(result.bundle.rules.first { $0.displayName == "huge" }?.request.urlPattern)
        #expect(!huge.isLinear)
        #expect(huge.matches("https://h/big/" + String(repeating: "a", count: 100_000)))
    }

    @Test("whether a pattern fits is decided without compiling, with the compiler's own answer")
    func fitsAgreesWithTheCompiler() throws {
        print("RegexLazyCompileTests.fitsAgreesWithTheCompiler seed \(Self.seed)")
        var rng = SeededGenerator(seed: Self.seed)
        // Counts near the limit (20,000 instructions) on both sides, plus the generated corpus.
        var patterns = ["a{20000}", "a{20001}", "(ab){10000}", "(ab){10001}", "a{0,6666}", "a{0,6667}", "(a|b){5000}",
                        "((a{100000}){100000}){100000}", "é{20000}", "(?:){99999}", "x{19999}", "^a{19999}$"]
        for _ in 0..<3_000 { patterns.append(RegexCorpus.pattern(&rng)) }
        for _ in 0..<500 {
            let count = 1 + rng.below(12_000)
            patterns.append("(\(RegexCorpus.pattern(&rng, depth: 2))){\(count)}")
        }
        var tooLarge = 0
        for pattern in patterns {
            guard let node = try? RegexParser.parse(pattern) else { continue }
            let compiled = try? RegexProgram(node)
            #expect(RegexProgram.fits(node) == (compiled != nil), "/\(pattern)/")
            if let compiled {
                #expect(RegexProgram.length(of: RegexProgram.searchCore(node)) == compiled.instructions.count - 1, "/\(pattern)/")
            } else {
                tooLarge += 1
            }
        }
        #expect(tooLarge > 20, "the corpus should hold patterns over the limit: \(tooLarge)")
    }

    @Test("many threads running a pattern for the first time at once all get the right answer")
    func firstUseFromManyThreads() throws {
        // Under the thread sanitizer (swift test --sanitize=thread) an unguarded lazy compile is a race.
        for round in 0..<50 {
            let pattern = try RegexPattern("^https://h/v\(round)/(items|orders)/\\d+$")
            #expect(!pattern.isCompiled)
            let hits = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                let url = i.isMultiple(of: 2) ? "https://h/v\(round)/items/\(i)" : "https://h/v\(round)/users/\(i)"
                if pattern.matches(url) == i.isMultiple(of: 2) { hits.withLock { $0 += 1 } }
            }
            #expect(hits.withLock { $0 } == 8, "round \(round)")
        }
    }

    @Test("literal runs parsed as one node give the same answers and literals as before", arguments: [
        ("api.example.com/v1/sign_up/", ["api", "example", "com/v1/sign_up/"]),
        ("^https://h/a\\.b\\?c=1$", ["https://h/a.b?c=1"]),
        ("ab+c", ["a", "b", "c"]),
        ("(abc)+d", ["abc", "d"]),
        ("é/ü{2}x", ["é/", "ü", "x"]),
    ])
    func literalRuns(pattern: String, expected: [String]) throws {
        let regex = try RegexPattern(pattern)
        #expect(regex.requiredLiterals == expected)
        for text in ["https://api.example.com/v1/sign_up/x", "https://h/a.b?c=1", "abbc", "abcabcd", "é/üüx", "é/üx"] {
            #expect(regex.matches(text) == RegexEngineTests.foundationMatches(pattern, text), "/\(pattern)/ on \(text)")
        }
    }
}
