#if Tools
// stubbench: measures StubKit beside the floor and the alternatives, and writes a table and JSON.
//
//   swift run --traits Tools -c release stubbench [--quick] [--adversarial] [--live-journal] [--shapes] [--load-regex] [--output FILE]
//   swift run --traits Tools -c release stubbench --write-har N FILE   (the input of Tools/scripts/bench-import)
//
// Every figure is a median and p99 over many runs. Targets are ratios measured in the same run, since
// absolute times move with the machine. Nothing here is asserted: the report says what was met.
import ArgumentParser
import Foundation

@main
struct StubBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stubbench",
        abstract: "Measure StubKit beside the floor and the alternatives; print a table and write a JSON report.",
        discussion: """
            With no mode flag, runs every suite (loading, matching, rule shapes, end to end, throughput, memory) \
            and writes the JSON report. Build with -c release for figures worth reading (docs/benchmarks.md).
            """
    )

    @Flag(help: "Smaller sizes and fewer runs: shows that the benchmark builds and runs (CI).")
    var quick = false

    @Flag(help: "The adversarial input shapes at n and 10n: the readers, then matching and linting. STUBBENCH_ONLY=TEXT runs the shapes whose name contains TEXT.")
    var adversarial = false

    @Flag(help: "Only the wake-up latency of a test runner's wait on the live journal.")
    var liveJournal = false

    @Flag(help: "Only the rule shapes (literal, query, legacy regex, GraphQL, mixed).")
    var shapes = false

    @Flag(help: "Only loading 10,000 legacy regex rules against Foundation's decode.")
    var loadRegex = false

    @Option(help: ArgumentHelp("Where the JSON report of the full run goes.", valueName: "file"))
    var output = "docs/benchmarks.json"

    @Option(name: .customLong("write-har"), help: ArgumentHelp("Write a generated HAR of N entries to FILE (the first operand) and exit: the input of Tools/scripts/bench-import.", valueName: "N"))
    var writeHAREntries: Int?

    @Flag(name: .customLong("profile-e2e"), help: "Send stubbed requests through URLSession in a loop and exit, for perf or callgrind. Operands: [floor | floor-nocache] [N] (default 20000); floor sends them through a minimal constant URLProtocol instead.")
    var profileEndToEnd = false

    @Flag(name: .customLong("profile-load"), help: "Load one bundle of N rules (the operand, default 100) many times and exit, for perf or callgrind.")
    var profileLoad = false

    @Flag(name: .customLong("profile-load-regex"), help: "The same with N legacy matching_url rules (default 10000).")
    var profileLoadRegex = false

    @Argument(help: ArgumentHelp("The operands of --write-har, --profile-e2e, --profile-load and --profile-load-regex.", valueName: "operand"))
    var operands: [String] = []

    /// What this run does, decided once from the flags (the first mode given in this order wins).
    private(set) var mode = BenchmarkMode.full

    enum CodingKeys: CodingKey {
        case quick, adversarial, liveJournal, shapes, loadRegex, output, writeHAREntries, profileEndToEnd, profileLoad, profileLoadRegex, operands
    }

    mutating func validate() throws {
        var operands = operands[...]
        func count(default value: Int) throws -> Int {
            guard let text = operands.first else { return value }
            guard let count = Int(text), count > 0 else { throw ValidationError("'\(text)' is not a positive count") }
            operands.removeFirst()
            return count
        }
        if let entries = writeHAREntries {
            guard let file = operands.popFirst() else { throw ValidationError("usage: stubbench --write-har N FILE") }
            mode = .writeHAR(entries: entries, file: file)
        } else if profileLoad {
            let rules = try count(default: 100)
            mode = .profileLoad(rules: rules, times: 2_000_000 / rules)
        } else if profileLoadRegex {
            let rules = try count(default: 10_000)
            mode = .profileLoadRegex(rules: rules, times: max(1, 200_000 / rules))
        } else if liveJournal {
            mode = .liveJournal
        } else if adversarial {
            mode = .adversarial
        } else if loadRegex {
            mode = .loadRegex
        } else if shapes {
            mode = .shapes
        } else if profileEndToEnd {
            var floor = BenchmarkMode.Floor.none
            switch operands.first {
            case "floor": floor = .cached; operands.removeFirst()
            case "floor-nocache": floor = .uncached; operands.removeFirst()
            default: break
            }
            mode = .profileEndToEnd(floor: floor, count: try count(default: 20_000))
        }
        if let extra = operands.first { throw ValidationError("unexpected operand '\(extra)'") }
    }

    func run() throws {
        if case .writeHAR(let entries, let file) = mode {
            let bytes = try writeBenchmarkHAR(entries: entries, to: URL(fileURLWithPath: file))
            print("wrote \(entries) entries, \(bytes) bytes, to \(file)")
            return
        }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("stubbench-\(getpid())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let configuration = BenchmarkConfiguration(quick: quick, outputPath: output, work: work)
        switch mode {
        case .writeHAR: break
        case .profileLoad(let rules, let times): try ProfileLoops(configuration).load(rules: rules, times: times)
        case .profileLoadRegex(let rules, let times): try ProfileLoops(configuration).loadRegex(rules: rules, times: times)
        case .profileEndToEnd(let floor, let count): try ProfileLoops(configuration).endToEnd(floor: floor, count: count)
        case .liveJournal: try runLiveJournalBenchmarks(configuration, recorder: BenchmarkRecorder())
        case .adversarial:
            runAdversarialReaderBenchmarks()
            if try !runAdversarialBenchmarks(configuration) { throw ExitCode.failure }
        case .loadRegex:
            let target = try runRegexLoadBenchmark(configuration, recorder: BenchmarkRecorder())
            print("  [\(target.met ? "met" : "NOT met")] \(target.name): \(target.measured)")
        case .shapes:
            for target in try runShapeBenchmarks(configuration, recorder: BenchmarkRecorder()) {
                print("  [\(target.met ? "met" : "NOT met")] \(target.name): \(target.measured)")
            }
        case .full: try FullBenchmark(configuration).run()
        }
    }
}
#endif
