import Foundation

/// Every request the engine answered, refused or passed through, in order, safe under concurrent requests.
///
/// Bounded, so a long UI-test run in one app process does not hold every body forever: at most
/// ``Limits/maximumEntries`` entries and ``Limits/maximumTotalBodyBytes`` bytes of bodies are kept;
/// beyond them the oldest entries are dropped and counted in ``droppedEntryCount``, and each body is
/// cut to ``Limits/maximumBodySize`` bytes, marked as truncated in the entry, the HAR and the report.
///
/// Tests wait on it instead of sleeping: ``waitForRequests(matching:count:timeout:)`` returns as soon as
/// the requests have been seen (woken by each new entry, never by polling), and
/// ``expectNoRequests(matching:within:)`` fails as soon as a forbidden one arrives.
public final class StubJournal: Sendable {
    private let state: Locked<State>

    private struct State {
        /// Kept entries are `storage[head...]`; the dropped prefix is compacted away now and then, so
        /// dropping the oldest entry costs O(1) amortized.
        var storage: [JournalEntry] = []
        var head = 0
        var bodyBytes = 0
        var dropped = 0
        var nextID = 1
        var waiters: [Waiter] = []
        var limits: Limits
        /// The live journal file (`STUB_JOURNAL_LIVE`), written under the lock so lines keep the order of ids.
        var live: LiveJournalWriter?

        var entries: ArraySlice<JournalEntry> { storage[head...] }
    }

    /// How much the journal keeps.
    public struct Limits: Sendable, Hashable {
        /// Entries kept; the oldest are dropped beyond it. Default 10,000.
        public var maximumEntries: Int
        /// Bytes kept of one request or response body; the rest is cut. Default 1 MB.
        public var maximumBodySize: Int
        /// Bytes of bodies kept across all entries; the oldest entries are dropped beyond it. Default 32 MB.
        public var maximumTotalBodyBytes: Int

        /// Limits with the defaults above unless given; a non-positive entry count or a negative byte limit is a programming error.
        public init(maximumEntries: Int = 10_000, maximumBodySize: Int = 1 << 20, maximumTotalBodyBytes: Int = 32 << 20) {
            precondition(maximumEntries > 0 && maximumBodySize >= 0 && maximumTotalBodyBytes >= 0,
                         "StubJournal.Limits: maximumEntries must be positive and the byte limits non-negative")
            self.maximumEntries = maximumEntries
            self.maximumBodySize = maximumBodySize
            self.maximumTotalBodyBytes = maximumTotalBodyBytes
        }

        /// 10,000 entries, 1 MB per body, 32 MB of bodies in all.
        public static let `default` = Limits()
    }

    /// Someone waiting for `count` entries that satisfy `predicate`.
    private struct Waiter {
        let id: UUID
        let predicate: RequestPredicate
        let count: Int
        let notify: @Sendable () -> Void
    }

    package init(limits: Limits = .default) {
        state = Locked(State(limits: limits))
    }

    /// What the journal keeps; a change applies to entries recorded from then on.
    public var limits: Limits {
        get { state.withLock { $0.limits } }
        set { state.withLock { $0.limits = newValue } }
    }

    /// All entries kept, oldest first.
    public var entries: [JournalEntry] {
        state.withLock { Array($0.entries) }
    }

    /// How many of the oldest entries were dropped to stay within ``limits``.
    public var droppedEntryCount: Int {
        state.withLock { $0.dropped }
    }

    /// Waits in progress (for tests: a wait is woken by the entry that satisfies it, inside `record`).
    package var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// Forgets every entry (the active bundles and their states stay as they are).
    public func clear() {
        state.withLock { state in
            state.storage = []
            state.head = 0
            state.bodyBytes = 0
            state.dropped = 0
        }
    }

    /// Adds an entry (bodies cut to the limit, the oldest entries dropped beyond it) and wakes whoever
    /// waits for it.
    package func record(_ make: (Int) -> JournalEntry) {
        let toNotify: [@Sendable () -> Void] = state.withLock { state in
            var entry = make(state.nextID)
            state.nextID += 1
            // The journal's limits count body bytes: the decoded body matching left behind goes.
            entry.request.dropDecodedBody()
            Self.cut(&entry, to: state.limits.maximumBodySize)
            state.live?.append(.request(entry))
            state.bodyBytes += Self.bodyBytes(of: entry)
            guard !state.waiters.isEmpty else {
                // Nobody waits (nearly always): the entry is moved into storage, not copied.
                state.storage.append(consume entry)
                Self.dropOldest(&state)
                return []
            }
            state.storage.append(entry)
            Self.dropOldest(&state)
            var ready: [@Sendable () -> Void] = []
            let kept = state.entries
            state.waiters.removeAll { waiter in
                guard waiter.predicate.matches(entry) else { return false }
                let seen = kept.lazy.filter { waiter.predicate.matches($0) }.count
                guard seen >= waiter.count else { return false }
                ready.append(waiter.notify)
                return true
            }
            return ready
        }
        for notify in toNotify { notify() }
    }

    /// Adds an entry that keeps its own id: how a test runner mirrors the live journal of an app.
    package func append(_ entry: JournalEntry) {
        record { _ in entry }
    }

    /// Starts appending every entry to a live journal file, after a first line naming the active rules.
    func startLiveJournal(_ writer: LiveJournalWriter, rules: [LiveJournalLine.Rule]) {
        state.withLock { state in
            writer.append(.rules(rules))
            state.live = writer
        }
    }

    private static func cut(_ entry: inout JournalEntry, to limit: Int) {
        if let body = entry.request.body, body.count > limit {
            entry.request.body = body.prefix(limit)
            entry.requestBodyTruncated = true
        }
        if let body = entry.responseBody, body.count > limit {
            entry.responseBody = body.prefix(limit)
            entry.responseBodyTruncated = true
        }
    }

    private static func bodyBytes(of entry: JournalEntry) -> Int {
        (entry.request.body?.count ?? 0) + (entry.responseBody?.count ?? 0)
    }

    private static func dropOldest(_ state: inout State) {
        while state.storage.count - state.head > state.limits.maximumEntries
                || (state.bodyBytes > state.limits.maximumTotalBodyBytes && state.storage.count - state.head > 1) {
            state.bodyBytes -= bodyBytes(of: state.storage[state.head])
            // Its slot stays until the next compaction (up to 1,024 of them): its bodies go now, or
            // the dropped entries would hold up to 1,024 bodies beyond maximumTotalBodyBytes.
            state.storage[state.head].responseBody = nil
            state.storage[state.head].request.body = nil
            state.head += 1
            state.dropped += 1
        }
        if state.head > 1024 && state.head * 2 > state.storage.count {
            state.storage.removeFirst(state.head)
            state.head = 0
        }
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
        try await waitForRequests(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    /// ``waitForRequests(matching:count:timeout:)`` that calls `whenArmed` once the wait is registered,
    /// so a test can prove that a later request wakes it (rather than being found by the first check).
    package func waitForRequests(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                 whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        let id = UUID()
        let gate = OneShot()
        let satisfied: Bool = state.withLock { state in
            if state.entries.lazy.filter({ predicate.matches($0) }).count >= count { return true }
            state.waiters.append(Waiter(id: id, predicate: predicate, count: count, notify: { gate.fire(true) }))
            return false
        }
        whenArmed?()
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
        try waitForRequestsBlocking(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    /// ``waitForRequestsBlocking(matching:count:timeout:)`` that calls `whenArmed` once the wait is registered.
    package func waitForRequestsBlocking(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                         whenArmed: (@Sendable () -> Void)?) throws(VerificationError) {
        let id = UUID()
        let semaphore = DispatchSemaphore(value: 0)
        let satisfied: Bool = state.withLock { state in
            if state.entries.lazy.filter({ predicate.matches($0) }).count >= count { return true }
            state.waiters.append(Waiter(id: id, predicate: predicate, count: count, notify: { semaphore.signal() }))
            return false
        }
        whenArmed?()
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
        try await expectNoRequests(matching: predicate, within: period, whenArmed: nil)
    }

    /// ``expectNoRequests(matching:within:)`` that calls `whenArmed` once the check is registered.
    package func expectNoRequests(matching predicate: RequestPredicate, within period: TimeInterval,
                                  whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        let before = entries(matching: predicate).count
        if before > 0 {
            throw VerificationError(failure(expected: "no request matching \(predicate)", predicate: predicate))
        }
        do {
            try await waitForRequests(matching: predicate, count: 1, timeout: period, whenArmed: whenArmed)
        } catch {
            return // Nothing arrived: what was wanted.
        }
        throw VerificationError(failure(expected: "no request matching \(predicate) within \(period) s", predicate: predicate))
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

/// A value set once, awaited by one task.
private struct OneShot: Sendable {
    private struct State {
        var result: Bool?
        var continuation: CheckedContinuation<Bool, Never>?
    }

    private let state = Locked(State())

    func fire(_ value: Bool) {
        let waiting = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.result == nil else { return nil }
            state.result = value
            defer { state.continuation = nil }
            return state.continuation
        }
        waiting?.resume(returning: value)
    }

    func value() async -> Bool {
        await withCheckedContinuation { continuation in
            let result = state.withLock { state in
                if state.result == nil { state.continuation = continuation }
                return state.result
            }
            if let result { continuation.resume(returning: result) }
        }
    }
}

/// A failed wait or verification, with what was seen instead.
public struct VerificationError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What was waited for or verified, and what the journal held instead.
    public let description: String
    package init(_ description: String) { self.description = description }
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// Which journal entries a wait or check is about: method, path pattern, host, query, headers — the
/// same conditions rules use.
public struct RequestPredicate: Sendable, CustomStringConvertible {
    package var conditions: RequestConditions
    /// Only answered requests (`true`), only unanswered ones (`false`), or both (`nil`).
    public var answered: Bool?

    package init(conditions: RequestConditions, answered: Bool? = nil) {
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

    /// The predicate in words: methods, host, path pattern and answered-or-not (`POST /orders`).
    public var description: String {
        var parts: [String] = [conditions.methodsDescription]
        if let host = conditions.host { parts.append("//\(host)") }
        parts.append(conditions.path?.description ?? "/**")
        if let answered { parts.append(answered ? "(answered)" : "(unanswered)") }
        return parts.joined(separator: " ")
    }
}
