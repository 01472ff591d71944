import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubLoad {
    /// Sends a rule's Server-Sent Events after the response head (see ``EventStreamSender``) and
    /// journals the stream once, when it ends: here when the last event is sent, or in `stop()`, with
    /// the events sent by then, when the app leaves it first (always so for `keepOpen`).
    func sendEvents(_ events: PreparedEvents, match: StubMatch, stubRequest: StubRequest, headers: [String: String]) {
        progress.withLock { $0.streamed = BodyStreamer.Sent() }
        let chunkSize = StubURLProtocol.chunkSize(for: task)
        let sender = EventStreamSender(
            events: events, executor: executor, task: task, delegateQueue: StubURLProtocol.delegateQueue(of: task),
            onePiece: chunkSize == Int.max, keepLimit: engine.journal.limits.maximumBodySize,
            now: { [engine] in engine.now },
            moveScenario: { [engine] scenario, state in engine.setScenarioState(scenario, to: state) },
            progressed: { [progress] sent in progress.withLock { $0.streamed = sent } },
            end: { [weak self] sent in
                guard let self else { return }
                self.record(stubRequest, match: match, status: match.response.status, headers: headers, body: sent.kept,
                            bodySize: sent.count, truncated: sent.truncated, final: true)
                self.executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
            })
        sender.start()
    }
}
