import Foundation

/// Every request the engine answered or refused, in order, safe under concurrent requests.
///
/// Tests wait on it instead of sleeping: ``waitForRequests(matching:count:timeout:)`` returns as soon as
/// the requests have been seen (woken by each new entry, never by polling), and
/// ``expectNoRequests(matching:within:)`` fails as soon as a forbidden one arrives.
public final class StubJournal: Sendable {
    private let state = Locked(State())

    private struct State {
        var entries: [JournalEntry] = []
        var nextID = 1
        var waiters: [Waiter] = []
    }

    /// Someone waiting for `count` entries that satisfy `predicate`.
    private struct Waiter {
        let id: UUID
        let predicate: RequestPredicate
        let count: Int
        let notify: @Sendable () -> Void
    }

    public init() {}

    /// All entries, oldest first.
    public var entries: [JournalEntry] {
        state.withLock { $0.entries }
    }

    public func clear() {
        state.withLock { $0.entries = [] }
    }

    /// Adds an entry and wakes whoever waits for it.
    func record(_ make: (Int) -> JournalEntry) {
        let toNotify: [@Sendable () -> Void] = state.withLock { state in
            let entry = make(state.nextID)
            state.nextID += 1
            state.entries.append(entry)
            var ready: [@Sendable () -> Void] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate.matches(entry) else { return false }
                let seen = state.entries.lazy.filter { waiter.predicate.matches($0) }.count
                guard seen >= waiter.count else { return false }
                ready.append(waiter.notify)
                return true
            }
            return ready
        }
        for notify in toNotify { notify() }
    }

    /// The entries a predicate accepts.
    public func entries(matching predicate: RequestPredicate) -> [JournalEntry] {
        state.withLock { $0.entries.filter(predicate.matches) }
    }

    // MARK: Waiting

    /// Waits until `count` requests matching `predicate` have been seen (counting those already seen).
    ///
    /// - Throws: ``VerificationError`` after `timeout` seconds, listing what was seen instead.
    public func waitForRequests(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) async throws(VerificationError) {
        let id = UUID()
        let gate = OneShot()
        let satisfied: Bool = state.withLock { state in
            if state.entries.lazy.filter({ predicate.matches($0) }).count >= count { return true }
            state.waiters.append(Waiter(id: id, predicate: predicate, count: count, notify: { gate.fire(true) }))
            return false
        }
        if satisfied { return }
        let timer = DispatchWorkItem { gate.fire(false) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let arrived = await gate.value()
        timer.cancel()
        state.withLock { $0.waiters.removeAll { $0.id == id } }
        if !arrived {
            throw VerificationError(failure(expected: "\(count) request\(count == 1 ? "" : "s") matching \(predicate) within \(timeout) s", predicate: predicate))
        }
    }

    /// The blocking form of ``waitForRequests(matching:count:timeout:)``, for XCTest and UI test code
    /// that is not async. Sleeps on a semaphore that the matching request signals.
    public func waitForRequestsBlocking(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) throws(VerificationError) {
        let id = UUID()
        let semaphore = DispatchSemaphore(value: 0)
        let satisfied: Bool = state.withLock { state in
            if state.entries.lazy.filter({ predicate.matches($0) }).count >= count { return true }
            state.waiters.append(Waiter(id: id, predicate: predicate, count: count, notify: { semaphore.signal() }))
            return false
        }
        if satisfied { return }
        let result = semaphore.wait(timeout: .now() + timeout)
        state.withLock { $0.waiters.removeAll { $0.id == id } }
        if result == .timedOut {
            throw VerificationError(failure(expected: "\(count) request\(count == 1 ? "" : "s") matching \(predicate) within \(timeout) s", predicate: predicate))
        }
    }

    /// Checks that no request matching `predicate` arrives within `period` seconds (nor has arrived).
    /// Fails as soon as one does.
    public func expectNoRequests(matching predicate: RequestPredicate, within period: TimeInterval) async throws(VerificationError) {
        let before = entries(matching: predicate).count
        if before > 0 {
            throw VerificationError(failure(expected: "no request matching \(predicate)", predicate: predicate))
        }
        do {
            try await waitForRequests(matching: predicate, count: 1, timeout: period)
        } catch {
            return // Nothing arrived: what was wanted.
        }
        throw VerificationError(failure(expected: "no request matching \(predicate) within \(period) s", predicate: predicate))
    }

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

/// A value set once, awaited by one task.
private final class OneShot: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Bool?
    private var continuation: CheckedContinuation<Bool, Never>?

    func fire(_ value: Bool) {
        lock.lock()
        guard result == nil else { lock.unlock(); return }
        result = value
        let waiting = continuation
        continuation = nil
        lock.unlock()
        waiting?.resume(returning: value)
    }

    func value() async -> Bool {
        await withCheckedContinuation { continuation in
            lock.lock()
            if let result {
                lock.unlock()
                continuation.resume(returning: result)
            } else {
                self.continuation = continuation
                lock.unlock()
            }
        }
    }
}

/// A failed wait or verification, with what was seen instead.
public struct VerificationError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let description: String
    init(_ description: String) { self.description = description }
    public var errorDescription: String? { description }
}

/// Which journal entries a wait or check is about: method, path pattern, host, query, headers — the
/// same conditions rules use.
public struct RequestPredicate: Sendable, CustomStringConvertible {
    public var conditions: RequestConditions
    /// Only answered requests (`true`), only unanswered ones (`false`), or both (`nil`).
    public var answered: Bool?

    public init(conditions: RequestConditions, answered: Bool? = nil) {
        self.conditions = conditions
        self.answered = answered
    }

    /// `RequestPredicate("POST", path: "/orders")`. A path that is not a valid pattern is a programming error.
    public init(_ method: String? = nil, path: String? = nil, host: String? = nil, answered: Bool? = nil) {
        var conditions = RequestConditions(methods: method.map { [$0.uppercased()] }, host: host?.lowercased())
        if let path {
            do {
                conditions.path = try PathPattern(parsing: path)
            } catch {
                preconditionFailure("RequestPredicate: invalid path pattern '\(path)': \(error.message)")
            }
        }
        self.init(conditions: conditions, answered: answered)
    }

    /// Any request.
    public static let any = RequestPredicate()

    func matches(_ entry: JournalEntry) -> Bool {
        if let answered, answered != (entry.rule != nil) { return false }
        return RequestMatcher.matches(conditions, entry.request)
    }

    public var description: String {
        var parts: [String] = [conditions.methodsDescription]
        if let host = conditions.host { parts.append("//\(host)") }
        parts.append(conditions.path?.description ?? "/**")
        if let answered { parts.append(answered ? "(answered)" : "(unanswered)") }
        return parts.joined(separator: " ")
    }
}
