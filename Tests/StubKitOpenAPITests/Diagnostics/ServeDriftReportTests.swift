#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKitTestSupport
import Testing

/// `stubkit serve --record … --openapi SPEC` recording a loopback "real backend": at the end of the run
/// it reports on stderr each recorded response that does not fit the spec, and `stublint lint --openapi`
/// of the bundle it wrote says the same.
struct ServeDriftReportTests {
    /// The takeaway spec with a relative server (`/v1`), so the loopback backend's host is one of its servers.
    static func spec(in folder: TemporaryFolder) throws -> String {
        let text = try String(contentsOf: PackagePaths.fixtures.appendingPathComponent("openapi/takeaway.yaml"), encoding: .utf8)
        let relative = text.replacingOccurrences(of: "- url: https://api.takeaway.example/v1", with: "- url: /v1")
        #expect(relative != text)
        return try folder.file("spec/takeaway.yaml", data: Data(relative.utf8)).path
    }

    /// A backend whose list of restaurants gives `deliveryMinutes` as text when `drifted`.
    static func backend(drifted: Bool) throws -> LoopbackServer {
        try LoopbackServer { request in
            let json = ["Content-Type": "application/json"]
            let path = request.line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            switch path {
            case "/v1/restaurants":
                let minutes = drifted ? #""30 min""# : "30"
                return (200, json, Data(#"{"restaurants":[{"id":1,"name":"Pizza Roma","deliveryMinutes":\#(minutes)}]}"#.utf8))
            case "/v1/restaurants/7":
                return (200, json, Data(#"{"id":7,"name":"Sushi Go","deliveryMinutes":25}"#.utf8))
            default:
                return (404, ["Content-Type": "text/plain"], Data("no such endpoint".utf8))
            }
        }
    }

    /// Records both endpoints through `stubkit serve`, stops it, and returns what it printed and the bundle.
    static func record(drifted: Bool, in folder: TemporaryFolder, spec: String) async throws -> (exit: ServerProcess.Exit, bundle: URL) {
        let backend = try backend(drifted: drifted)
        defer { backend.stop() }
        let upstream = "127.0.0.1:\(backend.port)"
        let bundles = folder.url.appendingPathComponent("bundles")
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        let server = try ServerProcess([bundles.path, "--record", "rec", "--upstream-scheme", "http", "--extra-host", upstream, "--openapi", spec])
        let session = URLSession(configuration: .ephemeral)
        for path in ["/v1/restaurants", "/v1/restaurants/7"] {
            let answer = await session.result("GET", "\(server.baseURL)/\(upstream)\(path)")
            #expect(answer.status == 200, "\(path): \(answer.text ?? "\(String(describing: answer.error))")")
        }
        return (server.terminate(SIGTERM), bundles.appendingPathComponent("rec"))
    }

    @Test("a drifted backend: the end-of-run report on stderr, and stublint lint --openapi of the bundle, give SK217 with the pointer")
    func drifted() async throws {
        let folder = try TemporaryFolder()
        let spec = try Self.spec(in: folder)
        let (exit, bundle) = try await Self.record(drifted: true, in: folder, spec: spec)
        #expect(exit.exited && exit.status == 0, "\(exit.stderr)")
        let finding = #/rec/[^ ]+\.json:\d+:\d+: error: the real backend's recorded answer does not fit the spec: /restaurants/0/deliveryMinutes: expected integer, got string .*; the backend changed, or the spec is out of date \[SK217\]/#
        #expect(exit.stderr.contains(finding), "\(exit.stderr)")
        #expect(exit.stderr.contains("\(spec):17:17: note: paths./restaurants.get.responses.200.content.application/json.schema"), "\(exit.stderr)")
        #expect(exit.stderr.contains("1 recorded response does not fit \(spec): the real backend changed, or the spec is out of date"), "\(exit.stderr)")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", bundle.path, "--openapi", spec, "--absolute-paths"])
        #expect(lint.status == 1, "\(lint.stdout)\(lint.stderr)")
        #expect(lint.stdout.contains(finding), "\(lint.stdout)")
        #expect(lint.stdout.components(separatedBy: "[SK217]").count == 2, "one finding, for /v1/restaurants only:\n\(lint.stdout)")
    }

    @Test("--validate responses while forwarding: a real backend's answer that does not fit is the backend's finding, journalled and printed")
    func passThroughChecked() async throws {
        let folder = try TemporaryFolder()
        let spec = try Self.spec(in: folder)
        let backend = try Self.backend(drifted: true)
        defer { backend.stop() }
        let upstream = "127.0.0.1:\(backend.port)"
        let bundles = folder.url.appendingPathComponent("bundles")
        try FileManager.default.createDirectory(at: bundles, withIntermediateDirectories: true)
        let server = try ServerProcess([bundles.path, "--forward", "--upstream-scheme", "http", "--extra-host", upstream,
                                        "--openapi", spec, "--validate", "responses"])
        let session = URLSession(configuration: .ephemeral)
        for path in ["/v1/restaurants", "/v1/restaurants/7"] {
            let answer = await session.result("GET", "\(server.baseURL)/\(upstream)\(path)")
            #expect(answer.status == 200, "\(path): \(answer.text ?? "\(String(describing: answer.error))")")
        }
        let har = await session.result("GET", "\(server.baseURL)/__stubkit/journal.har")
        let entries = (((try? JSONSerialization.jsonObject(with: Data((har.text ?? "").utf8))) as? [String: Any])?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        try #require(entries.count == 2, "\(har.text ?? "")")
        let findings = entries.map { (($0["_stubkit"] as? [String: Any])?["contract"] as? [[String: Any]]) ?? [] }
        #expect(findings[0].map { $0["subject"] as? String } == ["backendResponse"], "\(findings[0])")
        #expect(findings[0].first?["pointer"] as? String == "/restaurants/0/deliveryMinutes", "\(findings[0])")
        #expect(findings[1].isEmpty, "\(findings[1])")
        let exit = server.terminate(SIGTERM)
        #expect(exit.stderr.contains("the backend's response violates the spec: the 200 response body does not fit the schema at /restaurants/0/deliveryMinutes"), "\(exit.stderr)")
    }

    @Test("a conforming backend: no report at the end of the run, and the bundle lints clean")
    func conforming() async throws {
        let folder = try TemporaryFolder()
        let spec = try Self.spec(in: folder)
        let (exit, bundle) = try await Self.record(drifted: false, in: folder, spec: spec)
        #expect(exit.exited && exit.status == 0, "\(exit.stderr)")
        #expect(exit.stdout.contains("recorded 2"), "\(exit.stdout)")
        #expect(!exit.stderr.contains("SK217") && !exit.stderr.contains("do not fit"), "\(exit.stderr)")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", bundle.path, "--openapi", spec])
        #expect(lint.status == 0 && !lint.stdout.contains("SK217"), "\(lint.stdout)\(lint.stderr)")
    }

    @Test("an unreadable spec stops serve --record at once with exit 2, before anything is recorded")
    func unreadableSpec() throws {
        let folder = try TemporaryFolder()
        let exit = try ServerProcess.failingToStart([folder.url.path, "--record", "rec", "--openapi", "no/such.yaml"])
        #expect(exit.status == 2 && exit.stderr.contains("no/such.yaml: cannot be read") && exit.stderr.contains("[SK200]"), "\(exit.stderr)")
    }
}
#endif
