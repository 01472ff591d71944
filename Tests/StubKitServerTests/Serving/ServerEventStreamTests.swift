#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// Server-Sent Events from the local server, read by a raw socket: what goes on the wire, when the
/// stream ends, what the journal keeps, and what a client that leaves, never reads or outlives the
/// server does to it.
@Suite("stubkit serve sends Server-Sent Events", .timeLimit(.minutes(2)))
struct ServerEventStreamTests {
    static func bundle(_ rules: String) -> [String: [String: String]] {
        ["sse": ["stubsRules.json": #"{ "host": "feed.test", "rules": [ \#(rules), {"method": "GET", "path": "/plain", "body": "plain"} ] }"#]]
    }

    static func request(_ path: String, version: String = "1.1", extra: String = "") -> String {
        "GET /feed.test\(path) HTTP/\(version)\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\(extra)\r\n"
    }

    static func contains(_ text: String) -> (Data) -> Bool {
        { $0.range(of: Data(text.utf8)) != nil }
    }

    /// The journal entry of `path`, once written (when its stream ends).
    static func entry(_ fixture: ServerFixture, path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JournalEntry {
        let predicate = RequestPredicate("GET", path: path)
        try await fixture.engine.journal.waitForRequests(matching: predicate, count: 1, timeout: 30)
        return try #require(fixture.engine.journal.entries(matching: predicate).first, sourceLocation: sourceLocation)
    }

    static let ticks = #"""
        {"method": "GET", "path": "/live", "keepOpen": true, "events": [
          {"event": "tick", "id": "1", "data": "one"},
          {"event": "tick", "id": "2", "data": "two", "delay": 0.3},
          {"event": "tick", "id": "3", "data": {"n": 3}, "delay": 0.3}
        ]}
        """#
    static let tickBytes = "event: tick\nid: 1\ndata: one\n\nevent: tick\nid: 2\ndata: two\n\nevent: tick\nid: 3\ndata: {\"n\":3}\n\n"

    @Test("keepOpen: chunked, no Content-Length, every event, then open until the client leaves; the journal says so; the request-head time-out does not cut the stream")
    func keepOpenUntilClientLeaves() async throws {
        // The stream lasts longer than a connection may wait for a request head.
        let fixture = try await ServerFixture(bundles: Self.bundle(Self.ticks), active: ["sse"]) { $0.requestHeadTimeout = 0.25 }
        let connection = try RawConnection(port: fixture.port)
        try connection.send(Self.request("/live"))
        let head = try connection.readHead().lowercased()
        #expect(head.hasPrefix("http/1.1 200"))
        #expect(head.contains("transfer-encoding: chunked"), "\(head)")
        #expect(head.contains("content-type: text/event-stream"))
        #expect(head.contains("cache-control: no-cache"))
        #expect(!head.contains("content-length"))
        let received = String(decoding: try connection.read(until: Self.contains("data: {\"n\":3}\n\n")), as: UTF8.self)
        #expect(received.range(of: "data: one")!.lowerBound < received.range(of: "data: two")!.lowerBound)
        // Still open: no stream ended, nothing journalled, no last chunk.
        #expect(fixture.server.eventStreams.open == 1)
        #expect(fixture.engine.journal.entries(matching: RequestPredicate("GET", path: "/live")).isEmpty)
        #expect(!received.hasSuffix("0\r\n\r\n"))

        connection.disconnect()
        let entry = try await Self.entry(fixture, path: "/live")
        #expect(entry.status == 200)
        #expect(entry.error?.description == "the client disconnected after 3 of 3 events of the event stream", "\(String(describing: entry.error))")
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } == Self.tickBytes)
        #expect(entry.responseHeaders["Content-Type"] == "text/event-stream")
        #expect(fixture.server.eventStreams.open == 0)

        // The admin API's HAR shows the stream.
        let har = await fixture.get("/__stubkit/journal.har").text ?? ""
        #expect(har.contains(#"data: {\"n\":3}"#), "\(har)")
        #expect(har.contains("disconnected after 3 of 3 events"))
        await fixture.stop()
    }

    @Test("a client that leaves after the first event: the next timer is cancelled, the journal says 1 event, the server serves on and stops at once")
    func clientLeavesEarly() async throws {
        let rule = #"{"method": "GET", "path": "/slow", "events": [{"data": "first"}, {"data": "second", "delay": 60}]}"#
        // A grace far beyond the test's own time limit: a shutdown that waited for the stream could not pass.
        let fixture = try await ServerFixture(bundles: Self.bundle(rule), active: ["sse"]) { $0.shutdownGrace = 3600 }
        let connection = try RawConnection(port: fixture.port)
        try connection.send(Self.request("/slow"))
        try connection.read(until: Self.contains("data: first\n\n"))
        connection.disconnect()

        let entry = try await Self.entry(fixture, path: "/slow")
        #expect(entry.error?.description == "the client disconnected after 1 of 2 events of the event stream")
        #expect(entry.responseBody == Data("data: first\n\n".utf8))
        #expect(fixture.server.eventStreams.open == 0)
        let plain = await fixture.get("/feed.test/plain")
        #expect(plain.status == 200 && plain.text == "plain")
        let started = Date()
        await fixture.stop()
        #expect(Date().timeIntervalSince(started) < 1800, "the shutdown waited for a stream whose client had left")
    }

    @Test("a client that never reads holds the stream back: one event waits in the server at a time, not the whole stream")
    func clientThatNeverReads() async throws {
        let count = 40
        let payload = String(repeating: "x", count: 256 << 10)
        let events = (0..<count).map { _ in #"{"data": "\#(payload)"}"# }.joined(separator: ",")
        let fixture = try await ServerFixture(bundles: Self.bundle(#"{"method": "GET", "path": "/flood", "events": [\#(events)]}"#), active: ["sse"])
        let connection = try RawConnection(port: fixture.port, receiveBuffer: 4096)
        try connection.send(Self.request("/flood"))
        // The stall: an event waits for the full socket, and nothing more has reached it for a moment.
        let progress = Locked((sent: -1, since: Date()))
        let stalled = await Eventually.becomesTrue(within: 30) {
            let counts = fixture.server.eventStreams
            return progress.withLock { last in
                if counts.eventsSent != last.sent { last = (counts.eventsSent, Date()) }
                return counts.eventsSent >= 1 && counts.queued >= 1 && Date().timeIntervalSince(last.since) > 0.3
            }
        }
        let counts = fixture.server.eventStreams
        #expect(stalled, "\(counts)")
        // Written without waiting for the socket, the 10 MB stream would pile up in the server's memory.
        #expect(counts.mostQueued == 1, "\(counts)")
        #expect(counts.eventsSent < count)

        connection.disconnect()
        let entry = try await Self.entry(fixture, path: "/flood")
        let sent = entry.responseBodySize / (payload.utf8.count + 8)
        // What the socket's buffers took (their size is the host's) is all that was sent: the rest was never made.
        #expect(sent == fixture.server.eventStreams.eventsSent, "\(entry.error?.description ?? "")")
        #expect(entry.error?.description == "the client disconnected after \(sent) of \(count) events of the event stream")
        #expect(fixture.server.eventStreams.mostQueued == 1)
        await fixture.stop()
    }

    @Test("an HTTP/1.0 client gets the events in a body that ends with the connection, even when it asks to keep the connection")
    func http10ClosesAtEnd() async throws {
        let rule = #"{"method": "GET", "path": "/short", "events": [{"data": "a"}, {"data": "b", "delay": 0.02}]}"#
        let fixture = try await ServerFixture(bundles: Self.bundle(rule), active: ["sse"])
        let connection = try RawConnection(port: fixture.port, limit: 10)
        try connection.send(Self.request("/short", version: "1.0", extra: "Connection: keep-alive\r\n"))
        let received = String(decoding: try connection.readToEnd(), as: UTF8.self)
        let parts = received.components(separatedBy: "\r\n\r\n")
        let head = parts[0].lowercased()
        #expect(head.hasPrefix("http/1.0 200"))
        #expect(head.contains("connection: close"))
        #expect(!head.contains("transfer-encoding") && !head.contains("content-length"))
        #expect(parts.dropFirst().joined(separator: "\r\n\r\n") == "data: a\n\ndata: b\n\n")
        await fixture.stop()
    }

    @Test("each event's setState moves the scenario: the order's status answers 'delivered' once the stream has ended (order_tracking)")
    func setStatePerEvent() async throws {
        let rules = try String(contentsOf: PackagePaths.stubBundles.appendingPathComponent("order_tracking/stubsRules.json"), encoding: .utf8)
        let fixture = try await ServerFixture(bundles: ["order_tracking": ["stubsRules.json": rules]], active: ["order_tracking"])
        #expect(await fixture.get("/api.takeaway.example/orders/7/status").text?.contains("placed") == true)
        let connection = try RawConnection(port: fixture.port)
        try connection.send("GET /api.takeaway.example/orders/7/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let received = String(decoding: try connection.read(until: Self.contains("\r\n0\r\n\r\n")), as: UTF8.self)
        #expect(received.contains(": order 7 tracking\n"))
        #expect(received.contains(#"data: {"order":"7","status":"delivered"}"#), "\(received)")
        #expect(fixture.engine.scenarioState("order") == "delivered")
        #expect(await fixture.get("/api.takeaway.example/orders/7/status").text?.contains("delivered") == true)
        let entry = try await Self.entry(fixture, path: "/orders/{id}/events")
        #expect(entry.error == nil)
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) }?.contains("id: 4\n") == true)
        await fixture.stop()
    }

    @Test("a client that asks the status on another connection the moment the event with setState arrives sees the new state, 50 times out of 50")
    func setStateBeforeTheEventLeaves() async throws {
        let rules = #"""
            {"method": "GET", "path": "/track", "scenario": "order", "events": [{"data": "delivered", "setState": "delivered"}]},
            {"method": "GET", "path": "/status", "scenario": "order", "whenState": "delivered", "body": "new"},
            {"method": "GET", "path": "/status", "body": "old"}
            """#
        let fixture = try await ServerFixture(bundles: Self.bundle(rules), active: ["sse"])
        for round in 1...50 {
            fixture.engine.setScenarioState("order", to: "placed")
            let status = try await WebSocketFixture.offPool {
                let stream = try RawConnection(port: fixture.port)
                try stream.send(Self.request("/track"))
                try stream.read(until: Self.contains("data: delivered\n\n"))
                // At once, on a connection of its own (served by any of the server's threads).
                let other = try RawConnection(port: fixture.port)
                try other.send("GET /feed.test/status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return String(decoding: try other.readToEnd(), as: UTF8.self)
            }
            #expect(status.hasSuffix("\r\n\r\nnew"), "round \(round): \(status)")
            if !status.hasSuffix("\r\n\r\nnew") { break }
        }
        await fixture.stop()
    }

    @Test("shutting down while a keepOpen stream is open ends the stream at once instead of waiting out the grace period")
    func shutdownEndsOpenStream() async throws {
        // A grace far beyond the suite's time limit: a shutdown that waited it out could not pass.
        let fixture = try await ServerFixture(bundles: Self.bundle(Self.ticks), active: ["sse"]) { $0.shutdownGrace = 3600 }
        let connection = try RawConnection(port: fixture.port)
        try connection.send(Self.request("/live"))
        try connection.read(until: Self.contains("data: {\"n\":3}\n\n"))
        let started = Date()
        await fixture.stop()
        #expect(Date().timeIntervalSince(started) < 1800, "the shutdown waited for the open stream")
        let received = String(decoding: try connection.readToEnd(), as: UTF8.self)
        #expect(received.hasSuffix("\r\n0\r\n\r\n"), "the stream did not end cleanly")
        let entry = try #require(fixture.engine.journal.entries(matching: RequestPredicate("GET", path: "/live")).first)
        #expect(entry.error?.description == "the server shut down after 3 of 3 events of the event stream")
    }

    @Test("an event stream is sent anew to every request, never kept as a ready answer")
    func streamsAreNotCached() async throws {
        let rule = #"{"method": "GET", "path": "/twice", "events": [{"data": "a"}, {"data": "b"}]}"#
        let fixture = try await ServerFixture(bundles: Self.bundle(rule), active: ["sse"])
        let connection = try RawConnection(port: fixture.port)
        for round in 1...2 {
            try connection.send(Self.request("/twice"))
            let received = String(decoding: try connection.read { String(decoding: $0, as: UTF8.self).components(separatedBy: "\r\n0\r\n\r\n").count > round },
                                  as: UTF8.self)
            #expect(received.components(separatedBy: "data: b\n\n").count - 1 == round, "\(received)")
        }
        #expect(fixture.server.eventStreams.eventsSent == 4)
        await fixture.stop()
    }
}
#endif
