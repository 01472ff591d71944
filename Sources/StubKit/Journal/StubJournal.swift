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
    struct Waiter {
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

    /// Forgets every entry (the active bundles and their states stay as they are); a live journal
    /// file says so, so the runner reading it forgets them too.
    public func clear() {
        state.withLock { state in
            state.live?.append(.cleared)
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

    /// Writes a `rules` line for rules activated after the start (runtime control), so the runner
    /// knows them too; nothing without a live journal.
    func announceRules(_ rules: [LiveJournalLine.Rule]) {
        state.withLock { state in
            state.live?.append(.rules(rules))
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

    /// Registers a wait, unless the entries kept already satisfy it.
    /// - Returns: `true` when they do (the waiter is then not registered).
    func register(_ waiter: Waiter) -> Bool {
        state.withLock { state in
            if state.entries.lazy.filter({ waiter.predicate.matches($0) }).count >= waiter.count { return true }
            state.waiters.append(waiter)
            return false
        }
    }

    /// Ends a wait: its waiter is no longer woken (a woken one is already gone).
    func removeWaiter(_ id: UUID) {
        state.withLock { $0.waiters.removeAll { $0.id == id } }
    }
}
