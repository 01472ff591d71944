#if Tools
// The adversarial shapes: inputs that a naive reader or matcher takes polynomial time or worse on,
// measured at n and 10n. Target: time grows at most 12x for 10x input (linear, with room for noise).
//
//   swift build --traits Tools -c release --product stubbench && .build/release/stubbench --adversarial
//   STUBBENCH_ONLY='(a*)*b' .build/release/stubbench --adversarial      # one shape, e.g. under callgrind
import Foundation
import StubKit

/// Runs the adversarial measures, prints a table and the ratio per shape, and returns whether every
/// shape met the target.
func runAdversarialBenchmarks(_ configuration: BenchmarkConfiguration) throws -> Bool {
    let (quick, work) = (configuration.quick, configuration.work)
    print("StubKit adversarial benchmark — \(ProcessInfo.processInfo.activeProcessorCount) cores, \(quick ? "quick" : "full") mode")
    print(String(format: "%-66@ %12@ %12@ %8@", "shape" as NSString, "n" as NSString, "10n" as NSString, "ratio" as NSString))
    var allMet = true

    func shape(_ name: String, n: Int, _ body: (Int) throws -> Void) rethrows {
        guard adversarialShapeSelected(name) else { return }
        let small = try leastCPUSeconds(runs: quick ? 3 : 7) { try body(n) }
        let large = try leastCPUSeconds(runs: quick ? 3 : 7) { try body(10 * n) }
        let ratio = large / small
        allMet = allMet && ratio <= 12
        print(String(format: "%-66@ %10.2f ms %10.2f ms %7.1fx %@", name as NSString, small * 1000, large * 1000, ratio, ratio <= 12 ? "met" : "NOT met"))
    }

    // Shadowing check: every rule under one prefix, through the whole linter (load included).
    func lintBundle(_ count: Int) throws -> URL {
        let folder = work.appendingPathComponent("adversarial-lint-\(count)")
        if FileManager.default.fileExists(atPath: folder.path) { return folder }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let rules = (0..<count).map { #"  { "method": "GET", "path": "/api/r\#($0)/{id}", "body": "\#($0)" }"# }
        try Data(("[\n" + rules.joined(separator: ",\n") + "\n]\n").utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
        return folder
    }
    for n in [1_000] {
        let small = try lintBundle(n), large = try lintBundle(10 * n)
        try shape("lint: rules under one prefix /api/r{i}/{id}", n: n) { count in
            let report = BundleLinter().lint(count == n ? small : large)
            precondition(report.ruleCount == count && report.diagnostics.isEmpty)
        }
    }

    // `**` against a long path: matching, and pattern-vs-pattern coverage.
    let deep = try PathPattern(parsing: "/**/a/**/a/**/a/**/a/**/a/**/b")
    shape("path: /**/a/**/a/**/a/**/a/**/a/**/b vs /a/…/a (n segments)", n: 2_000) { count in
        let segments = Array(repeating: Substring("a"), count: count)
        precondition(deep.match(segments) == nil)
    }
    shape("path: covers(/**/a/… 6 **, /a/…/a of n literals)", n: 2_000) { count in
        precondition(!deep.covers(PathPattern(components: Array(repeating: .literal("a"), count: count))))
    }
    let engine = StubEngine()
    engine.activate(StubBundle(template: "deep", folder: work, rulesFile: nil, rules: [StubRule(source: RuleSource(file: "deep.json", position: nil, index: 0, keyPath: "[0]"),
                                                                  request: RequestConditions(path: deep), response: StubResponse())]))
    shape("path: rule index lookup, same pattern, n-segment path (miss)", n: 2_000) { count in
        let url = URL(string: "https://h" + String(repeating: "/a", count: count))!
        precondition(engine.match(StubRequest(url: url)) == nil)
    }

    // Regular expressions that hang or give up on a backtracking engine.
    for pattern in ["(a|aa)+$", "(a+)+$", "(a*)*b", "(.*a){12}x"] {
        let regex = try RegexPattern(pattern)
        shape("regex: /\(pattern)/ vs https://h/ + n a's + '!'", n: 100_000) { count in
            precondition(regex.evaluate("https://h/" + String(repeating: "a", count: count) + "!") == .noMatch)
        }
    }
    print("\nTarget: at most 12x time for 10x input on every shape: \(allMet ? "met" : "NOT met")")
    return allMet
}

/// The least CPU time of the process (all threads: the linter checks folders in parallel) over `runs`
/// calls, after one warm-up call.
///
/// CPU time, not wall time: on a loaded machine a run of a few milliseconds often finishes inside one
/// scheduler slice while a run ten times longer is preempted several times, which inflated wall-time
/// ratios of linear shapes to 20-30x (their instruction counts under callgrind grew 10x). The least of
/// several runs, not the median: other processes only ever add (cache and memory-bus contention).
func leastCPUSeconds(runs: Int, _ body: () throws -> Void) rethrows -> Double {
    func processCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
    try body()
    var samples: [Double] = []
    for _ in 0..<runs {
        let start = processCPUSeconds()
        try body()
        samples.append(processCPUSeconds() - start)
    }
    return samples.min()!
}
#endif
