#if Tools
import Foundation
import StubKit

/// Loading bundles of 100 to 10,000 rules, JSON and plist, against Foundation's decode of the same file.
struct LoadBenchmarks {
    let configuration: BenchmarkConfiguration
    let recorder: BenchmarkRecorder

    /// Records both measures per size and kind; returns StubKit's time over the floor's, keyed "JSON 100".
    func run() throws -> [String: Double] {
        let quick = configuration.quick
        var ratios: [String: Double] = [:]
        for size in quick ? [100, 1_000] : [100, 1_000, 10_000] {
            for plist in [false, true] {
                let folder = try configuration.makeBundle("load\(size)\(plist ? "p" : "j")", rules: size, plist: plist)
                let file = folder.appendingPathComponent(plist ? "stubsRules.plist" : "stubsRules.json")
                let runs = quick ? 5 : (size >= 10_000 ? 30 : 100)
                let kind = plist ? "plist" : "JSON"
                let floor = Stats.measure("load \(size) rules (\(kind)): Foundation decode only (floor)", runs: runs) {
                    let data = try! Data(contentsOf: file)
                    if plist { _ = try! PropertyListSerialization.propertyList(from: data, format: nil) }
                    else { _ = try! JSONSerialization.jsonObject(with: data) }
                }
                let ours = Stats.measure("load \(size) rules (\(kind)): StubKit load + validate", runs: runs) {
                    let result = BundleLoader().load(folder: folder)
                    precondition(result.bundle.rules.count == size)
                }
                recorder.record(floor); recorder.record(ours)
                ratios["\(kind) \(size)"] = ours.medianMicros / floor.medianMicros
            }
        }
        return ratios
    }
}
#endif
