#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// A Server-Sent Events feed forwarded by the local server while it records: each event reaches the
/// client as it comes, and the rule is written with the events when the client leaves.
@Suite("Local server: recording an event stream", .timeLimit(.minutes(1)))
struct ServerEventStreamRecordingTests {
    @Test("a live feed recorded through the server: the client gets each event as it comes; leaving writes the events so far with keepOpen")
    func liveFeedRecorded() async throws {
        let first = "event: status\nid: 1\ndata: placed\n\n", second = "event: status\nid: 2\ndata: {\"status\": \"preparing\"}\n\n"
        let upstream = try EventStreamServer(steps: [.send(first), .pause(0.3), .send(second)], keepOpen: true)
        let authority = "127.0.0.1:\(upstream.port)"
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "captured", folder: folder.url))
        let server = try await ServerFixture(bundles: [:], active: [], recorder: recorder, folder: folder) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        // Cancelled once both events are in: a server that held one back would never get there.
        let whole = (first + second).utf8.count
        let delegate = CancellingDelegate { _, bytes in bytes >= whole }
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        let error = await delegate.run(URL(string: "\(server.base)/\(authority)/orders/42/events")!, on: session)
        #expect((error as? URLError)?.code == .cancelled)
        #expect(String(decoding: delegate.data, as: UTF8.self) == first + second)
        #expect(await Eventually.becomesTrue(within: 10) { recorder.summary.recorded == 1 }, "\(recorder.summary.problems)")
        #expect(await Eventually.becomesTrue(within: 10) { upstream.clientLeft }, "the upstream request is cancelled too")
        // The feed the client left has its journal entry: cancelled, with what was relayed and where it was recorded.
        let predicate = RequestPredicate("GET", path: "/orders/42/events")
        try await server.engine.journal.waitForRequests(matching: predicate, count: 1, timeout: 10)
        let entry = try #require(server.engine.journal.entries(matching: predicate).first)
        #expect(entry.passedThrough)
        #expect(entry.error?.code == URLError.cancelled.rawValue, "\(String(describing: entry.error))")
        #expect(entry.responseBodySize == whole)
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } == first + second)
        #expect(entry.recordedAs == "(events)")
        await server.stop()

        let bundle = folder.url.appendingPathComponent("captured")
        let top = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("stubsRules.json"))) as? [String: Any])
        let rule = try #require((top["rules"] as? [[String: Any]])?.first)
        #expect(rule["keepOpen"] as? Bool == true)
        #expect(rule["response"] == nil)
        let events = try #require(rule["events"] as? [[String: Any]])
        try #require(events.count == 2, "\(events)")
        #expect(events.map { $0["id"] as? String } == ["1", "2"])
        #expect(events.map { $0["data"] as? String } == ["placed", #"{"status": "preparing"}"#])
        #expect((events[1]["delay"] as? Double ?? 0) >= 0.2, "\(events)")
        let linted = BundleLoader(options: .lint).load(folder: bundle)
        #expect(linted.diagnostics.isEmpty, "\(linted.diagnostics.map(\.description))")
        #expect(linted.bundle.rules.first?.response.events?.events.map(\.data) == ["placed", #"{"status": "preparing"}"#])
    }

    @Test("a client that stops reading a forwarded feed is dropped once more than 1 MB waits for it, and the journal says why")
    func clientStopsReadingForwardedFeed() async throws {
        // 16 MB as fast as the forwarder takes it: far more than the socket's buffers and the server's limit.
        let event = "data: " + String(repeating: "x", count: 256 << 10) + "\n\n"
        let upstream = try EventStreamServer(steps: Array(repeating: .send(event), count: 64), keepOpen: true)
        let authority = "127.0.0.1:\(upstream.port)"
        let server = try await ServerFixture(bundles: [:], active: []) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        let connection = try RawConnection(port: server.port, receiveBuffer: 4096)
        try connection.send("GET /\(authority)/feed HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n")
        let predicate = RequestPredicate("GET", path: "/feed")
        try await server.engine.journal.waitForRequests(matching: predicate, count: 1, timeout: 30)
        let entry = try #require(server.engine.journal.entries(matching: predicate).first)
        let description = entry.error?.description ?? ""
        #expect(description.contains("stopped reading") && description.contains("1048576 bytes"), "\(description)")
        #expect(entry.passedThrough)
        #expect(await Eventually.becomesTrue(within: 10) { upstream.clientLeft }, "the upstream request is cancelled too")
        connection.disconnect()
        await server.stop()
    }
}
#endif
