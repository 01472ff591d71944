#if Tools
// The rule shapes, at 10, 1,000 and 10,000 rules: what real bundles hold besides distinct
// literal paths. Each bundle is a rules file loaded as an app would load it; each figure is
// `StubEngine.match` for requests that hit the last rules of the file (the worst place for a scan).
//
//   swift build --traits Tools -c release --product stubbench && .build/release/stubbench --shapes
import Foundation
import StubKit

/// One rule shape: the rule written for index `i`, and a request that only rule `i` answers.
struct RuleShape: Sendable {
    let name: String
    let rule: @Sendable (Int) -> String
    let request: @Sendable (Int) -> StubRequest

    /// Requests for the last `count` rules of a bundle of `size` rules.
    func lastRequests(_ size: Int, count: Int) -> [StubRequest] {
        (max(0, size - count)..<size).map(request)
    }
}

private let host = "https://api.example.com"

/// Legacy `matching_url` expressions of the kinds real bundles hold, in turn: anchored, unanchored
/// with unescaped dots, a leading `.*`, and an escaped `?`.
private func legacyRegex(_ i: Int) -> (pattern: String, url: String) {
    switch i % 4 {
    case 0: return (#"^https://api\\.example\\.com/v1/items\#(i)/\\d+$"#, "\(host)/v1/items\(i)/42")
    case 1: return ("api.example.com/v1/sign_up\(i)/", "\(host)/v1/sign_up\(i)/start")
    case 2: return (".*/recommendations\(i)$", "\(host)/v2/home/recommendations\(i)")
    default: return (#"/v1/search\#(i)\\?page=2"#, "\(host)/v1/search\(i)?page=2&sort=new")
    }
}

let ruleShapes: [RuleShape] = [
    RuleShape(name: "distinct literal paths /api/v1/resourceN/{id}",
              rule: { #"{ "path": "/api/v1/resource\#($0)/{id}", "body": "\#($0)" }"# },
              request: { StubRequest(url: URL(string: "\(host)/api/v1/resource\($0)/42")!) }),
    RuleShape(name: "one path /users/{id}, told apart by a query item",
              rule: { #"{ "path": "/users/{id}", "query": { "variant": "v\#($0)" }, "body": "\#($0)" }"# },
              request: { StubRequest(url: URL(string: "\(host)/users/7?lang=en&variant=v\($0)")!) }),
    RuleShape(name: "legacy matching_url regexes (4 kinds in turn)",
              rule: { #"{ "matching_url": "\#(legacyRegex($0).pattern)", "body": "\#($0)" }"# },
              request: { StubRequest(url: URL(string: legacyRegex($0).url)!) }),
    RuleShape(name: "one GraphQL path, operations told apart by body field",
              rule: { #"{ "method": "POST", "path": "/graphql", "requestBody": { "containsJSON": { "operationName": "Op\#($0)" } }, "body": "\#($0)" }"# },
              request: { StubRequest(method: "POST", url: URL(string: "\(host)/graphql")!, headers: ["Content-Type": "application/json"],
                                     body: Data(#"{"operationName":"Op\#($0)","variables":{"id":7,"first":20},"query":"query Op\#($0) { node(id: 7) { id } }"}"#.utf8)) }),
]

/// One GraphQL path, operations told apart by the `graphql` condition (indexed by the operation's
/// name, whether the request sends `operationName` or only its document); every third rule also
/// requires variables. Even requests send `operationName`, odd ones only the document.
let graphQLShape = RuleShape(
    name: "one GraphQL path, operations told apart by graphql.operationName",
    rule: { i in
        let variables = i % 3 == 0 ? #", "variables": { "id": \#(i) }"# : ""
        return #"{ "method": "POST", "path": "/graphql", "graphql": { "operationName": "Op\#(i)"\#(variables) }, "body": "\#(i)" }"#
    },
    request: { i in
        let name = i % 2 == 0 ? #""operationName":"Op\#(i)","# : ""
        return StubRequest(method: "POST", url: URL(string: "\(host)/graphql")!, headers: ["Content-Type": "application/json"],
                           body: Data(#"{\#(name)"variables":{"id":\#(i),"first":20},"query":"query Op\#(i)($id: ID!, $first: Int) { node(id: $id) { id } }"}"#.utf8))
    })

/// The shapes above mixed in one bundle, rule `i` taking shape `i % 4`, plus a header-discriminated
/// variant: a bundle as a big app grows it.
let mixedShape = RuleShape(
    name: "realistic mix (all four shapes in one bundle)",
    rule: { i in ruleShapes[i % ruleShapes.count].rule(i) },
    request: { i in ruleShapes[i % ruleShapes.count].request(i) })

func shapeRulesJSON(_ shape: RuleShape, count: Int) -> String {
    "[\n" + (0..<count).map { "  " + shape.rule($0) }.joined(separator: ",\n") + "\n]\n"
}

/// Measures every shape at 10, 1,000 and 10,000 rules, the regex hit against the literal hit at 10
/// rules, and loading 10,000 regex rules against Foundation's decode. Returns the targets.
func runShapeBenchmarks(_ configuration: BenchmarkConfiguration, recorder: BenchmarkRecorder) throws -> [BenchmarkTarget] {
    let quick = configuration.quick
    let sizes = [10, 1_000, 10_000]
    var medians: [String: [Int: Double]] = [:]
    var targets: [BenchmarkTarget] = []
    var smallest: [String: (engine: StubEngine, requests: [StubRequest])] = [:]
    var largest: [String: (engine: StubEngine, requests: [StubRequest])] = [:]
    for shape in ruleShapes + [graphQLShape, mixedShape] {
        for size in sizes {
            let folder = try configuration.makeBundle("shape-\(medians.count)-\(size)", rulesJSON: shapeRulesJSON(shape, count: size))
            let engine = StubEngine()
            try engine.activate(folder: folder)
            let requests = shape.lastRequests(size, count: 4)
            if size == sizes[0] { smallest[shape.name] = (engine, requests) }
            if size == sizes.last! { largest[shape.name] = (engine, requests) }
            // Every request is answered by its own rule, checked once before timing.
            for (offset, request) in requests.enumerated() {
                let answer = engine.match(request)?.rule.source.index, expected = size - requests.count + offset
                precondition(answer == expected, "\(shape.name) at \(size): \(request.url) answered by rule \(answer ?? -1), expected \(expected)")
            }
            let s = Stats.measure("match, \(shape.name): \(size) rules", runs: quick ? 20 : 200, inner: quick ? 25 : 250) {
                for request in requests { precondition(engine.match(request) != nil) }
            }
            let perRequest = s.divided(by: Double(requests.count))
            recorder.record(perRequest)
            medians[shape.name, default: [:]][size] = perRequest.medianMicros
        }
        // The target is judged on 10 against 10,000 rules measured interleaved, round by round: the
        // per-size medians above come from different moments, and a shared machine drifts between them.
        let (small, large) = (smallest[shape.name]!, largest[shape.name]!)
        let inner = quick ? 25 : 250
        let paired = PairedStats.measure("10", { for _ in 0..<inner { for r in small.requests { precondition(small.engine.match(r) != nil) } } },
                               "10000", { for _ in 0..<inner { for r in large.requests { precondition(large.engine.match(r) != nil) } } },
                               runs: quick ? 20 : 200)
        let row = medians[shape.name]!
        targets.append(BenchmarkTarget(name: "\(shape.name): 10,000 rules within 2x of 10", met: paired.ratioMedian <= 2,
                                       measured: String(format: "median of paired per-round ratios %.2fx (medians measured apart: %.2f µs at 10, %.2f at 1,000, %.2f at 10,000)",
                                                        paired.ratioMedian, row[10]!, row[1_000]!, row[10_000]!)))
    }
    // Regex hits against literal hits at 10 rules, interleaved round by round (the machine's speed
    // drifts between two separate measures more than the difference being judged).
    let literal = smallest[ruleShapes[0].name]!, regex = smallest[ruleShapes[2].name]!
    let inner = quick ? 25 : 250
    let paired = PairedStats.measure(
        "match, literal-path hit, 10 rules (interleaved)", { for _ in 0..<inner { for r in literal.requests { precondition(literal.engine.match(r) != nil) } } },
        "match, legacy regex hit, 10 rules (interleaved)", { for _ in 0..<inner { for r in regex.requests { precondition(regex.engine.match(r) != nil) } } },
        runs: quick ? 20 : 200)
    let perRequest = Double(inner * literal.requests.count)
    let (literalStats, regexStats) = (paired.a.divided(by: perRequest), paired.b.divided(by: perRequest))
    recorder.record(literalStats)
    recorder.record(regexStats)
    targets.append(BenchmarkTarget(name: "a legacy regex hit within 3x a literal-path hit at 10 rules", met: paired.ratioMedian <= 3,
                                   measured: String(format: "%.2f µs vs %.2f µs; median of paired per-round ratios %.2fx", regexStats.medianMicros,
                                                    literalStats.medianMicros, paired.ratioMedian)))

    targets.append(try runRegexLoadBenchmark(configuration, recorder: recorder))
    return targets
}

/// Loading 10,000 legacy regex rules against Foundation's decode of the same file: the analysis must
/// not make loading the bottleneck. `stubbench --load-regex` runs it alone.
///
/// The two are interleaved, one of each per round, and the target is judged on the median of the
/// per-round ratios of the thread's CPU time: a load takes about 100 ms, long enough to be preempted
/// on a shared machine, which moves wall-time ratios by more than the margin being judged (the
/// wall-time ratio is printed beside it).
func runRegexLoadBenchmark(_ configuration: BenchmarkConfiguration, recorder: BenchmarkRecorder) throws -> BenchmarkTarget {
    let regexFolder = try configuration.makeBundle("shape-load-regex", rulesJSON: shapeRulesJSON(ruleShapes[2], count: 10_000))
    let regexFile = regexFolder.appendingPathComponent("stubsRules.json")
    func threadCPUMicros() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e6 + Double(time.tv_nsec) / 1e3
    }
    var floorCPU: [Double] = [], oursCPU: [Double] = []
    let floorBody = { _ = try! JSONSerialization.jsonObject(with: try! Data(contentsOf: regexFile)) }
    let oursBody = { precondition(BundleLoader().load(folder: regexFolder).bundle.rules.count == 10_000) }
    let paired = PairedStats.measure(
        "load 10000 regex rules (JSON): Foundation decode only (floor)", {
            let start = threadCPUMicros()
            floorBody()
            floorCPU.append(threadCPUMicros() - start)
        },
        "load 10000 regex rules (JSON): StubKit load + validate + analyse", {
            let start = threadCPUMicros()
            oursBody()
            oursCPU.append(threadCPUMicros() - start)
        }, runs: configuration.quick ? 5 : 30)
    let (floor, ours, wallRatio) = (paired.a, paired.b, paired.ratioMedian)
    // The warm-up rounds of PairedStats.measure are in the CPU samples too: drop them.
    let cpuRatios = zip(floorCPU.suffix(from: 3), oursCPU.suffix(from: 3)).map { $1 / $0 }.sorted()
    let cpuRatio = cpuRatios[cpuRatios.count / 2]
    let median = { (values: [Double]) in values.sorted()[values.count / 2] }
    recorder.record(floor); recorder.record(ours)
    return BenchmarkTarget(name: "loading 10,000 regex rules within 1.5x the Foundation decode", met: cpuRatio <= 1.5,
                           measured: String(format: "CPU time %.1f ms vs %.1f ms, median of paired per-round ratios %.2fx (wall time %.1f ms vs %.1f ms, paired %.2fx)",
                                            median(Array(oursCPU.suffix(from: 3))) / 1000, median(Array(floorCPU.suffix(from: 3))) / 1000, cpuRatio,
                                            ours.medianMicros / 1000, floor.medianMicros / 1000, wallRatio))
}
#endif
