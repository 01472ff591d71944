import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// What a rule's event stream does beyond sending its events: templates filled per event when it is
/// sent, `responses` sequences, and `setState` moving the scenario that other rules answer by.
@Suite(.timeLimit(.minutes(2)))
struct EventStreamRulesTests {
    static func run(_ url: String, on engine: StubEngine, _ delegate: EventStreamDelegate = EventStreamDelegate()) async -> EventStreamDelegate {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: delegate, delegateQueue: nil)
        session.dataTask(with: URL(string: url)!).resume()
        #expect(await delegate.waitForCompletion())
        #expect(delegate.error == nil)
        return delegate
    }

    @Test("templates are filled per event when it is sent: {{hit}} counts connections, {{now}} is the time of that event")
    func templatesPerEvent() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: folder.bundle("tpl", ["stubsRules.json": """
        { "host": "sse.test", "rules": [
          { "path": "/items/{id}/ticks", "template": true, "events": [
              {"event": "tick", "id": "{{hit}}", "data": "item {{path.id}} hit {{hit}} at {{now}}"},
              {"data": {"hit": "{{hit}}", "at": "{{now}}"}} ] }
        ] }
        """]))
        let first = Date(timeIntervalSince1970: 1_700_000_000), second = Date(timeIntervalSince1970: 1_800_000_000)
        engine.setNow(first)
        // The clock moves while the first event is being read: the second event shows the new time.
        let delegate = EventStreamDelegate(onChunk: { number, _ in if number == 1 { engine.setNow(second) } })
        let one = await Self.run("https://sse.test/items/9/ticks", on: engine, delegate).chunks.map(\.text)
        #expect(one == ["event: tick\nid: 0\ndata: item 9 hit 0 at 2023-11-14T22:13:20Z\n\n",
                        "data: {\"hit\":\"0\",\"at\":\"2027-01-15T08:00:00Z\"}\n\n"])
        engine.setNow(first)
        let two = await Self.run("https://sse.test/items/9/ticks", on: engine).chunks.map(\.text)
        #expect(two == ["event: tick\nid: 1\ndata: item 9 hit 1 at 2023-11-14T22:13:20Z\n\n",
                        "data: {\"hit\":\"1\",\"at\":\"2023-11-14T22:13:20Z\"}\n\n"])
    }

    @Test("a templated stream of a rule that keeps no state gets its path parameters")
    func pathParametersWithoutState() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: folder.bundle("tpl", ["stubsRules.json": """
        { "host": "sse.test", "rules": [
          { "path": "/items/{id}/feed", "template": true, "events": [{"id": "{{path.id}}", "data": {"item": "{{path.id}}"}}] }
        ] }
        """]))
        let chunks = await Self.run("https://sse.test/items/42/feed", on: engine).chunks.map(\.text)
        #expect(chunks == ["id: 42\ndata: {\"item\":\"42\"}\n\n"])
    }

    @Test("'events' in a responses sequence: the first connection gets stream A, the second stream B")
    func responsesSequence() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: folder.bundle("seq", ["stubsRules.json": """
        { "host": "sse.test", "rules": [
          { "path": "/feed", "responses": [
              {"events": [{"data": "A1"}, {"data": "A2"}]},
              {"events": [{"data": "B1"}]} ] }
        ] }
        """]))
        #expect(await Self.run("https://sse.test/feed", on: engine).chunks.map(\.text) == ["data: A1\n\n", "data: A2\n\n"])
        #expect(await Self.run("https://sse.test/feed", on: engine).chunks.map(\.text) == ["data: B1\n\n"])
    }

    @Test("setState per event: a plain GET made on receiving each event sees the state that event moved to")
    func setStatePerEvent() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: folder.bundle("job", ["stubsRules.json": """
        { "host": "sse.test", "rules": [
          { "path": "/jobs/{id}/events", "scenario": "job", "events": [
              {"data": "queued"},
              {"data": "running", "setState": "running"},
              {"data": "done", "setState": "done", "delay": 0.1} ] },
          { "path": "/jobs/{id}", "scenario": "job", "whenState": "running", "json": {"state": "running"} },
          { "path": "/jobs/{id}", "scenario": "job", "whenState": "done", "json": {"state": "done"} },
          { "path": "/jobs/{id}", "json": {"state": "queued"} }
        ] }
        """]))
        let plain = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let seen = Locked<[String]>([])
        // Asked from didReceive, before the next event can be sent (the delegate holds its queue).
        let delegate = EventStreamDelegate(onChunk: { _, _ in
            let done = DispatchSemaphore(value: 0)
            plain.dataTask(with: URL(string: "https://sse.test/jobs/4")!) { data, _, _ in
                let state = data.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["state"] as? String
                seen.withLock { $0.append(state ?? "no answer") }
                done.signal()
            }.resume()
            if done.wait(timeout: .now() + 20) == .timedOut { seen.withLock { $0.append("timed out") } }
        })
        let chunks = await Self.run("https://sse.test/jobs/4/events", on: engine, delegate).chunks.map(\.text)
        #expect(chunks == ["data: queued\n\n", "data: running\n\n", "data: done\n\n"])
        #expect(seen.withLock { $0 } == ["queued", "running", "done"])
        #expect(engine.scenarioState("job") == "done")
    }

    @Test("the example bundle order_tracking: the order's stream goes placed, preparing, on_its_way, delivered; then its status says delivered")
    func orderTrackingExample() async throws {
        let engine = StubEngine()
        try engine.activate(folder: PackagePaths.stubBundles.appendingPathComponent("order_tracking"))
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        #expect(await session.result("GET", "https://api.takeaway.example/orders/1/status").json?["status"] as? String == "placed")
        let delegate = await Self.run("https://api.takeaway.example/orders/1/events", on: engine)
        var parser = EventStreamLineParser()
        for chunk in delegate.chunks { parser.feed(chunk.data) }
        #expect(parser.comments.count == 1)
        let statuses = parser.events.map { event -> String in
            let object = try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            return "\(event.type) \(event.id ?? "-") \(object?["order"] as? String ?? "?") \(object?["status"] as? String ?? "?")"
        }
        #expect(statuses == ["status 1 1 placed", "status 2 1 preparing", "status 3 1 on_its_way", "status 4 1 delivered"])
        #expect(parser.events.first?.retry == 3000)
        #expect(await session.result("GET", "https://api.takeaway.example/orders/1/status").json?["status"] as? String == "delivered")
        // EventSource reconnects once the stream ends: the reconnection gets 204 (EventSource stops) and
        // no events, so the status never goes back to "preparing".
        let reconnection = await Self.run("https://api.takeaway.example/orders/1/events", on: engine)
        #expect(reconnection.response?.statusCode == 204)
        #expect(reconnection.chunks.isEmpty)
        #expect(engine.scenarioState("order") == "delivered")
    }
}
