import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// Server-Sent Events served in-process: a real `URLSession` on a configuration stubbed by its own
/// engine, read as an app reads a stream (a data delegate, chunk by chunk). Timing is asserted as a
/// lower bound only, measured on the monotonic clock.
@Suite(.timeLimit(.minutes(2)))
struct EventStreamServingTests {
    static let feedRules = """
    { "host": "sse.test", "rules": [
      { "path": "/feed", "events": [
          {"event": "a", "data": "one"},
          {"event": "b", "id": "2", "delay": 0.3, "data": {"n": 2}},
          {"comment": "bye"} ] },
      { "path": "/open", "keepOpen": true, "events": [
          {"event": "a", "data": "one"},
          {"event": "b", "data": "two"} ] },
      { "path": "/burst", "events": [
          {"data": "first"}, {"data": "second"}, {"data": "third"} ] },
      { "path": "/lines", "events": [
          {"comment": "hello"},
          {"event": "note", "id": "7", "retry": 1500, "data": "line one\\nline two"},
          {"data": {"ok": true}} ] }
    ] }
    """

    static let feedChunks = ["event: a\ndata: one\n\n", "event: b\nid: 2\ndata: {\"n\":2}\n\n", ": bye\n"]

    /// A session whose data delegate is `delegate`, answered by `engine` alone.
    static func session(_ engine: StubEngine, _ delegate: EventStreamDelegate) -> URLSession {
        URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: delegate, delegateQueue: nil)
    }

    static func engine(_ folder: TemporaryFolder, _ rules: String = feedRules) throws -> StubEngine {
        let engine = StubEngine()
        try engine.activate(folder: folder.bundle("sse", ["stubsRules.json": rules]))
        return engine
    }

    @Test("each event arrives as its own chunk, in order, exactly its bytes, the second after its delay; then the task completes")
    func eachEventItsOwnChunk() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let delegate = EventStreamDelegate()
        let started = DispatchTime.now().uptimeNanoseconds
        Self.session(engine, delegate).dataTask(with: URL(string: "https://sse.test/feed")!).resume()
        #expect(await delegate.waitForCompletion())
        #expect(delegate.error == nil)
        let chunks = delegate.chunks
        #expect(chunks.map(\.text) == Self.feedChunks)
        let head = try #require(delegate.response)
        #expect(head.statusCode == 200)
        #expect(head.value(forHTTPHeaderField: "Content-Type") == "text/event-stream")
        #expect(head.value(forHTTPHeaderField: "Cache-Control") == "no-cache")
        #expect(head.value(forHTTPHeaderField: "Content-Length") == nil)
        if chunks.count == 3 {
            // The second event waits 0.3 s after the first: a lower bound on the monotonic clock.
            #expect(chunks[1].at - chunks[0].at >= 300_000_000, "event 2 came \(Double(chunks[1].at - chunks[0].at) / 1e9) s after event 1")
            #expect(chunks[0].at >= started && chunks[2].at >= chunks[1].at)
            #expect(try #require(delegate.completedAt) >= chunks[2].at)
        }
        // One journal entry, written as the stream ended, holding what was sent.
        let entries = engine.journal.entries.filter { $0.request.url.path == "/feed" }
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.status == 200)
        #expect(entry.error == nil)
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } == Self.feedChunks.joined())
        #expect(entry.responseBodySize == Self.feedChunks.joined().utf8.count)
        #expect(entry.responseHeaders["Content-Type"] == "text/event-stream")
    }

    @Test("HEAD gets the head of an event stream and no event")
    func headGetsTheHeadOnly() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let delegate = EventStreamDelegate()
        var request = URLRequest(url: URL(string: "https://sse.test/feed")!)
        request.httpMethod = "HEAD"
        Self.session(engine, delegate).dataTask(with: request).resume()
        #expect(await delegate.waitForCompletion())
        #expect(delegate.error == nil)
        #expect(delegate.response?.statusCode == 200)
        #expect(delegate.chunks.isEmpty)
        #expect(engine.journal.entries.last?.responseBodySize == 0)
    }

    @Test("the stream read line by line (no URLSession.bytes(for:) in FoundationNetworking): comments skipped, multi-line data, id and retry")
    func readLineByLine() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let delegate = EventStreamDelegate()
        Self.session(engine, delegate).dataTask(with: URL(string: "https://sse.test/lines")!).resume()
        #expect(await delegate.waitForCompletion())
        var parser = EventStreamLineParser()
        for chunk in delegate.chunks { parser.feed(chunk.data) }
        #expect(parser.events == [
            .init(type: "note", data: "line one\nline two", id: "7", retry: 1500),
            .init(type: "message", data: "{\"ok\":true}", id: "7", retry: nil),
        ])
        #expect(parser.comments == ["hello"])
    }

    @Test("a completion-handler task gets every event in its body (FoundationNetworking keeps only a task's last didLoad)")
    func completionHandlerGetsTheWholeStream() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://sse.test/burst")
        #expect(result.error == nil)
        #expect(result.text == "data: first\n\ndata: second\n\ndata: third\n\n")
    }

    @Test("a completion-handler task cancelled before the stream ends got no event (it gets them in one piece at the end), and its journal entry lists none")
    func completionHandlerCancelledJournalsNothingUnsent() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder, """
        { "host": "sse.test", "rules": [
          { "path": "/slow", "scenario": "slow", "events": [
              {"data": "first", "setState": "first-due"},
              {"delay": 60, "data": "second"} ] }
        ] }
        """)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let completed = AsyncStream<(Data?, (any Error)?)>.makeStream()
        let task = session.dataTask(with: URL(string: "https://sse.test/slow")!) { data, _, error in
            completed.continuation.yield((data, error))
            completed.continuation.finish()
        }
        task.resume()
        // The first event has fallen due (its setState ran) but is held for the one piece at the end. The engine
        // has no notification for a scenario change, so this checks the state itself every 5 ms until it moves
        // (a deadline, not a fixed time: the wait ends the moment the state is there).
        let deadline = Date().addingTimeInterval(20)
        while engine.scenarioState("slow") != "first-due", Date() < deadline { try await Task.sleep(nanoseconds: 5_000_000) }
        try #require(engine.scenarioState("slow") == "first-due")
        task.cancel()
        var iterator = completed.stream.makeAsyncIterator()
        let (data, error) = try #require(await iterator.next())
        #expect((error as? URLError)?.code == .cancelled)
        #expect(data == nil || data?.isEmpty == true, "the client got no event")
        try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/slow"), timeout: 20)
        let entry = try #require(engine.journal.entries.last { $0.request.url.path == "/slow" })
        #expect(entry.error?.code == URLError.cancelled.rawValue)
        #expect(entry.responseBodySize == 0, "the journal lists \(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } ?? "nil")")
    }

    @Test("keepOpen: after the last event the task stays running until the app cancels it; the journal keeps every event and the cancel")
    func keepOpenUntilCancelled() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let delegate = EventStreamDelegate()
        let task = Self.session(engine, delegate).dataTask(with: URL(string: "https://sse.test/open")!)
        task.resume()
        #expect(await delegate.waitForChunks(2))
        // Nothing more comes: no completion within a generous second (an ended stream completes at once).
        #expect(await delegate.waitForCompletion(within: 1) == false, "the open stream ended on its own")
        #expect(task.state == .running)
        #expect(!engine.journal.entries.contains { $0.request.url.path == "/open" })
        task.cancel()
        #expect(await delegate.waitForCompletion())
        #expect((delegate.error as? URLError)?.code == .cancelled)
        try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/open"), timeout: 20)
        let entries = engine.journal.entries.filter { $0.request.url.path == "/open" }
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.status == 200)
        #expect(entry.error?.code == URLError.cancelled.rawValue)
        let sent = "event: a\ndata: one\n\nevent: b\ndata: two\n\n"
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } == sent)
        #expect(entry.responseBodySize == sent.utf8.count)
        // The reports show it: HAR carries the events as the response's text.
        let har = String(decoding: engine.journal.harData(), as: UTF8.self)
        #expect(har.contains("event: b\\ndata: two"))
        #expect(JournalReport(engine: engine).html.contains("<td>200</td>"))
    }

    @Test("a delegate that cancels in the first event's didReceive gets no later event; the journal holds only the first")
    func cancelMidStream() async throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(folder)
        let delegate = EventStreamDelegate(cancelAtChunk: 1)
        Self.session(engine, delegate).dataTask(with: URL(string: "https://sse.test/burst")!).resume()
        #expect(await delegate.waitForCompletion())
        #expect((delegate.error as? URLError)?.code == .cancelled)
        // The completion comes behind every chunk on the delegate queue, so this counts them all.
        #expect(delegate.chunks.map(\.text) == ["data: first\n\n"])
        try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/burst"), timeout: 20)
        let entry = try #require(engine.journal.entries.last { $0.request.url.path == "/burst" })
        #expect(entry.error?.code == URLError.cancelled.rawValue)
        #expect(entry.responseBody.map { String(decoding: $0, as: UTF8.self) } == "data: first\n\n")
    }
}
