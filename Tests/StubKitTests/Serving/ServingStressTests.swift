import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Many requests of every kind over several sessions, cancelled at random points: every task completes
/// exactly once, no client call follows a stop, the journal sees every request, the engine is freed.
@Suite(.serialized)
struct ServingStressTests {
    /// `STUBKIT_STRESS_SEED` repeats a run; `STUBKIT_STRESS_REQUESTS` changes its size (default 10,000).
    static let seed = UInt64(ProcessInfo.processInfo.environment["STUBKIT_STRESS_SEED"] ?? "") ?? 20_261_123
    static let requestCount = Int(ProcessInfo.processInfo.environment["STUBKIT_STRESS_REQUESTS"] ?? "") ?? 10_000

    static let paths = ["/now", "/delayed", "/throttled", "/big", "/error", "/redirect", "/sequence", "/template"]

    /// Counts completions per request, for both completion handlers and session delegates.
    final class Completions: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [Int: Int] = [:]
        private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]

        func expect(_ id: Int, _ continuation: CheckedContinuation<Void, Never>) {
            lock.lock(); waiters[id] = continuation; lock.unlock()
        }

        func completed(_ id: Int) {
            lock.lock()
            counts[id, default: 0] += 1
            let waiter = waiters.removeValue(forKey: id)
            lock.unlock()
            waiter?.resume()
        }

        var snapshot: [Int: Int] { lock.lock(); defer { lock.unlock() }; return counts }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            if let id = task.originalRequest?.value(forHTTPHeaderField: "X-Stress-ID").flatMap(Int.init) { completed(id) }
        }
    }

    @Test("10,000 mixed requests over 8 sessions with random cancellation: exactly one completion each, no late client call, all journalled, engine freed")
    func stress() async throws {
        print("ServingStressTests: seed \(Self.seed), \(Self.requestCount) requests (STUBKIT_STRESS_SEED to repeat)")
        final class WeakBox: @unchecked Sendable { weak var engine: StubEngine? }
        let weak = WeakBox()
        let folder = try TemporaryFolder()
        let completions = Completions()
        do {
            let bundle = try folder.bundle("stress", ["stubsRules.json": """
            { "host": "stress.test", "rules": [
              { "path": "/now", "body": "now" },
              { "path": "/delayed", "delay": 0.003, "body": "later" },
              { "path": "/throttled", "body": "\(String(repeating: "t", count: 2000))", "throttle": 16000 },
              { "path": "/big", "response": "big.bin" },
              { "path": "/error", "error": "timedOut" },
              { "path": "/redirect", "status": 302, "headers": { "Location": "/now" } },
              { "path": "/sequence", "responses": [ { "body": "a" }, { "body": "b" } ], "afterLast": "cycle" },
              { "path": "/template", "template": true, "json": { "q": "{{query.q}}", "n": "{{hit}}" } }
            ] }
            """])
            try Data(count: 300 * 1024).write(to: bundle.appendingPathComponent("big.bin"))
            let engine = StubEngine(journalLimits: StubJournal.Limits(maximumEntries: 1_000_000, maximumBodySize: 64))
            weak.engine = engine
            try engine.activate(folder: bundle)
            // Four sessions take data through a delegate (streamed bodies), four through completion handlers.
            let sessions = (0..<8).map { i in
                URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: i < 4 ? completions : nil, delegateQueue: nil)
            }
            var random = SeededGenerator(seed: Self.seed)
            let plan = (0..<Self.requestCount).map { _ in
                (path: Self.paths[Int(random.next() % UInt64(Self.paths.count))], session: Int(random.next() % 8),
                 cancel: random.next() % 5 == 0, cancelAfterMicroseconds: Int(random.next() % 3000))
            }

            ClientCallLog.start()
            let inFlight = 64
            await withTaskGroup(of: Void.self) { group in
                for (id, step) in plan.enumerated() {
                    if id >= inFlight { await group.next() }
                    group.addTask {
                        var request = URLRequest(url: URL(string: "https://stress.test\(step.path)?q=%22\(id)")!)
                        request.setValue(String(id), forHTTPHeaderField: "X-Stress-ID")
                        let session = sessions[step.session]
                        await withCheckedContinuation { continuation in
                            completions.expect(id, continuation)
                            let task: URLSessionDataTask
                            if step.session < 4 {
                                task = session.dataTask(with: request)
                            } else {
                                task = session.dataTask(with: request) { _, _, _ in completions.completed(id) }
                            }
                            task.resume()
                            if step.cancel {
                                DispatchQueue.global().asyncAfter(deadline: .now() + .microseconds(step.cancelAfterMicroseconds)) { task.cancel() }
                            }
                        }
                    }
                }
            }
            // A load journals before its last client call, and a stopped one in stopLoading, before
            // FoundationNetworking completes the task: by now every request is in the journal.
            let journalled = Set(engine.journal.entries.compactMap { $0.request.header("X-Stress-ID").flatMap(Int.init) })
            let missing = plan.indices.filter { !journalled.contains($0) }.prefix(5).map { "#\($0) \(plan[$0])" }
            #expect(journalled.count == Self.requestCount, "seed \(Self.seed): \(Self.requestCount - journalled.count) requests missing from the journal, such as \(missing)")
            let records = ClientCallLog.finish()
            ServingLifecycleTests.expectNoLateCalls(records)
            let counts = completions.snapshot
            #expect(counts.count == Self.requestCount, "seed \(Self.seed): some tasks never completed")
            #expect(counts.values.allSatisfy { $0 == 1 }, "seed \(Self.seed): a task completed more than once")
            #expect(records.contains { $0.event == .stopped })
            for session in sessions { session.finishTasksAndInvalidate() }
            engine.unregister()
        }
        let released = await Eventually.becomesTrue(within: 10) { weak.engine == nil }
        #expect(released, "seed \(Self.seed): the engine is still alive after unregister()")
    }
}
}
