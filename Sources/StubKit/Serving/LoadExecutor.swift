import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs every client call of one load in the context that called `startLoading`, and none after
/// `stopLoading` or after the load has finished.
///
/// Apple requires every `URLProtocolClient` call to come from the thread that called `startLoading`,
/// and none after `stopLoading`; a late call is the classic intermittent crash of custom protocols.
/// So work that happens later (after a delay, between chunks of a large body, when a forwarded
/// response arrives) is scheduled back onto that context:
///
/// - **Apple platforms**: the run loop of the thread that called `startLoading` (the loading system's
///   protocol thread), as OHHTTPStubs does, with `CFRunLoopPerformBlock`.
/// - **Linux**: FoundationNetworking calls `startLoading` and `stopLoading` on the task's serial work
///   queue; deferred work goes there too (found by reflection, only when something is deferred), or,
///   if it cannot be found, on a private serial queue.
///
/// Either way every client call is made under one recursive lock that ``stop()`` also takes, so "not
/// stopped" is checked and the call is made as one step: a stop on another thread waits for a call in
/// progress and every call after it sees the stop. The lock is recursive because a client call may
/// lead the loading system to call `stopLoading` on the same thread.
final class LoadExecutor: @unchecked Sendable {
    // `instance`, `context` and `timer` are guarded by `lock`; `context` is set once, lazily.
    private let lock = RecursiveLock()
    private weak var instance: URLProtocol?
    private var stopped = false
    private var finished = false
    private var timer: (any DispatchSourceTimer)?
    private let id: Int
    #if canImport(FoundationNetworking)
    private weak var task: URLSessionTask?
    private var queue: DispatchQueue?
    #else
    private let runLoop: CFRunLoop
    /// The common modes and the mode the protocol thread was running in at `startLoading` (it may
    /// run a private mode, as Apple's CustomHTTPProtocol sample warns).
    private let modes: CFArray
    #endif

    /// Must be called on the thread (queue) that is running `startLoading`.
    init(instance: URLProtocol, task: URLSessionTask?) {
        self.instance = instance
        self.id = ClientCallLog.nextLoadID()
        #if canImport(FoundationNetworking)
        self.task = task
        #else
        self.runLoop = CFRunLoopGetCurrent()
        var modes: [CFString] = [CFRunLoopMode.commonModes.rawValue]
        if let current = CFRunLoopCopyCurrentMode(runLoop), current != CFRunLoopMode.commonModes {
            modes.append(current.rawValue)
        }
        self.modes = modes as CFArray
        #endif
        ClientCallLog.record(.started, load: id)
    }

    /// Whether the load has been stopped or has finished: nothing more will reach the client.
    var isOver: Bool {
        lock.withLock { stopped || finished }
    }

    /// Whether the last client call was made (as opposed to the load being stopped first).
    var hasFinished: Bool {
        lock.withLock { finished }
    }

    /// Calls the client, unless the load was stopped or has finished. Call only from the load's context
    /// (in `startLoading`, or inside ``perform(_:)`` / ``after(_:_:)``). `ends` marks the last call
    /// (finished or failed): nothing is delivered after it.
    func withClient(ends: Bool = false, _ call: (any URLProtocolClient, URLProtocol) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, !finished, let instance, let client = instance.client else { return }
        if ends { finished = true }
        ClientCallLog.record(ends ? .finalCall : .call, load: id)
        call(client, instance)
        if ends { cancelTimer() }
    }

    /// Marks the load finished without a client call (a task that completed before its load started).
    func abandon() {
        lock.withLock {
            finished = true
            cancelTimer()
        }
    }

    /// Marks the load stopped (from `stopLoading`): cancels the pending timer; no client call follows.
    /// - Returns: whether the load was still going (neither finished nor stopped before).
    @discardableResult
    func stop() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        ClientCallLog.record(.stopped, load: id)
        let wasRunning = !stopped && !finished
        stopped = true
        cancelTimer()
        return wasRunning
    }

    /// Runs `body` later on the load's context, unless the load is over by then.
    func perform(_ body: @escaping @Sendable () -> Void) {
        schedule { [self] in
            guard !isOver else { return }
            body()
        }
    }

    /// Runs `body` later on the load's context even when the load is over: work that reaches no
    /// client (a stopped load's recording). What was scheduled before it runs (or is skipped) first.
    func performEvenWhenOver(_ body: @escaping @Sendable () -> Void) {
        schedule(body)
    }

    /// Puts `work` on the load's context: the system call, and the only part that differs by platform.
    private func schedule(_ work: @escaping @Sendable () -> Void) {
        #if canImport(FoundationNetworking)
        context().async(execute: work)
        #else
        CFRunLoopPerformBlock(runLoop, modes, work)
        CFRunLoopWakeUp(runLoop)
        #endif
    }

    /// Where timers fire: the task's work queue on Linux, whence ``perform(_:)`` stays on it; on Apple
    /// platforms a global queue, whence ``perform(_:)`` hops to the protocol thread's run loop.
    private func timerQueue() -> DispatchQueue {
        #if canImport(FoundationNetworking)
        return context()
        #else
        return .global()
        #endif
    }

    /// Runs `body` on the load's context after `seconds`, unless the load is over by then. One timer
    /// per load at a time; ``stop()`` cancels it, which releases what it holds at once.
    func after(_ seconds: TimeInterval, _ body: @escaping @Sendable () -> Void) {
        guard seconds > 0 else {
            perform(body)
            return
        }
        // A source that is made and never resumed traps when it is released: make none for a load
        // that is over (the check is repeated under the lock below, where the source is resumed or
        // cancelled after resuming).
        guard !isOver else { return }
        let source = DispatchSource.makeTimerSource(queue: timerQueue())
        source.setEventHandler { [weak self] in
            guard let self, !self.isOver else { return }
            self.lock.withLock { self.timer = nil }
            self.perform(body)
        }
        source.schedule(deadline: .now() + seconds)
        lock.withLock {
            source.resume()
            guard !stopped, !finished else {
                source.cancel()
                return
            }
            timer?.cancel()
            timer = source
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    /// Finds the context now, on the thread that runs `startLoading`, before work arrives from
    /// elsewhere (the forwarder's queue): reflection over the task must not race its own queue.
    func prepareContext() {
        #if canImport(FoundationNetworking)
        _ = context()
        #endif
    }

    #if canImport(FoundationNetworking)
    /// The task's work queue (where FoundationNetworking calls start and stop), found once.
    private func context() -> DispatchQueue {
        lock.withLock {
            if let queue { return queue }
            let found = FoundationNetworkingInspection.workQueue(of: task)
                ?? DispatchQueue(label: "StubKit.load")
            queue = found
            return found
        }
    }
    #endif
}

/// A record of client calls and stops per load, switched on by tests only: the independent witness
/// that no client call follows `stopLoading`. Off, it costs one uncontended lock per event.
enum ClientCallLog {
    enum Event: Sendable, Equatable {
        case started, call, finalCall, stopped
    }

    struct Record: Sendable {
        var load: Int
        var event: Event
    }

    private static let state = Locked<(enabled: Bool, records: [Record], nextID: Int)>((false, [], 1))

    static func nextLoadID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    static func record(_ event: Event, load: Int) {
        state.withLock { state in
            if state.enabled { state.records.append(Record(load: load, event: event)) }
        }
    }

    /// Starts recording (clearing what was recorded before).
    static func start() {
        state.withLock { $0.enabled = true; $0.records = [] }
    }

    /// Stops recording and returns the records, in the order the events happened.
    static func finish() -> [Record] {
        state.withLock { state in
            state.enabled = false
            defer { state.records = [] }
            return state.records
        }
    }
}
