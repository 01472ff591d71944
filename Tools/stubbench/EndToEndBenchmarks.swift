#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// One request at a time through URLSession: StubKit over 1,000 rules against the constant URLProtocol
/// (the floor), and a real HTTP server on loopback, which is what a team would run instead.
struct EndToEndBenchmarks {
    let configuration: BenchmarkConfiguration
    let recorder: BenchmarkRecorder

    struct Results {
        var floor: Stats
        var stub: Stats
        /// The median of the paired per-round ratios stub/floor.
        var ratio: Double
        var loopback: Stats?
        /// The stubbed session, for the throughput suite.
        var stubSession: URLSession
        /// Its engine, kept with it: a stubbed session is answered only while its engine lives.
        var stubEngine: StubEngine
    }

    func run() throws -> Results {
        let quick = configuration.quick
        let engine = StubEngine()
        try engine.activate(folder: try configuration.makeBundle("e2e", rules: 1_000, plist: false))
        let stubSession = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let floorSession = URLSession.constant()
        let stubURL = URL(string: "https://api.example.com/api/v1/resource500/42")!
        let paired = PairedStats.measure("URLSession: minimal constant URLProtocol, same response (floor)", { Self.fetch(floorSession, stubURL) },
                                         "URLSession: StubURLProtocol, 1,000 rules", { Self.fetch(stubSession, stubURL) }, runs: quick ? 50 : 5_000)
        recorder.record(paired.a); recorder.record(paired.b)
        return Results(floor: paired.a, stub: paired.b, ratio: paired.ratioMedian, loopback: try loopback(), stubSession: stubSession, stubEngine: engine)
    }

    /// python3's http.server on loopback; nil, with a note, when it cannot run.
    private func loopback() throws -> Stats? {
        let serverRoot = configuration.work.appendingPathComponent("www")
        try FileManager.default.createDirectory(at: serverRoot, withIntermediateDirectories: true)
        try Data(#"{"id": 0}"#.utf8).write(to: serverRoot.appendingPathComponent("item.json"))
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let port = 20_000 + Int(getpid() % 20_000)
        server.arguments = ["python3", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", serverRoot.path]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        guard (try? server.run()) != nil else {
            recorder.note("python3 is not available; the loopback figure is missing")
            return nil
        }
        defer {
            server.terminate()
            server.waitUntilExit()
        }
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
        guard ready else {
            recorder.note("the loopback server did not start; its figure is missing")
            return nil
        }
        let s = Stats.measure("URLSession: python3 http.server on loopback", runs: configuration.quick ? 20 : 500) { Self.fetch(plain, serverURL) }
        recorder.record(s)
        return s
    }

    /// One request, waited for.
    static func fetch(_ session: URLSession, _ url: URL) {
        let done = DispatchSemaphore(value: 0)
        session.dataTask(with: url) { data, _, error in
            precondition(error == nil && data != nil, "request failed: \(String(describing: error))")
            done.signal()
        }.resume()
        done.wait()
    }
}
#endif
