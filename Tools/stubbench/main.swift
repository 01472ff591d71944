// stubbench: measures StubKit beside the floor and the alternatives, and writes a table and JSON.
//
//   swift run -c release stubbench [--quick] [--adversarial] [--live-journal] [--shapes] [--load-regex] [--output FILE]
//   swift run -c release stubbench --write-har N FILE   (the input of Tools/scripts/bench-import)
//
// Every figure is a median and p99 over many runs. Targets are ratios measured in the same run, since
// absolute times move with the machine. Nothing here is asserted: the report says what was met.
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

// MARK: Options

var quick = false
var outputPath = "docs/benchmarks.json"
var profileLoad: (rules: Int, times: Int)? = nil
var profileLoadRegex: (rules: Int, times: Int)? = nil
var profileE2E = false
var profileE2EFloor = false
var profileE2EFloorNoCache = false
var profileE2ECount = 20_000
var adversarial = false, shapesOnly = false, regexLoadOnly = false
var liveJournal = false
var args = Array(CommandLine.arguments.dropFirst())
while let arg = args.first {
    args.removeFirst()
    switch arg {
    case "--quick": quick = true
    case "--adversarial":
        // The adversarial input shapes at n and 10n: the readers (AdversarialInputs.swift), then
        // matching and linting (AdversarialBenchmarks.swift).
        adversarial = true
    case "--live-journal":
        // Only the wake-up latency of a test runner's wait on the live journal (LiveJournalBenchmarks.swift).
        liveJournal = true
    case "--shapes": shapesOnly = true // the rule shapes of real bundles alone (ShapeBenchmarks.swift)
    case "--load-regex": regexLoadOnly = true // of those, loading 10,000 regex rules against Foundation's decode
    case "--output": outputPath = args.isEmpty ? outputPath : args.removeFirst()
    case "--write-har":
        // A generated HAR of N entries for timing `stubkit import` (HARBenchmarkInput.swift).
        guard args.count >= 2, let count = Int(args[0]) else {
            FileHandle.standardError.write(Data("usage: stubbench --write-har N FILE\n".utf8))
            exit(2)
        }
        let bytes = try writeBenchmarkHAR(entries: count, to: URL(fileURLWithPath: args[1]))
        print("wrote \(count) entries, \(bytes) bytes, to \(args[1])")
        exit(0)
    case "--profile-e2e":
        // Sends stubbed requests through URLSession in a loop and exits: for running under perf or
        // callgrind. `--profile-e2e floor N` sends N through a minimal constant URLProtocol instead, so
        // two runs with the same N can be diffed function by function (docs/benchmarks.md).
        if args.first == "floor" { profileE2EFloor = true; args.removeFirst() }
        if args.first == "floor-nocache" { profileE2EFloor = true; profileE2EFloorNoCache = true; args.removeFirst() }
        if let count = Int(args.first ?? "") { profileE2ECount = count; args.removeFirst() }
        profileE2E = true
    case "--profile-load":
        // Loads one bundle of N rules many times and exits: for running under perf or callgrind.
        let rules = Int(args.first ?? "") ?? 100
        if !args.isEmpty { args.removeFirst() }
        profileLoad = (rules, 2_000_000 / max(rules, 1))
    case "--profile-load-regex":
        // The same with legacy `matching_url` rules (the regex shape of ShapeBenchmarks.swift).
        let rules = Int(args.first ?? "") ?? 10_000
        if !args.isEmpty { args.removeFirst() }
        profileLoadRegex = (rules, max(1, 200_000 / max(rules, 1)))
    default:
        FileHandle.standardError.write(Data("usage: stubbench [--quick] [--adversarial] [--live-journal] [--shapes] [--load-regex] [--output FILE]\n".utf8))
        exit(2)
    }
}

// MARK: Measuring

struct Stats: Codable {
    var name: String
    var medianMicros: Double
    var p99Micros: Double
    var runs: Int
}

func measure(_ name: String, runs: Int, inner: Int = 1, _ body: () -> Void) -> Stats {
    for _ in 0..<min(3, runs) { body() }
    var samples: [Double] = []
    samples.reserveCapacity(runs)
    for _ in 0..<runs {
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<inner { body() }
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000 / Double(inner))
    }
    samples.sort()
    let p99 = samples[min(samples.count - 1, Int(Double(samples.count) * 0.99))]
    return Stats(name: name, medianMicros: samples[samples.count / 2], p99Micros: p99, runs: runs)
}

nonisolated(unsafe) var results: [Stats] = []

/// The median of the per-round ratios B/A of the last interleaved measurement: a paired comparison,
/// steadier than the ratio of two medians when the machine's speed drifts.
nonisolated(unsafe) var pairedRatioMedian = 0.0

func measureInterleaved(_ nameA: String, _ a: () -> Void, _ nameB: String, _ b: () -> Void, runs: Int) -> (Stats, Stats) {
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
    pairedRatioMedian = ratios[ratios.count / 2]
    func stats(_ name: String, _ samples: [Double]) -> Stats {
        let sorted = samples.sorted()
        return Stats(name: name, medianMicros: sorted[sorted.count / 2], p99Micros: sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))], runs: runs)
    }
    return (stats(nameA, samplesA), stats(nameB, samplesB))
}
var notes: [String] = []
@MainActor func record(_ s: Stats) {
    results.append(s)
    print(String(format: "%-62@ %12.2f µs %12.2f µs", s.name as NSString, s.medianMicros, s.p99Micros))
}

let work = FileManager.default.temporaryDirectory.appendingPathComponent("stubbench-\(getpid())")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

func rulesJSON(_ count: Int) -> String {
    var lines: [String] = []
    for i in 0..<count {
        lines.append(#"  { "name": "rule \#(i)", "method": "GET", "path": "/api/v1/resource\#(i)/{id}", "status": 200, "body": "{\"id\": \#(i)}", "headers": { "X-Rule": "\#(i)" } }"#)
    }
    return "[\n" + lines.joined(separator: ",\n") + "\n]\n"
}

func makeBundle(_ name: String, rules count: Int, plist: Bool) throws -> URL {
    let folder = work.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let json = rulesJSON(count)
    if plist {
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
        try data.write(to: folder.appendingPathComponent("stubsRules.plist"))
    } else {
        try Data(json.utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
    }
    return folder
}

if let profileLoad {
    let folder = try makeBundle("profile", rules: profileLoad.rules, plist: false)
    for _ in 0..<profileLoad.times { precondition(BundleLoader().load(folder: folder).bundle.rules.count == profileLoad.rules) }
    exit(0)
}

if let profileLoadRegex {
    let folder = work.appendingPathComponent("profile-regex")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(shapeRulesJSON(ruleShapes[2], count: profileLoadRegex.rules).utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
    for _ in 0..<profileLoadRegex.times { precondition(BundleLoader().load(folder: folder).bundle.rules.count == profileLoadRegex.rules) }
    exit(0)
}

if liveJournal {
    try runLiveJournalBenchmarks(quick: quick, work: work)
    exit(0)
}
if adversarial {
    runAdversarialReaderBenchmarks()
    exit(try runAdversarialBenchmarks(quick: quick, work: work) ? 0 : 1)
}

if regexLoadOnly {
    let (name, met, detail) = try runRegexLoadBenchmark(quick: quick, work: work)
    print("  [\(met ? "met" : "NOT met")] \(name): \(detail)")
    exit(0)
}

if shapesOnly {
    for (name, met, detail) in try runShapeBenchmarks(quick: quick, work: work) { print("  [\(met ? "met" : "NOT met")] \(name): \(detail)") }
    exit(0)
}

if profileE2E {
    let session: URLSession
    if profileE2EFloor {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [ConstantProtocol.self]
        if profileE2EFloorNoCache { configuration.urlCache = nil }
        session = URLSession(configuration: configuration)
    } else {
        let folder = try makeBundle("profile-e2e", rules: 1_000, plist: false)
        let engine = StubEngine()
        try engine.activate(folder: folder)
        session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
    }
    let url = URL(string: "https://api.example.com/api/v1/resource500/42")!
    for _ in 0..<profileE2ECount {
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: url) { _, _, _ in done.signal() }.resume()
        done.wait()
    }
    exit(0)
}

print("StubKit benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(quick ? "quick" : "full") mode")
print(String(format: "%-62@ %15@ %15@", "measure" as NSString, "median" as NSString, "p99" as NSString))

// MARK: Loading

let loadSizes = quick ? [100, 1_000] : [100, 1_000, 10_000]
var loadRatios: [String: Double] = [:]
for size in loadSizes {
    for plist in [false, true] {
        let folder = try makeBundle("load\(size)\(plist ? "p" : "j")", rules: size, plist: plist)
        let file = folder.appendingPathComponent(plist ? "stubsRules.plist" : "stubsRules.json")
        let runs = quick ? 5 : (size >= 10_000 ? 30 : 100)
        let kind = plist ? "plist" : "JSON"
        let floor = measure("load \(size) rules (\(kind)): Foundation decode only (floor)", runs: runs) {
            let data = try! Data(contentsOf: file)
            if plist { _ = try! PropertyListSerialization.propertyList(from: data, format: nil) }
            else { _ = try! JSONSerialization.jsonObject(with: data) }
        }
        let ours = measure("load \(size) rules (\(kind)): StubKit load + validate", runs: runs) {
            let result = BundleLoader().load(folder: folder)
            precondition(result.bundle.rules.count == size)
        }
        record(floor); record(ours)
        loadRatios["\(kind) \(size)"] = ours.medianMicros / floor.medianMicros
    }
}

// MARK: Matching

let matchSizes = [10, 1_000, 10_000]
var matchMedians: [String: Double] = [:]
let inner = quick ? 100 : 1_000
for size in matchSizes {
    let folder = try makeBundle("match\(size)", rules: size, plist: false)
    let engine = StubEngine()
    try engine.activate(folder: folder)
    let first = StubRequest(url: URL(string: "https://api.example.com/api/v1/resource0/42")!)
    let last = StubRequest(url: URL(string: "https://api.example.com/api/v1/resource\(size - 1)/42")!)
    let miss = StubRequest(url: URL(string: "https://api.example.com/api/v2/nothing/42")!)
    for (label, request, expectHit) in [("hit first rule", first, true), ("hit last rule", last, true), ("miss", miss, false)] {
        let s = measure("match among \(size) rules: \(label)", runs: quick ? 20 : 200, inner: inner) {
            precondition((engine.match(request) != nil) == expectHit)
        }
        record(s)
        matchMedians["\(label) \(size)"] = s.medianMicros
    }
}
// The floor for matching: one Dictionary lookup keyed by the request's path string.
var table: [String: Int] = [:]
for i in 0..<10_000 { table["/api/v1/resource\(i)/42"] = i }
let probeURL = URL(string: "https://api.example.com/api/v1/resource9999/42")!
let dictionaryLookup = measure("Dictionary lookup by path string (10,000 keys)", runs: quick ? 20 : 200, inner: inner) {
    precondition(table[probeURL.path] != nil)
}
record(dictionaryLookup)

let shapeTargets = try runShapeBenchmarks(quick: quick, work: work)

// MARK: End to end through URLSession

final class ConstantProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        // The same response the stub rule gives (body and headers), so only the lookup differs.
        let body = Data(#"{"id": 500}"#.utf8)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Length": String(body.count), "X-Rule": "500"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

func fetch(_ session: URLSession, _ url: URL) {
    let done = DispatchSemaphore(value: 0)
    session.dataTask(with: url) { data, _, error in
        precondition(error == nil && data != nil, "request failed: \(String(describing: error))")
        done.signal()
    }.resume()
    done.wait()
}

let e2eFolder = try makeBundle("e2e", rules: 1_000, plist: false)
let e2eEngine = StubEngine()
try e2eEngine.activate(folder: e2eFolder)
let stubSession = URLSession(configuration: .stubbed(by: e2eEngine, base: .ephemeral))
let floorConfiguration = URLSessionConfiguration.ephemeral
floorConfiguration.protocolClasses = [ConstantProtocol.self]
let floorSession = URLSession(configuration: floorConfiguration)
let e2eRuns = quick ? 50 : 5_000
let stubURL = URL(string: "https://api.example.com/api/v1/resource500/42")!
// Interleaved, so drift in the machine's speed (other work, frequency changes) hits both alike.
let (floorE2E, stubE2E) = measureInterleaved("URLSession: minimal constant URLProtocol, same response (floor)", { fetch(floorSession, stubURL) },
                                             "URLSession: StubURLProtocol, 1,000 rules", { fetch(stubSession, stubURL) }, runs: e2eRuns)
let e2eRatio = pairedRatioMedian
record(floorE2E); record(stubE2E)

// A real HTTP server on loopback: what a team would run instead of an in-process stub.
var loopbackE2E: Stats? = nil
let serverRoot = work.appendingPathComponent("www")
try FileManager.default.createDirectory(at: serverRoot, withIntermediateDirectories: true)
try Data(#"{"id": 0}"#.utf8).write(to: serverRoot.appendingPathComponent("item.json"))
let server = Process()
server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
let port = 20_000 + Int(getpid() % 20_000)
server.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", serverRoot.path]
server.standardOutput = FileHandle.nullDevice
server.standardError = FileHandle.nullDevice
if (try? server.run()) != nil {
    let plain = URLSession(configuration: .ephemeral)
    let serverURL = URL(string: "http://127.0.0.1:\(port)/item.json")!
    // Wait until the server answers (a benchmark may poll; tests never do).
    var ready = false
    for _ in 0..<100 where !ready {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var ok = false
        plain.dataTask(with: serverURL) { _, response, _ in ok = (response as? HTTPURLResponse)?.statusCode == 200; done.signal() }.resume()
        done.wait()
        ready = ok
        if !ready { usleep(50_000) }
    }
    if ready {
        let s = measure("URLSession: python3 http.server on loopback", runs: quick ? 20 : 500) { fetch(plain, serverURL) }
        record(s)
        loopbackE2E = s
    } else {
        notes.append("the loopback server did not start; its figure is missing")
    }
    server.terminate()
    server.waitUntilExit()
} else {
    notes.append("python3 is not available; the loopback figure is missing")
}

// MARK: Throughput

let inFlight = quick ? 100 : 1_000
let throughputStart = DispatchTime.now().uptimeNanoseconds
let group = DispatchGroup()
for i in 0..<inFlight {
    group.enter()
    stubSession.dataTask(with: URL(string: "https://api.example.com/api/v1/resource\(i % 1_000)/\(i)")!) { data, _, _ in
        precondition(data != nil)
        group.leave()
    }.resume()
}
group.wait()
let throughputSeconds = Double(DispatchTime.now().uptimeNanoseconds - throughputStart) / 1e9
let requestsPerSecond = Double(inFlight) / throughputSeconds
print(String(format: "%-62@ %12.0f req/s (%d in flight, %.3f s)", "throughput, one session" as NSString, requestsPerSecond, inFlight, throughputSeconds))

// MARK: Memory while serving a large file

func residentKB(_ field: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
    }
    return -1
}

final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var bytes = 0
    let done = DispatchSemaphore(value: 0)
    var checksum: UInt8 = 0
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Touch every page, as an app that writes the data somewhere would.
        data.withUnsafeBytes { buffer in
            var i = 0
            while i < buffer.count { checksum &+= buffer[i]; i += 4096 }
        }
        bytes += data.count
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { done.signal() }
}

let bigSize = (quick ? 20 : 200) << 20
let bigFolder = work.appendingPathComponent("big")
try FileManager.default.createDirectory(at: bigFolder, withIntermediateDirectories: true)
try Data(#"[ { "path": "/big", "response": "big.bin" } ]"#.utf8).write(to: bigFolder.appendingPathComponent("stubsRules.json"))
_ = FileManager.default.createFile(atPath: bigFolder.appendingPathComponent("big.bin").path, contents: nil)
let handle = try FileHandle(forWritingTo: bigFolder.appendingPathComponent("big.bin"))
let block = Data(repeating: 0x61, count: 1 << 20)
for _ in 0..<(bigSize >> 20) { handle.write(block) }
try handle.close()
let bigEngine = StubEngine()
try bigEngine.activate(folder: bigFolder)
let delegate = CountingDelegate()
let bigSession = URLSession(configuration: .stubbed(by: bigEngine, base: .ephemeral), delegate: delegate, delegateQueue: nil)
// Reset the peak-RSS mark (Linux: writing 5 to clear_refs), so the peak is this transfer's alone.
try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
let idleRSS = residentKB("VmRSS"), idleAnon = residentKB("RssAnon")
bigSession.dataTask(with: URL(string: "https://api.example.com/big")!).resume()
delegate.done.wait()
let peakRSS = residentKB("VmHWM"), afterAnon = residentKB("RssAnon")
precondition(delegate.bytes == bigSize, "received \(delegate.bytes) of \(bigSize) bytes")
let memoryAboveIdleMB = Double(peakRSS - idleRSS) / 1024
let anonAboveIdleMB = Double(afterAnon - idleAnon) / 1024
print(String(format: "%-62@ %9.1f MB peak RSS above idle (%.1f MB anonymous after)", "serving a \(bigSize >> 20) MB response file" as NSString, memoryAboveIdleMB, anonAboveIdleMB))

// MARK: Targets

let match10 = matchMedians["hit last rule 10"]!, match10k = matchMedians["hit last rule 10000"]!
let missRatio = matchMedians["miss 10000"]! / matchMedians["miss 10"]!
var targets: [(String, Bool, String)] = []
targets.append(("matching with 10,000 rules within 2x of 10 rules", match10k <= 2 * match10 && missRatio <= 2,
                String(format: "hit-last %.2f vs %.2f µs (%.2fx); miss %.2fx", match10k, match10, match10k / match10, missRatio)))
targets += shapeTargets
targets.append(("matching within 10x a Dictionary lookup by path", match10k <= 10 * dictionaryLookup.medianMicros,
                String(format: "%.2f µs vs %.2f µs (%.1fx)", match10k, dictionaryLookup.medianMicros, match10k / dictionaryLookup.medianMicros)))
let worstLoad = loadRatios.max { $0.value < $1.value }!
targets.append(("loading within 1.5x the Foundation decode", worstLoad.value <= 1.5,
                loadRatios.sorted { $0.key < $1.key }.map { String(format: "%@ %.2fx", $0.key, $0.value) }.joined(separator: ", ")))
targets.append(("end-to-end within 1.2x the minimal URLProtocol", e2eRatio <= 1.2,
                String(format: "%.1f µs vs %.1f µs; median of paired per-round ratios %.2fx (ratio of medians %.2fx)%@", stubE2E.medianMicros, floorE2E.medianMicros, e2eRatio, stubE2E.medianMicros / floorE2E.medianMicros,
                       loopbackE2E.map { String(format: "; loopback server %.1f µs", $0.medianMicros) } ?? "")))
targets.append(("memory serving the large file within 20 MB of idle", memoryAboveIdleMB <= 20,
                String(format: "%.1f MB peak RSS above idle for %d MB", memoryAboveIdleMB, bigSize >> 20)))

print("\nTargets (\(quick ? "quick mode: indicative only" : "full mode")):")
for (name, met, detail) in targets { print("  [\(met ? "met" : "NOT met")] \(name): \(detail)") }
for note in notes { print("  note: \(note)") }

struct Report: Codable {
    var cores: Int
    var mode: String
    var results: [Stats]
    var throughputRequestsPerSecond: Double
    var inFlight: Int
    var largeFileMB: Int
    var memoryAboveIdleMB: Double
    var targets: [[String: String]]
    var notes: [String]
}
let report = Report(cores: ProcessInfo.processInfo.activeProcessorCount, mode: quick ? "quick" : "full", results: results,
                    throughputRequestsPerSecond: requestsPerSecond, inFlight: inFlight, largeFileMB: bigSize >> 20,
                    memoryAboveIdleMB: memoryAboveIdleMB,
                    targets: targets.map { ["target": $0.0, "met": $0.1 ? "yes" : "no", "measured": $0.2] }, notes: notes)
let encoder = JSONEncoder()
encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
let outputURL = URL(fileURLWithPath: outputPath)
try? FileManager.default.createDirectory(at: outputURL.deletingLastPathComponent(), withIntermediateDirectories: true)
try encoder.encode(report).write(to: outputURL)
print("\nwrote \(outputPath)")
