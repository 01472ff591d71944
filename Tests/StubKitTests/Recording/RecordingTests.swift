import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Record real traffic from a loopback backend into a bundle, then replay it with the network off.
@Suite(.serialized)
struct RecordingTests {
    let backend: RecordingServer
    let folder: TemporaryFolder

    init() throws {
        backend = try RecordingServer()
        folder = try TemporaryFolder()
    }

    struct Call: Sendable {
        var method = "GET"
        var path: String
        var body: String? = nil
        var headers: [String: String] = [:]
    }

    /// Every kind of exchange, the counter three times; the sign-up's e-mail and the search's `ts` vary per run.
    static func calls(email: String, ts: String, queryFirst: Bool = true) -> [Call] {
        [
            Call(path: "/restaurants"), Call(path: "/restaurants/1/menu"), Call(path: "/hello.txt"), Call(path: "/logo.png"),
            Call(path: "/compressed"),
            Call(method: "POST", path: "/login", body: #"{"user":"ann","password":"sekret-pass-000"}"#, headers: ["Content-Type": "application/json"]),
            Call(path: "/me", headers: ["Authorization": "Bearer sekret-bearer-789"]),
            Call(path: "/counter"), Call(path: "/counter"), Call(path: "/counter"),
            Call(method: "POST", path: "/signup", body: #"{"email":"\#(email)","name":"Ann"}"#, headers: ["Content-Type": "application/json"]),
            Call(path: queryFirst ? "/search?q=pizza&ts=\(ts)" : "/search?ts=\(ts)&q=pizza"),
            Call(path: "/echo", headers: ["Authorization": "Bearer sekret-bearer-789"]),
        ]
    }

    func perform(_ calls: [Call], engine: StubEngine) async -> [TaskResult] {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        var results: [TaskResult] = []
        for call in calls {
            results.append(await session.result(call.method, backend.baseURL.absoluteString + call.path, body: call.body, headers: call.headers))
        }
        return results
    }

    func recorder(_ mode: RecorderConfiguration.Mode = .missing) throws -> Recorder {
        try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url, mode: mode,
                                                        ignored: [.body(["email"]), .query("ts"), .header("X-Request-ID")]))
    }

    var bundleFolder: URL { folder.url.appendingPathComponent("recorded") }

    @Test("record every kind of exchange, stop the server, replay with the kill switch on: same statuses and bytes, repeats in order")
    func recordThenReplay() async throws {
        let recording = StubEngine(recorder: try recorder())
        let recorded = await perform(Self.calls(email: "first-\(UUID().uuidString)@example.com", ts: "1"), engine: recording)
        #expect(recorded.allSatisfy { $0.error == nil }, "\(recorded.compactMap(\.error))")
        #expect(recorded[4].text == #"{"compressed": true, "items": [1, 2, 3]}"#, "the forwarder's session decodes gzip")
        #expect(recorded[6].status == 200, "the Authorization header reached the backend")
        #expect(recording.journal.entries.allSatisfy { $0.recorded })
        #expect(recording.recorder?.summary.recorded == 13)
        backend.stop()

        let replay = StubEngine(killSwitch: true)
        try replay.activate(folder: bundleFolder)
        let replayed = await perform(Self.calls(email: "second-\(UUID().uuidString)@example.com", ts: "2", queryFirst: false), engine: replay)
        for (i, (first, second)) in zip(recorded, replayed).enumerated() {
            #expect(second.error == nil, "call \(i): \(second.error.map { "\($0)" } ?? "")")
            #expect(second.status == first.status, "call \(i)")
            if i == 5 || i == 12 { continue }  // the login's token and the echoed credentials are redacted, checked below
            #expect(second.data == first.data, "call \(i): \(second.text ?? "nil") vs \(first.text ?? "nil")")
        }
        #expect(replayed[3].data == RecordingServer.png)
        #expect(replayed[7...9].map(\.text) == [#"{"count":1}"#, #"{"count":2}"#, #"{"count":3}"#])
        #expect(replayed[5].json?["access_token"] as? String == Redactor.placeholder)
        #expect(replayed[5].response?.value(forHTTPHeaderField: "Set-Cookie") == Redactor.placeholder)
        #expect(replayed[12].text == "you sent: REDACTED\n")
        #expect(replayed[12].response?.value(forHTTPHeaderField: "X-Echo") == Redactor.placeholder)
        #expect(replay.journal.entries.allSatisfy { $0.rule != nil })
    }

    @Test("a body that arrives in many chunks reaches a completion-handler task whole while recording, and replays whole")
    func largeBodyWhole() async throws {
        let recording = StubEngine(recorder: try recorder())
        let recorded = await perform([Call(path: "/large")], engine: recording)
        #expect(recorded[0].data?.count == RecordingServer.large.count)
        #expect(recorded[0].data == RecordingServer.large)
        backend.stop()
        let replay = StubEngine(killSwitch: true)
        try replay.activate(folder: bundleFolder)
        let replayed = await perform([Call(path: "/large")], engine: replay)
        #expect(replayed[0].data == RecordingServer.large)
    }

    @Test("sixteen concurrent requests are all recorded: one rule, sixteen responses, each file one whole body")
    func concurrentRecording() async throws {
        let engine = StubEngine(recorder: try recorder())
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let url = backend.baseURL.absoluteString + "/counter"
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<16 { group.addTask { await session.result("GET", url).text } }
            return await group.reduce(into: Set<String>()) { if let body = $1 { $0.insert(body) } }
        }
        #expect(bodies == Set((1...16).map { #"{"count":\#($0)}"# }))
        let result = BundleLoader(options: .lint).load(folder: bundleFolder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        let rule = try #require(result.bundle.rules.first)
        #expect(result.bundle.rules.count == 1 && rule.sequence?.responses.count == 16)
        let stored = try FileManager.default.contentsOfDirectory(atPath: bundleFolder.path).filter { $0.hasPrefix("GET_counter") }
            .map { try String(contentsOf: bundleFolder.appendingPathComponent($0), encoding: .utf8) }
        #expect(Set(stored) == bodies)
    }

    @Test("the recorded bundle lints with no diagnostic, and no secret appears in any of its files")
    func lintsCleanWithoutSecrets() async throws {
        let recording = StubEngine(recorder: try recorder())
        _ = await perform(Self.calls(email: "a@example.com", ts: "1"), engine: recording)
        let result = BundleLoader(options: .lint).load(folder: bundleFolder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        #expect(result.bundle.rules.count == 11, "the three counter calls are one rule")
        let files = try FileManager.default.contentsOfDirectory(atPath: bundleFolder.path)
        #expect(files.contains("GET_restaurants_1_menu.json"))
        #expect(files.contains("GET_logo_png.png"))
        #expect(files.contains("GET_counter_2.json") && files.contains("GET_counter_3.json"))
        for name in files {
            let data = try Data(contentsOf: bundleFolder.appendingPathComponent(name))
            for secret in RecordingServer.secrets {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
        }
        let rules = try String(contentsOf: bundleFolder.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        #expect(!rules.contains("Content-Length") && !rules.contains("Content-Encoding") && !rules.contains("\"Date\""))
        #expect(rules.contains("\"recordedAt\""))
    }

    @Test("missing mode replays what the bundle answers and records only the new request")
    func missingRecordsOnlyNew() async throws {
        let first = StubEngine(recorder: try recorder())
        _ = await perform([Call(path: "/restaurants")], engine: first)
        #expect(backend.server.connectionCount == 1)

        let second = StubEngine(recorder: try recorder(.missing))
        try second.activate(folder: bundleFolder)
        let results = await perform([Call(path: "/restaurants"), Call(path: "/hello.txt")], engine: second)
        #expect(results.map(\.status) == [200, 200])
        #expect(backend.server.connectionCount == 2, "only the new request reached the network")
        let summary = try #require(second.recorder?.summary)
        #expect(summary.recorded == 1 && summary.replayed == 1)
        #expect(second.journal.entries.map(\.recorded) == [false, true])
        #expect(BundleLoader(options: .lint).load(folder: bundleFolder).bundle.rules.count == 2)
    }

    @Test("all mode sends every request to the network, even one a bundle answers, and replaces the recording")
    func allReplaces() async throws {
        _ = await perform([Call(path: "/restaurants")], engine: StubEngine(recorder: try recorder()))
        let again = StubEngine(recorder: try recorder(.all))
        try folder.activate(again, bundle: "other", rules: #"[{ "method": "GET", "path": "/hello.txt", "body": "from a bundle" }]"#)
        let results = await perform([Call(path: "/hello.txt")], engine: again)
        #expect(results.first?.text == "hello, world\nsecond line\n")
        #expect(backend.server.connectionCount == 2)
        let rules = BundleLoader(options: .lint).load(folder: bundleFolder).bundle.rules
        #expect(rules.map(\.displayName) == ["GET /hello.txt"], "the earlier recording of /restaurants is gone")
    }

    @Test("an unreachable upstream: the app gets the real error, nothing is written, the journal says so")
    func upstreamUnreachable() async throws {
        backend.stop()
        let engine = StubEngine(recorder: try recorder())
        let result = await perform([Call(path: "/restaurants")], engine: engine)
        #expect(result[0].error?.code == .cannotConnectToHost)
        let entry = try #require(engine.journal.entries.first)
        #expect(entry.passedThrough && !entry.recorded)
        #expect(entry.error?.code == URLError.Code.cannotConnectToHost.rawValue, "\(String(describing: entry.error))")
        #expect(engine.recorder?.summary.failed == 1 && engine.recorder?.summary.recorded == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: bundleFolder.path)
        #expect(files.isEmpty, "\(files)")
    }

    @Test("an upstream that times out: the app gets the time-out, nothing is written")
    func upstreamTimesOut() async throws {
        let engine = StubEngine(recorder: try recorder())
        defer { backend.release.signal() }
        var request = URLRequest(url: backend.baseURL.appendingPathComponent("block"))
        request.timeoutInterval = 1
        let result = await URLSession(configuration: .stubbed(by: engine, base: .ephemeral)).result(for: request)
        #expect(result.error?.code == .timedOut)
        #expect(engine.recorder?.summary.recorded == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundleFolder.path).isEmpty)
        #expect(engine.journal.entries.allSatisfy { !$0.recorded })
    }

    @Test("a capture that cannot be written (disk full) still gives the app the whole real body; the journal and summary say recording failed",
          .enabled(if: FileManager.default.isWritableFile(atPath: "/dev/full"), "needs /dev/full, a device whose writes fail with ENOSPC"))
    func failedCapture() async throws {
        // Writes to /dev/full fail as on a full disk; the capture neither creates nor removes it.
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url),
                                    makeCapture: { ResponseCapture(writingTo: URL(fileURLWithPath: "/dev/full"), removesFile: false) })
        let engine = StubEngine(recorder: recorder)
        let results = await perform([Call(path: "/large"), Call(path: "/hello.txt")], engine: engine)
        #expect(results[0].error == nil)
        #expect(results[0].data == RecordingServer.large, "got \(results[0].data?.count ?? -1) bytes")
        #expect(results[1].text == "hello, world\nsecond line\n")
        #expect(recorder.summary.failed == 2 && recorder.summary.recorded == 0)
        let entries = engine.journal.entries
        #expect(entries.allSatisfy { !$0.recorded && $0.recordingFailure != nil }, "\(entries.map(\.summary))")
        #expect(entries.first?.summary.contains("not recorded") == true, "\(entries.first?.summary ?? "")")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: bundleFolder.path)) ?? []
        #expect(!files.contains { $0.hasPrefix("GET_") }, "\(files)")
    }

    @Test("STUB_RECORD_HOSTS: only listed hosts are recorded; others go to the network, or to a bundle that answers them, even in mode 'all'")
    func hostAllowList() async throws {
        let listed = try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url, hosts: ["*.example.com", "127.0.0.1"]))
        #expect(listed.records(StubRequest(url: URL(string: "https://api.example.com/x")!)))
        #expect(listed.records(StubRequest(url: URL(string: "https://EXAMPLE.com/x")!)))
        #expect(!listed.records(StubRequest(url: URL(string: "https://badexample.com/x")!)))

        let engine = StubEngine(recorder: try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url, mode: .all,
                                                                                         hosts: ["api.example.com"])))
        try folder.activate(engine, bundle: "other", rules: #"[{ "method": "GET", "path": "/hello.txt", "body": "from a bundle" }]"#)
        let results = await perform([Call(path: "/restaurants"), Call(path: "/hello.txt")], engine: engine)
        #expect(results.map(\.status) == [200, 200])
        #expect(results[1].text == "from a bundle", "an unlisted host is not forced to the network by mode 'all'")
        #expect(backend.server.connectionCount == 1, "the unlisted request still reached the network")
        #expect(engine.recorder?.summary.recorded == 0)
        #expect(engine.journal.entries.allSatisfy { !$0.recorded })
        let files = (try? FileManager.default.contentsOfDirectory(atPath: bundleFolder.path)) ?? []
        #expect(!files.contains { $0.hasPrefix("GET_") }, "\(files)")
    }

    @Test("the journal marks recorded entries in the HAR and the HTML report")
    func journalShowsRecorded() async throws {
        let engine = StubEngine(recorder: try recorder())
        _ = await perform([Call(path: "/hello.txt")], engine: engine)
        let har = folder.url.appendingPathComponent("journal.har"), html = folder.url.appendingPathComponent("report.html")
        try engine.journal.writeHAR(to: har)
        try JournalReport(engine: engine).write(to: html)
        let harText = try String(contentsOf: har, encoding: .utf8), htmlText = try String(contentsOf: html, encoding: .utf8)
        #expect(harText.contains(#""recorded":"GET_hello_txt.txt""#) || harText.contains(#""recorded" : "GET_hello_txt.txt""#))
        #expect(htmlText.contains("recorded as GET_hello_txt.txt"))
        #expect(engine.journal.entries.first?.summary.hasSuffix("(recorded)") == true)
    }
}
}
