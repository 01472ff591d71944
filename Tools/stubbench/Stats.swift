#if Tools
import Foundation

/// One measure: the median and p99 of its runs in microseconds, as the JSON report's `results` hold it.
struct Stats: Codable {
    var name: String
    var medianMicros: Double
    var p99Micros: Double
    var runs: Int

    /// The median and p99 of `samples` (microseconds).
    init(name: String, samples: [Double]) {
        let sorted = samples.sorted()
        self.init(name: name, medianMicros: sorted[sorted.count / 2], p99Micros: sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], runs: samples.count)
    }

    init(name: String, medianMicros: Double, p99Micros: Double, runs: Int) {
        self.name = name
        self.medianMicros = medianMicros
        self.p99Micros = p99Micros
        self.runs = runs
    }

    /// The same measure divided by `count`: per request when one run makes `count` of them.
    func divided(by count: Double) -> Stats {
        Stats(name: name, medianMicros: medianMicros / count, p99Micros: p99Micros / count, runs: runs)
    }

    /// Runs `body` `inner` times per run, `runs` times after up to three warm-up calls.
    static func measure(_ name: String, runs: Int, inner: Int = 1, _ body: () -> Void) -> Stats {
        for _ in 0..<min(3, runs) { body() }
        var samples: [Double] = []
        samples.reserveCapacity(runs)
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            for _ in 0..<inner { body() }
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(inner))
        }
        return Stats(name: name, samples: samples)
    }
}
#endif
