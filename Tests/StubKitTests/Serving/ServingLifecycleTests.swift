import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// The serving path under cancellation: no hang, no client call after `stopLoading`, nothing kept alive.
/// Observed at the protocol (the client-call log, the journal, a weak reference to the engine), not
/// only through what URLSession reports, since URLSession reports `cancelled` on its own.
@Suite(.serialized)
struct ServingLifecycleTests {
    static let bigSize = 3 * 1024 * 1024 + 5

    static func makeBundle(_ folder: TemporaryFolder) throws -> URL {
        let bundle = try folder.bundle("life", ["stubsRules.json": """
        { "host": "life.test", "rules": [
          { "path": "/big", "response": "big.bin" },
          { "path": "/slow", "delay": 30, "body": "never" },
          { "path": "/quick-delay", "delay": 0.005, "body": "done" },
          { "path": "/drip", "body": "\(String(repeating: "d", count: 40_000))", "throttle": 4000 }
        ] }
        """])
        var big = Data(count: bigSize)
        big.withUnsafeMutableBytes { for i in 0..<$0.count { $0[i] = UInt8(truncatingIfNeeded: i &* 7) } }
        try big.write(to: bundle.appendingPathComponent("big.bin"))
        return bundle
    }

    /// Checks the log: for every load, no client call after its stop or after its final call, and at most
    /// one final call.
    static func expectNoLateCalls(_ records: [ClientCallLog.Record], sourceLocation: SourceLocation = #_sourceLocation) {
        // An empty log means the loads were not logged at all (logging off, another engine), not that
        // they behaved: the check below would pass on nothing.
        #expect(records.contains { $0.event == .started }, "the client-call log saw no load start", sourceLocation: sourceLocation)
        #expect(records.contains { $0.event == .finalCall || $0.event == .stopped }, "the client-call log saw no load end", sourceLocation: sourceLocation)
        var stopped = Set<Int>()
        var finished = Set<Int>()
        for record in records {
            switch record.event {
            case .started: break
            case .stopped: stopped.insert(record.load)
            case .call, .finalCall:
                #expect(!stopped.contains(record.load), "client call after stopLoading (load \(record.load))", sourceLocation: sourceLocation)
                #expect(!finished.contains(record.load), "client call after the load finished (load \(record.load))", sourceLocation: sourceLocation)
                if record.event == .finalCall { finished.insert(record.load) }
            }
        }
    }

    @Test("a delegate that cancels mid-stream: no hang, at most one chunk after the cancel, the task ends cancelled")
    func cancelMidStream() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: Self.makeBundle(folder))
        let canceller = CancellingDelegate { chunks, _ in chunks == 1 }
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: canceller, delegateQueue: nil)
        ClientCallLog.start()
        let error = await canceller.run(URL(string: "https://life.test/big")!, on: session)
        // The stop is journalled when stopLoading runs; wait for it rather than for time to pass.
        try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/big"), timeout: 10)
        let records = ClientCallLog.finish()
        #expect((error as? URLError)?.code == .cancelled)
        let totalChunks = (Self.bigSize + StubURLProtocol.streamingChunkSize - 1) / StubURLProtocol.streamingChunkSize
        // Cancel means stop: the delegate cancelled in its first chunk's didReceive, and the completion
        // comes behind every chunk on its queue, so this counts all that arrived after the cancel.
        #expect(canceller.chunks - 1 <= 1, "\(canceller.chunks - 1) chunks arrived after the cancel")
        #expect(canceller.chunks < totalChunks)
        #expect(records.contains { $0.event == .stopped })
        Self.expectNoLateCalls(records)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.error?.code == URLError.cancelled.rawValue)
    }

    @Test("a delayed response cancelled before its delay: stopped at the protocol, journalled at once, engine freed")
    func cancelDelayed() async throws {
        final class WeakBox: @unchecked Sendable { weak var engine: StubEngine? }
        let weak = WeakBox()
        let folder = try TemporaryFolder()
        do {
            let engine = StubEngine()
            weak.engine = engine
            try engine.activate(folder: Self.makeBundle(folder))
            let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
            ClientCallLog.start()
            let result: URLError? = await withCheckedContinuation { continuation in
                let task = session.dataTask(with: URL(string: "https://life.test/slow")!) { _, _, error in
                    continuation.resume(returning: error as? URLError)
                }
                task.resume()
                task.cancel()
            }
            #expect(result?.code == .cancelled)
            // The delay is 30 s: the entry arrives now only if stopLoading really stopped the load.
            try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/slow"), timeout: 5)
            let records = ClientCallLog.finish()
            let entry = try #require(engine.journal.entries.first)
            #expect(entry.error?.code == URLError.cancelled.rawValue)
            #expect(entry.status == nil)
            Self.expectNoLateCalls(records)
            #expect(!records.contains { $0.event == .call || $0.event == .finalCall })
            engine.unregister()
            session.finishTasksAndInvalidate()
        }
        // Nothing (a pending timer, a work item, a cycle) may keep the engine for the 30 s delay.
        let released = await Eventually.becomesTrue(within: 5) { weak.engine == nil }
        #expect(released, "the engine is still alive after the cancelled delayed request")
    }

    // FoundationNetworking can queue a cancelled task's stopLoading ahead of its startLoading (while the
    // protocol waits for the URL cache); the stress test caught it as a request journalled too late.
    @Test("stopLoading before startLoading: the load never calls the client and is journalled as cancelled at once")
    func stopBeforeStart() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: Self.makeBundle(folder))
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        defer { session.finishTasksAndInvalidate() }
        let client = RecordingProtocolClient()
        for path in ["/quick-delay", "/drip", "/big"] {
            let instance = StubURLProtocol.protocolClass(for: engine).init(request: URLRequest(url: URL(string: "https://life.test\(path)")!), cachedResponse: nil, client: client)
            instance.stopLoading()
            instance.startLoading()
            instance.stopLoading()
        }
        #expect(client.calls.withLock { $0 } == [])
        let entries = engine.journal.entries
        #expect(entries.map(\.request.url.path) == ["/quick-delay", "/drip", "/big"])
        #expect(entries.allSatisfy { $0.error?.code == URLError.cancelled.rawValue && $0.status == nil })
    }

    // FoundationNetworking's suspend() stops a load and resume() starts the same protocol again; when
    // the stop overtook the first start, the second start must still answer, or the task never ends.
    @Test("a start after a load stopped before it started answers the request")
    func startAgainAfterStopBeforeStart() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: Self.makeBundle(folder))
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        defer { session.finishTasksAndInvalidate() }
        let client = RecordingProtocolClient()
        let instance = StubURLProtocol.protocolClass(for: engine).init(request: URLRequest(url: URL(string: "https://life.test/big")!), cachedResponse: nil, client: client)
        instance.stopLoading()
        instance.startLoading()
        #expect(client.calls.withLock { $0 } == [])
        // With no task the body goes in one piece, within startLoading.
        instance.startLoading()
        #expect(client.calls.withLock { $0 } == ["response", "data", "finish"])
        #expect(engine.journal.entries.map { $0.status } == [nil, 200])
    }

    @Test("500 requests with a 5 ms delay on one session: every task completes once, no late client call")
    func manyDelayedRequests() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: Self.makeBundle(folder))
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        ClientCallLog.start()
        let completions = Locked([Int: Int]())
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<500 {
                group.addTask {
                    let result = await session.result("GET", "https://life.test/quick-delay")
                    completions.withLock { $0[i, default: 0] += 1 }
                    #expect(result.text == "done")
                }
            }
        }
        let records = ClientCallLog.finish()
        #expect(completions.withLock { $0.count } == 500)
        #expect(completions.withLock { $0.values.allSatisfy { $0 == 1 } })
        #expect(engine.journal.entries.count == 500)
        Self.expectNoLateCalls(records)
    }

    @Test("a throttled body cancelled half-way stops dripping: no chunk after the stop")
    func cancelThrottled() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try engine.activate(folder: Self.makeBundle(folder))
        let dripper = CancellingDelegate { _, bytes in bytes >= 2000 }
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: dripper, delegateQueue: nil)
        ClientCallLog.start()
        let error = await dripper.run(URL(string: "https://life.test/drip")!, on: session)
        try await engine.journal.waitForRequests(matching: RequestPredicate(path: "/drip"), timeout: 10)
        let records = ClientCallLog.finish()
        #expect((error as? URLError)?.code == .cancelled)
        #expect(dripper.bytes < 40_000)
        Self.expectNoLateCalls(records)
    }
}
}
