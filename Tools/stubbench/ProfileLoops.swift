#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// One measure in a loop and nothing else, for running under perf or callgrind; two runs with the same
/// count can be diffed function by function (docs/benchmarks.md).
struct ProfileLoops {
    let configuration: BenchmarkConfiguration

    init(_ configuration: BenchmarkConfiguration) {
        self.configuration = configuration
    }

    /// Loads one bundle of `rules` distinct literal-path rules `times` times.
    func load(rules: Int, times: Int) throws {
        let folder = try configuration.makeBundle("profile", rules: rules, plist: false)
        for _ in 0..<times { precondition(BundleLoader().load(folder: folder).bundle.rules.count == rules) }
    }

    /// The same with legacy `matching_url` rules (the regex shape of ShapeBenchmarks.swift).
    func loadRegex(rules: Int, times: Int) throws {
        let folder = try configuration.makeBundle("profile-regex", rulesJSON: shapeRulesJSON(ruleShapes[2], count: rules))
        for _ in 0..<times { precondition(BundleLoader().load(folder: folder).bundle.rules.count == rules) }
    }

    /// Sends `count` stubbed requests through URLSession, one at a time, or through the constant
    /// URLProtocol when `floor` says so.
    func endToEnd(floor: BenchmarkMode.Floor, count: Int) throws {
        let session: URLSession
        // A stubbed session is answered only while its engine lives; the loop below outlives this scope's last use of it.
        var engine: StubEngine?
        switch floor {
        case .cached: session = .constant()
        case .uncached: session = .constant(cache: false)
        case .none:
            let stubs = StubEngine()
            try stubs.activate(folder: try configuration.makeBundle("profile-e2e", rules: 1_000, plist: false))
            session = URLSession(configuration: .stubbed(by: stubs, base: .ephemeral))
            engine = stubs
        }
        let url = URL(string: "https://api.example.com/api/v1/resource500/42")!
        for _ in 0..<count {
            let done = DispatchSemaphore(value: 0)
            session.dataTask(with: url) { _, _, _ in done.signal() }.resume()
            done.wait()
        }
        withExtendedLifetime(engine) {}
    }
}
#endif
