#if Tools
import Foundation

/// Every suite in turn, then the targets judged on their figures, printed and written as the JSON report.
struct FullBenchmark {
    let configuration: BenchmarkConfiguration

    init(_ configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    func run() throws {
        let quick = configuration.quick
        let recorder = BenchmarkRecorder()
        print("StubKit benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(quick ? "quick" : "full") mode")
        print(String(format: "%-62@ %15@ %15@", "measure" as NSString, "median" as NSString, "p99" as NSString))

        let loadRatios = try LoadBenchmarks(configuration: configuration, recorder: recorder).run()
        let matching = try MatchBenchmarks(configuration: configuration, recorder: recorder).run()
        let shapeTargets = try runShapeBenchmarks(configuration, recorder: recorder)
        let endToEnd = try EndToEndBenchmarks(configuration: configuration, recorder: recorder).run()
        let throughput = ThroughputBenchmark(configuration: configuration).run(endToEnd.stubSession)
        let memory = try MemoryBenchmark(configuration: configuration).run()

        let match10 = matching.medians["hit last rule 10"]!, match10k = matching.medians["hit last rule 10000"]!
        let missRatio = matching.medians["miss 10000"]! / matching.medians["miss 10"]!
        let dictionaryLookup = matching.dictionaryLookup.medianMicros
        var targets: [BenchmarkTarget] = []
        targets.append(BenchmarkTarget(name: "matching with 10,000 rules within 2x of 10 rules", met: match10k <= 2 * match10 && missRatio <= 2,
                                       measured: String(format: "hit-last %.2f vs %.2f µs (%.2fx); miss %.2fx", match10k, match10, match10k / match10, missRatio)))
        targets += shapeTargets
        targets.append(BenchmarkTarget(name: "matching within 10x a Dictionary lookup by path", met: match10k <= 10 * dictionaryLookup,
                                       measured: String(format: "%.2f µs vs %.2f µs (%.1fx)", match10k, dictionaryLookup, match10k / dictionaryLookup)))
        let worstLoad = loadRatios.max { $0.value < $1.value }!
        targets.append(BenchmarkTarget(name: "loading within 1.5x the Foundation decode", met: worstLoad.value <= 1.5,
                                       measured: loadRatios.sorted { $0.key < $1.key }.map { String(format: "%@ %.2fx", $0.key, $0.value) }.joined(separator: ", ")))
        let (stub, floor) = (endToEnd.stub.medianMicros, endToEnd.floor.medianMicros)
        targets.append(BenchmarkTarget(name: "end-to-end within 1.2x the minimal URLProtocol", met: endToEnd.ratio <= 1.2,
                                       measured: String(format: "%.1f µs vs %.1f µs; median of paired per-round ratios %.2fx (ratio of medians %.2fx)%@", stub, floor, endToEnd.ratio, stub / floor,
                                                        endToEnd.loopback.map { String(format: "; loopback server %.1f µs", $0.medianMicros) } ?? "")))
        targets.append(BenchmarkTarget(name: "memory serving the large file within 20 MB of idle", met: memory.memoryAboveIdleMB <= 20,
                                       measured: String(format: "%.1f MB peak RSS above idle for %d MB", memory.memoryAboveIdleMB, memory.largeFileMB)))

        print("\nTargets (\(quick ? "quick mode: indicative only" : "full mode")):")
        for target in targets { print("  [\(target.met ? "met" : "NOT met")] \(target.name): \(target.measured)") }
        for note in recorder.notes { print("  note: \(note)") }

        let report = BenchmarkReport(cores: ProcessInfo.processInfo.activeProcessorCount, mode: quick ? "quick" : "full", results: recorder.results,
                                     throughputRequestsPerSecond: throughput.requestsPerSecond, inFlight: throughput.inFlight, largeFileMB: memory.largeFileMB,
                                     memoryAboveIdleMB: memory.memoryAboveIdleMB,
                                     targets: targets.map { ["target": $0.name, "met": $0.met ? "yes" : "no", "measured": $0.measured] }, notes: recorder.notes)
        try report.write(to: configuration.outputPath)
        print("\nwrote \(configuration.outputPath)")
    }
}
#endif
