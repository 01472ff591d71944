import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// A Server-Sent Events feed from a loopback backend recorded in-process (a recording engine, a real
/// URLSession): the rule's `events` as the feed sent them, timing, redaction, a feed the app cancels.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RecordingEventStreamTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    var bundleFolder: URL { folder.url.appendingPathComponent("recorded") }

    func recordingEngine() throws -> StubEngine {
        StubEngine(recorder: try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url)))
    }

    /// The pause the backend makes between two events; each recorded delay is at least this, less
    /// what delivery jitter can take off (only lower bounds: a slow machine makes gaps longer).
    static let pause = 0.3
    static let tolerance = 0.1

    /// The one recorded rule, as written.
    func writtenRule() throws -> [String: Any] {
        let data = try Data(contentsOf: bundleFolder.appendingPathComponent("stubsRules.json"))
        let top = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let rules = try #require(top["rules"] as? [[String: Any]])
        try #require(rules.count == 1, "\(rules)")
        return rules[0]
    }

    /// The written bundle lints clean, validates against the JSON Schema, and loads back to these events.
    func checkBundle(_ events: [[String: Any]], keepOpen: Bool) throws {
        let linted = BundleLoader(options: .lint).load(folder: bundleFolder)
        #expect(linted.diagnostics.isEmpty, "\(linted.diagnostics.map(\.description))")
        let verdicts = try ChildProcessRunner.python(["Tests/schema_check.py", JSONSchemaTests.schema.path,
                                                      bundleFolder.appendingPathComponent("stubsRules.json").path])
        let errors = try #require(try JSONSerialization.jsonObject(with: Data(verdicts.utf8)) as? [String: [String]])
        let invalid = errors.filter { !$0.value.isEmpty }
        #expect(invalid.isEmpty, "\(invalid)")
        // The replay's side: what the loader decodes is what was written.
        let loaded = BundleLoader().load(folder: bundleFolder)
        let stream = try #require(loaded.bundle.rules.first?.response.events)
        #expect(stream.keepsOpen == keepOpen)
        try #require(stream.events.count == events.count)
        for (decoded, written) in zip(stream.events, events) {
            #expect(decoded.event == written["event"] as? String)
            #expect(decoded.data == written["data"] as? String)
            #expect(decoded.dataIsJSON == false, "data is kept as the text received")
            #expect(decoded.id == written["id"] as? String)
            #expect(decoded.retry == written["retry"] as? Int)
            #expect(decoded.comment == written["comment"] as? String)
            #expect(decoded.delay == (written["delay"] as? Double ?? 0))
        }
    }

    static let placed = #"{"order": 42,  "status":"placed" , "eta": null}"#

    @Test("a feed that ends: each event with its event, id, retry, comment and byte-exact data, in order, delays at least the gaps, secrets out, no response file")
    func feedThatEnds() async throws {
        let backend = try EventStreamServer(
            headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-cache",
                      "Set-Cookie": "session=sekret-cookie-456; Path=/"],
            steps: [
                .send(": hello\n\n"),
                .pause(Self.pause),
                .send("event: status\r\nid: 1\r\nretry: 3000\r\ndata: \(Self.placed)\r\n\r\n"),
                .pause(Self.pause),
                .send("data: line one\ndata:  €uro \ndata\n"), .send("\n"),
                .send("event: auth\ndata: {\"access_token\": \"sekret-token-123\", \"n\": 1}\n\n"),
                .send("data: cookie sekret-cookie-456, bearer sekret-bearer-789\n\n"),
                .send("data: never finished"),
            ])
        let engine = try recordingEngine()
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", backend.baseURL.absoluteString + "/orders/42/events", headers: ["Authorization": "Bearer sekret-bearer-789"])
        #expect(result.error == nil)
        #expect(result.text?.hasSuffix("data: never finished") == true, "the app got the feed as sent: \(result.text ?? "nil")")
        #expect(engine.recorder?.summary.recorded == 1, "\(engine.recorder?.summary.problems ?? [])")

        let rule = try writtenRule()
        #expect(rule["status"] as? Int == 200)
        #expect((rule["headers"] as? [String: String])?["Content-Type"] == "text/event-stream; charset=utf-8")
        #expect(rule["response"] == nil && rule["keepOpen"] == nil)
        let events = try #require(rule["events"] as? [[String: Any]])
        try #require(events.count == 5, "\(events)")
        #expect(events[0]["comment"] as? String == "hello")
        #expect(events[1]["event"] as? String == "status" && events[1]["id"] as? String == "1" && events[1]["retry"] as? Int == 3000)
        #expect(events[1]["data"] as? String == Self.placed, "data is the text received, not JSON written again")
        #expect(events[2]["data"] as? String == "line one\n €uro \n")
        #expect(events[3]["event"] as? String == "auth")
        let auth = try #require(events[3]["data"] as? String)
        #expect(!auth.contains("sekret") && auth.contains(Redactor.placeholder), "\(auth)")
        #expect(events[4]["data"] as? String == "cookie \(Redactor.placeholder), bearer \(Redactor.placeholder)")
        let delays = events.map { $0["delay"] as? Double ?? 0 }
        #expect(delays[1] >= Self.pause - Self.tolerance, "\(delays)")
        #expect(delays[2] >= Self.pause - Self.tolerance, "\(delays)")
        let unrounded = delays.filter { $0 < 0 || abs(($0 * 1000).rounded() - $0 * 1000) > 1e-6 }
        #expect(unrounded.isEmpty, "whole milliseconds: \(delays)")
        let rulesText = try String(contentsOf: bundleFolder.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        for secret in RecordingServer.secrets { #expect(!rulesText.contains(secret), "the rules hold \(secret)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: bundleFolder.path) == ["stubsRules.json"], "no response file")
        try checkBundle(events, keepOpen: false)
    }

    @Test("a live feed the app cancels: written with the events it got so far and keepOpen, so the replay stays open")
    func cancelledLiveFeed() async throws {
        let first = "event: status\nid: 1\ndata: placed\n\n", second = ": keep-alive\n"
        let third = "event: status\nid: 2\ndata: {\"status\": \"preparing\"}\n\n"
        let backend = try EventStreamServer(steps: [.send(first), .pause(Self.pause), .send(second), .pause(Self.pause), .send(third)], keepOpen: true)
        let engine = try recordingEngine()
        let whole = (first + second + third).utf8.count
        let delegate = CancellingDelegate { _, bytes in bytes >= whole }
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: delegate, delegateQueue: nil)
        let error = await delegate.run(backend.baseURL.appendingPathComponent("feed"), on: session)
        #expect((error as? URLError)?.code == .cancelled)
        // The cancel reaches the upstream, and the recording is written after it: wait on both.
        #expect(await Eventually.becomesTrue(within: 10) { backend.clientLeft })
        #expect(await Eventually.becomesTrue(within: 10) { engine.recorder?.summary.recorded == 1 }, "\(engine.recorder?.summary.problems ?? [])")

        let rule = try writtenRule()
        #expect(rule["keepOpen"] as? Bool == true)
        let events = try #require(rule["events"] as? [[String: Any]])
        try #require(events.count == 3, "\(events)")
        #expect(events[0]["event"] as? String == "status" && events[0]["id"] as? String == "1" && events[0]["data"] as? String == "placed")
        #expect(events[1]["comment"] as? String == "keep-alive")
        #expect(events[2]["id"] as? String == "2" && events[2]["data"] as? String == #"{"status": "preparing"}"#)
        #expect((events[1]["delay"] as? Double ?? 0) >= Self.pause - Self.tolerance, "\(events)")
        #expect((events[2]["delay"] as? Double ?? 0) >= Self.pause - Self.tolerance, "\(events)")
        // Journalled once the recording is written, so the entry names it.
        try await engine.journal.waitForRequests(matching: RequestPredicate("GET", path: "/feed"), count: 1, timeout: 10)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.passedThrough && entry.error?.code == URLError.Code.cancelled.rawValue)
        #expect(entry.recordedAs == "(events)")
        try checkBundle(events, keepOpen: true)
    }
}
}
