#if Tools
import Foundation

/// Two measures taken interleaved, one of each per round, so drift in the machine's speed (other work,
/// frequency changes) hits both alike.
struct PairedStats {
    var a: Stats
    var b: Stats
    /// The median of the per-round ratios B/A: a paired comparison, steadier than the ratio of two
    /// medians when the machine's speed drifts.
    var ratioMedian: Double

    static func measure(_ nameA: String, _ a: () -> Void, _ nameB: String, _ b: () -> Void, runs: Int) -> PairedStats {
        var samplesA: [Double] = [], samplesB: [Double] = []
        for _ in 0..<3 { a(); b() }
        for _ in 0..<runs {
            var start = DispatchTime.now().uptimeNanoseconds
            a()
            samplesA.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
            start = DispatchTime.now().uptimeNanoseconds
            b()
            samplesB.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
        }
        let ratios = zip(samplesA, samplesB).map { $1 / $0 }.sorted()
        return PairedStats(a: Stats(name: nameA, samples: samplesA), b: Stats(name: nameB, samples: samplesB), ratioMedian: ratios[ratios.count / 2])
    }
}
#endif
