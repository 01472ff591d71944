import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inputs that used to cost quadratic time or memory in the readers. Each test measures the work at
/// size n and 4n and bounds the growth: linear work grows about 4x, quadratic 16x. A ratio, unlike a
/// wall-time limit, holds in debug and sanitizer builds and on a busy machine. Times are the thread's
/// CPU time, the lower of two runs per size.
struct ReaderCostTests {
    /// The most a 4x larger input may multiply the cost by: between linear (4) and quadratic (16).
    static let maximumGrowth = 8.0

    static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// The cost at 4n over the cost at n, checking the work's result at each size.
    func growth(_ n: Int, _ work: (Int) throws -> Void) rethrows -> Double {
        func cost(_ size: Int) throws -> Double {
            var best = Double.infinity
            for _ in 0..<2 {
                let start = Self.threadCPUSeconds()
                try work(size)
                best = min(best, Self.threadCPUSeconds() - start)
            }
            return max(best, 1e-6)
        }
        let small = try cost(n)
        return try cost(4 * n) / small
    }

    @Test("\\n escapes in one JSON string parse in linear time (quadratic once: 200,000 took 2 s, 800,000 took 17 s)")
    func manyEscapes() throws {
        let ratio = try growth(250_000) { n in
            let text = "[\"" + String(repeating: "\\n", count: n) + "x\"]"
            let value = try JSONSourceParser().parse(Data(text.utf8))
            #expect(value.arrayValue?.first?.stringValue?.utf8.count == n + 1)
        }
        #expect(ratio < Self.maximumGrowth, "4x the escapes cost \(ratio)x")
    }

    @Test("a dictionary's keys are checked for duplicates in linear time, and a late duplicate is still found")
    func manyKeys() throws {
        let folder = try TemporaryFolder()
        let ratio = try growth(12_500) { n in
            let query = (0..<n).map { "\"q\($0)\": \"v\"" }.joined(separator: ", ")
            let bundle = try folder.bundle("b\(n)", ["stubsRules.json": "[{\"path\": \"/a\", \"query\": {\(query), \"q7\": \"again\"}}]"])
            let diagnostics = BundleLoader().load(folder: bundle).diagnostics
            #expect(diagnostics.map(\.code) == [.duplicateKey])
            #expect(diagnostics.first?.keyPath == "[0].query.q7")
        }
        #expect(ratio < Self.maximumGrowth, "4x the keys cost \(ratio)x")
    }

    @Test("a rule's headers over as many bundle-wide headers merge in linear time (quadratic once: 20,000 took 30 s)")
    func manyHeaders() throws {
        let folder = try TemporaryFolder()
        let ratio = try growth(5_000) { n in
            let headers = "{" + (0..<n).map { "\"X-H\($0)\": \"v\"" }.joined(separator: ", ") + "}"
            let bundle = try folder.bundle("b\(n)", ["stubsRules.json": "{\"headers\": \(headers), \"rules\": [{\"path\": \"/a\", \"headers\": \(headers)}]}"])
            let result = BundleLoader().load(folder: bundle)
            #expect(result.diagnostics.isEmpty)
            #expect(result.bundle.rules.first?.response.headers.count == n)
        }
        #expect(ratio < Self.maximumGrowth, "4x the headers cost \(ratio)x")
    }

    @Test("a huge unknown key gets no suggestion search over its length, and is quoted by its start only")
    func megabyteKey() throws {
        let ratio = growth(1 << 18) { n in
            #expect(Suggestion.closest(to: String(repeating: "k", count: n), in: RuleKeys.rule) == nil)
        }
        #expect(ratio < Self.maximumGrowth, "a 4x longer key cost \(ratio)x")
        let key = String(repeating: "k", count: 1 << 20)
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": "[{\"path\": \"/a\", \"\(key)\": 1}]"])
        let diagnostics = BundleLoader().load(folder: bundle).diagnostics
        #expect(diagnostics.map(\.code) == [.unknownKey])
        #expect((diagnostics.first?.description.utf8.count ?? .max) < 1000)
        #expect(diagnostics.first?.message.contains("(1048576 bytes)") == true)
    }

    @Test("edit distance is unchanged by the three-row rewrite", arguments: [
        ("stauts", "status", 1), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3), ("ca", "abc", 3), ("path", "path", 0),
        ("reponse", "response", 1), ("methdo", "method", 1),
    ])
    func editDistance(a: String, b: String, expected: Int) {
        #expect(Suggestion.editDistance(a, b) == expected)
    }
}
