import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hands a rule's Server-Sent Events to the client on the load's context, each as its own `didLoad`
/// once its delay has passed, then ends the stream, or keeps it open until `stopLoading` (`keepOpen`).
///
/// - Each event is rendered when it is due (`{{now}}` is the time it is sent) and moves the rule's
///   scenario (`setState`) in the same step as it is handed over, before the client can see it: an app
///   that reacts to the event by asking another endpoint finds the new state.
/// - Back-pressure (Linux, where the session's delegate queue is known): after each event a marker
///   operation is queued on the delegate queue behind it, and the next event's delay starts when the
///   marker runs, so a delegate that cancels in `didReceive` gets no later event.
/// - One piece (`onePiece`, tasks that FoundationNetworking hands only their last `didLoad`: completion
///   handlers): the events are gathered as they fall due (each moving the scenario then) and handed
///   over in one `didLoad` at the end, which is all such a task can see anyway; the journal counts
///   them as sent only then, so a task cancelled before the end is journalled with none.
/// - Cancel means stop: a step of a task that is being cancelled, or of a stopped load, sends nothing.
///
/// All state is touched only on the load's context, one step at a time.
final class EventStreamSender: @unchecked Sendable {
    private let events: PreparedEvents
    private let executor: LoadExecutor
    private weak var task: URLSessionTask?
    private let delegateQueue: OperationQueue?
    private let onePiece: Bool
    private let keepLimit: Int
    private let now: () -> Date
    private let moveScenario: (_ scenario: String, _ state: String) -> Void
    private let progressed: (BodyStreamer.Sent) -> Void
    private let end: (BodyStreamer.Sent) -> Void
    private var sent = BodyStreamer.Sent()
    private var gathered = Data()

    /// - Parameters:
    ///   - now: the time templates see, read when each event is sent.
    ///   - moveScenario: applies an event's `setState`.
    ///   - progressed: what was sent so far, after each event, inside the client call (a stop that
    ///     follows sees it).
    ///   - end: called after the last event, unless the stream stays open; the caller finishes the load.
    init(events: PreparedEvents, executor: LoadExecutor, task: URLSessionTask?, delegateQueue: OperationQueue?, onePiece: Bool,
         keepLimit: Int, now: @escaping () -> Date, moveScenario: @escaping (_ scenario: String, _ state: String) -> Void,
         progressed: @escaping (BodyStreamer.Sent) -> Void, end: @escaping (BodyStreamer.Sent) -> Void) {
        self.events = events
        self.executor = executor
        self.task = task
        self.delegateQueue = onePiece ? nil : delegateQueue
        self.onePiece = onePiece
        self.keepLimit = keepLimit
        self.now = now
        self.moveScenario = moveScenario
        self.progressed = progressed
        self.end = end
    }

    /// Starts on the load's context, after the response head was handed over.
    func start() {
        schedule(0)
    }

    /// Waits out event `index`'s delay, then sends it; after the last event, ends the stream.
    private func schedule(_ index: Int) {
        guard index < events.count else {
            finish()
            return
        }
        executor.after(events.delay(before: index)) { [self] in send(index) }
    }

    private func send(_ index: Int) {
        guard !executor.isOver, task?.state != .canceling else { return }
        let bytes = events.bytes(of: index, now: now())
        if onePiece {
            // The scenario moves when the event falls due, as for any task; the journal lists the
            // event only once the client has it (at the end), so a task cancelled before then shows none.
            moveScenario(after: index)
            gathered.append(bytes)
            schedule(index + 1)
            return
        }
        var handed = false
        executor.withClient { client, instance in
            step(index, bytes)
            client.urlProtocol(instance, didLoad: bytes)
            handed = true
        }
        guard handed else { return }
        if let delegateQueue {
            delegateQueue.addOperation { [executor, self] in
                executor.perform { self.schedule(index + 1) }
            }
        } else {
            schedule(index + 1)
        }
    }

    /// Moves the scenario and notes the event as sent.
    private func step(_ index: Int, _ bytes: Data) {
        moveScenario(after: index)
        noteSent(bytes)
    }

    private func moveScenario(after index: Int) {
        if let move = events.newState(after: index) { moveScenario(move.scenario, move.state) }
    }

    /// Notes bytes handed to the client, inside the client call, for the journal.
    private func noteSent(_ bytes: Data) {
        sent.append(bytes, keepLimit: keepLimit)
        progressed(sent)
    }

    private func finish() {
        if onePiece && !gathered.isEmpty {
            let whole = gathered
            gathered = Data()
            executor.withClient { client, instance in
                noteSent(whole)
                client.urlProtocol(instance, didLoad: whole)
            }
        }
        // An open stream ends when the app leaves it: `stopLoading` journals it.
        guard !events.keepsOpen else { return }
        end(sent)
    }
}
