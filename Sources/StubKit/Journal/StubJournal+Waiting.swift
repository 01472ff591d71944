import Foundation

/// Waiting for requests, and checking that none arrives: woken by the entry that settles it (inside
/// `record`), never by polling. An async wait also ends as soon as its task is cancelled.
extension StubJournal {
    /// Waits until `count` requests matching `predicate` have been seen (counting those already seen).
    ///
    /// - Throws: ``VerificationError`` after `timeout` seconds, listing what was seen instead, or as
    ///   soon as the waiting task is cancelled.
    public func waitForRequests(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) async throws(VerificationError) {
        try await waitForRequests(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    /// ``waitForRequests(matching:count:timeout:)`` that calls `whenArmed` once the wait is registered,
    /// so a test can prove that a later request wakes it (rather than being found by the first check).
    package func waitForRequests(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                 whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        let expected = "\(count) request\(count == 1 ? "" : "s") matching \(predicate) within \(timeout) s"
        switch await wait(matching: predicate, count: count, timeout: timeout, whenArmed: whenArmed) {
        case .arrived: return
        case .timedOut: throw VerificationError(failure(expected: expected, predicate: predicate))
        case .cancelled: throw VerificationError("cancelled: " + failure(expected: expected, predicate: predicate))
        }
    }

    /// The blocking form of ``waitForRequests(matching:count:timeout:)``, for XCTest and UI test code
    /// that is not async. Sleeps on a semaphore that the matching request signals.
    public func waitForRequestsBlocking(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) throws(VerificationError) {
        try waitForRequestsBlocking(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    /// ``waitForRequestsBlocking(matching:count:timeout:)`` that calls `whenArmed` once the wait is registered.
    package func waitForRequestsBlocking(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                         whenArmed: (@Sendable () -> Void)?) throws(VerificationError) {
        let id = UUID()
        let semaphore = DispatchSemaphore(value: 0)
        let satisfied = register(Waiter(id: id, predicate: predicate, count: count, notify: { semaphore.signal() }))
        whenArmed?()
        if satisfied { return }
        let result = semaphore.wait(timeout: .now() + timeout)
        removeWaiter(id)
        if result == .timedOut {
            throw VerificationError(failure(expected: "\(count) request\(count == 1 ? "" : "s") matching \(predicate) within \(timeout) s", predicate: predicate))
        }
    }

    /// Checks that no request matching `predicate` arrives within `period` seconds (nor has arrived).
    /// Fails as soon as one does, or as soon as the checking task is cancelled (the check is then not done).
    public func expectNoRequests(matching predicate: RequestPredicate, within period: TimeInterval) async throws(VerificationError) {
        try await expectNoRequests(matching: predicate, within: period, whenArmed: nil)
    }

    /// ``expectNoRequests(matching:within:)`` that calls `whenArmed` once the check is registered.
    package func expectNoRequests(matching predicate: RequestPredicate, within period: TimeInterval,
                                  whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        if !entries(matching: predicate).isEmpty {
            throw VerificationError(failure(expected: "no request matching \(predicate)", predicate: predicate))
        }
        let expected = "no request matching \(predicate) within \(period) s"
        switch await wait(matching: predicate, count: 1, timeout: period, whenArmed: whenArmed) {
        case .timedOut: return // Nothing arrived: what was wanted.
        case .arrived: throw VerificationError(failure(expected: expected, predicate: predicate))
        case .cancelled: throw VerificationError("cancelled: " + failure(expected: expected, predicate: predicate))
        }
    }

    /// The blocking form of ``expectNoRequests(matching:within:)``, for test code that is not async.
    public func expectNoRequestsBlocking(matching predicate: RequestPredicate, within period: TimeInterval) throws(VerificationError) {
        try expectNoRequestsBlocking(matching: predicate, within: period, whenArmed: nil)
    }

    /// ``expectNoRequestsBlocking(matching:within:)`` that calls `whenArmed` once the check is registered.
    package func expectNoRequestsBlocking(matching predicate: RequestPredicate, within period: TimeInterval,
                                          whenArmed: (@Sendable () -> Void)?) throws(VerificationError) {
        if !entries(matching: predicate).isEmpty {
            throw VerificationError(failure(expected: "no request matching \(predicate)", predicate: predicate))
        }
        do {
            try waitForRequestsBlocking(matching: predicate, count: 1, timeout: period, whenArmed: whenArmed)
        } catch {
            return // Nothing arrived: what was wanted.
        }
        throw VerificationError(failure(expected: "no request matching \(predicate) within \(period) s", predicate: predicate))
    }

    /// How an async wait ended.
    private enum WaitOutcome: Sendable {
        case arrived, timedOut, cancelled
    }

    /// Waits for `count` matching entries, the timeout, or the task's cancellation, whichever comes first.
    /// The error type is fixed by the public API (`throws(VerificationError)`), so a cancelled wait is
    /// told apart by its outcome rather than by throwing `CancellationError`.
    private func wait(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                      whenArmed: (@Sendable () -> Void)?) async -> WaitOutcome {
        let id = UUID()
        let gate = OneShot<WaitOutcome>()
        let satisfied = register(Waiter(id: id, predicate: predicate, count: count, notify: { gate.fire(.arrived) }))
        whenArmed?()
        if satisfied { return .arrived }
        let timer = DispatchWorkItem { gate.fire(.timedOut) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        // Run at once when the task is already cancelled: the gate then holds `.cancelled` before it is awaited.
        let outcome = await withTaskCancellationHandler {
            await gate.value()
        } onCancel: {
            gate.fire(.cancelled)
        }
        timer.cancel()
        removeWaiter(id)
        return outcome
    }

    /// What a failed wait says: what was expected, then the requests seen (the last ten).
    private func failure(expected: String, predicate: RequestPredicate) -> String {
        let all = entries
        var text = "expected \(expected); "
        let matching = all.filter(predicate.matches)
        if !matching.isEmpty { text += "\(matching.count) matched; " }
        if all.isEmpty {
            text += "no request was seen"
        } else {
            text += "seen instead: " + all.suffix(10).map(\.summary).joined(separator: "; ")
            if all.count > 10 { text += " (and \(all.count - 10) earlier)" }
        }
        return text
    }
}

/// A value set once (the first `fire` wins), awaited by one task.
private struct OneShot<Value: Sendable>: Sendable {
    private struct State {
        var result: Value?
        var continuation: CheckedContinuation<Value, Never>?
    }

    private let state = Locked(State())

    func fire(_ value: Value) {
        let waiting = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard state.result == nil else { return nil }
            state.result = value
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: value)
    }

    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state in
                if state.result == nil { state.continuation = continuation }
                return state.result
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}
