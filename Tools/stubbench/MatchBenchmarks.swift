#if Tools
import Foundation
import StubKit

/// Matching among 10 to 10,000 distinct literal-path rules (first rule, last rule, miss), and its floor:
/// one Dictionary lookup keyed by the request's path string.
struct MatchBenchmarks {
    let configuration: BenchmarkConfiguration
    let recorder: BenchmarkRecorder

    struct Results {
        /// Median microseconds per match, keyed "hit last rule 10000".
        var medians: [String: Double]
        var dictionaryLookup: Stats
    }

    func run() throws -> Results {
        let quick = configuration.quick
        var medians: [String: Double] = [:]
        let inner = quick ? 100 : 1_000
        for size in [10, 1_000, 10_000] {
            let folder = try configuration.makeBundle("match\(size)", rules: size, plist: false)
            let engine = StubEngine()
            try engine.activate(folder: folder)
            let first = StubRequest(url: URL(string: "https://api.example.com/api/v1/resource0/42")!)
            let last = StubRequest(url: URL(string: "https://api.example.com/api/v1/resource\(size - 1)/42")!)
            let miss = StubRequest(url: URL(string: "https://api.example.com/api/v2/nothing/42")!)
            for (label, request, expectHit) in [("hit first rule", first, true), ("hit last rule", last, true), ("miss", miss, false)] {
                let s = Stats.measure("match among \(size) rules: \(label)", runs: quick ? 20 : 200, inner: inner) {
                    precondition((engine.match(request) != nil) == expectHit)
                }
                recorder.record(s)
                medians["\(label) \(size)"] = s.medianMicros
            }
        }
        var table: [String: Int] = [:]
        for i in 0..<10_000 { table["/api/v1/resource\(i)/42"] = i }
        let probeURL = URL(string: "https://api.example.com/api/v1/resource9999/42")!
        let dictionaryLookup = Stats.measure("Dictionary lookup by path string (10,000 keys)", runs: quick ? 20 : 200, inner: inner) {
            precondition(table[probeURL.path] != nil)
        }
        recorder.record(dictionaryLookup)
        return Results(medians: medians, dictionaryLookup: dictionaryLookup)
    }
}
#endif
