import Foundation
import StubKit

/// The app's journal as a test runner sees it while the app runs: the live journal file
/// (`STUB_JOURNAL_LIVE`) read line by line as the app appends to it.
///
/// ```swift
/// let journal = try LiveJournal(url: journalFile)
/// app.launch()
/// app.buttons["Order"].tap()
/// try journal.waitForRequestBlocking(matching: .init("POST", path: "/orders"), timeout: 5)
/// try journal.expectNoRequestBlocking(matching: .init("DELETE", path: "/orders/*"), within: 1)
/// ```
///
/// Waits are woken by the kernel's file-change event for the app's write (see `FileChangeWatcher`),
/// never by a timer, and follow the file's name: a journal file deleted and created again, or
/// truncated, is read again from its start (entries read before stay). A truncation followed by
/// writes past the old length before the reader runs cannot be told from an append; replace the
/// file rather than truncating it. Waits fail with the requests the app did make. Entries are
/// mirrored into a `StubJournal`, so waiting behaves exactly as it does in-process. Thread-safe.
public final class LiveJournal: Sendable {
    /// The file the app appends to.
    public let url: URL
    private let mirror = StubJournal()
    private let state = Locked(ReadState())
    private let watcher: Locked<FileChangeWatcher?> = Locked(nil)

    private struct ReadState {
        var offset: UInt64 = 0
        /// The file read so far (device and inode), to notice a replacement.
        var file: (device: UInt64, inode: UInt64)?
        var partial = Data()
        var rules: [LiveJournalLine.Rule] = []
        /// Set when the file was replaced or truncated: its rules line replaces the old one.
        var startedOver = false
        var problems: [String] = []
        var lineNumber = 0

        /// A new journal under the same name: read it from its first byte. Entries read so far stay.
        mutating func startOver() {
            offset = 0
            partial.removeAll()
            lineNumber = 0
            startedOver = true
        }
    }

    /// Follows the journal file at `url`, creating it empty when it does not exist yet (the app then
    /// appends to it), and reads what is already there.
    public init(url: URL) throws {
        self.url = url
        if !FileManager.default.fileExists(atPath: url.path) {
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path, NSLocalizedDescriptionKey: "cannot create the live journal file \(url.path)"])
            }
        }
        let queue = DispatchQueue(label: "StubKitTesting.LiveJournal")
        let watcher = try FileChangeWatcher(path: url.path, queue: queue) { [weak self] in self?.refresh() }
        self.watcher.withLock { $0 = watcher }
        refresh()
    }

    deinit {
        watcher.withLock { $0?.cancel() }
    }

    /// Stops following the file; entries read so far stay.
    public func stop() {
        watcher.withLock { $0?.cancel(); $0 = nil }
        refresh()
    }

    /// Reads the lines appended since the last read. Called on each file-change event; call it yourself
    /// only to be sure of having read everything (waits do).
    public func refresh() {
        state.withLock { state in
            guard let handle = try? FileHandle(forReadingFrom: url) else { return }
            defer { try? handle.close() }
            // Another file under the name (deleted and re-created, or renamed into place), or the same
            // file shorter than what was read (truncated), is a new journal: read it from its start.
            if let now = FileChangeWatcher.state(of: handle.fileDescriptor) {
                if let known = state.file, known.device != now.device || known.inode != now.inode || now.size < state.offset {
                    state.startOver()
                }
                state.file = (now.device, now.inode)
            }
            do {
                try handle.seek(toOffset: state.offset)
                guard let data = try handle.readToEnd(), !data.isEmpty else { return }
                state.offset += UInt64(data.count)
                state.partial.append(data)
            } catch {
                return
            }
            // Only whole lines: the app writes each in one write(2), but a read may land between two.
            while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                let line = state.partial[state.partial.startIndex..<newline]
                state.partial.removeSubrange(state.partial.startIndex...newline)
                state.lineNumber += 1
                do {
                    switch try LiveJournalLine(decoding: Data(line)) {
                    case .rules(let rules):
                        state.rules = state.startedOver ? rules : state.rules + rules
                        state.startedOver = false
                    case .request(let entry): mirror.append(entry)
                    case .cleared: mirror.clear()
                    case nil: break
                    }
                } catch {
                    state.problems.append("\(url.path):\(state.lineNumber): \(error)")
                }
            }
        }
    }

    /// Every request read so far, oldest first.
    public var entries: [JournalEntry] {
        refresh()
        return mirror.entries
    }

    /// The requests a predicate accepts.
    public func requests(matching predicate: RequestPredicate = .any) -> [JournalEntry] {
        refresh()
        return mirror.entries(matching: predicate)
    }

    /// The rules of the bundles the app activated (from its first line).
    package var rules: [LiveJournalLine.Rule] {
        refresh()
        return state.withLock { $0.rules }
    }

    /// Lines that could not be read, as `file:line: reason`.
    public var problems: [String] {
        state.withLock { $0.problems }
    }

    // MARK: Waiting

    /// Waits until the app has sent `count` requests matching `predicate` (counting earlier ones).
    ///
    /// - Throws: `VerificationError` after `timeout` seconds, listing the requests the app did send.
    public func waitForRequest(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) async throws(VerificationError) {
        try await waitForRequest(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    /// The wait, calling `whenArmed` once registered: tests send the request from it, so only the file
    /// event can wake the wait.
    package func waitForRequest(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        refresh()
        try await mirror.waitForRequests(matching: predicate, count: count, timeout: timeout, whenArmed: whenArmed)
    }

    /// The blocking form of ``waitForRequest(matching:count:timeout:)``, for XCTest UI tests.
    public func waitForRequestBlocking(matching predicate: RequestPredicate, count: Int = 1, timeout: TimeInterval) throws(VerificationError) {
        try waitForRequestBlocking(matching: predicate, count: count, timeout: timeout, whenArmed: nil)
    }

    package func waitForRequestBlocking(matching predicate: RequestPredicate, count: Int, timeout: TimeInterval,
                                        whenArmed: (@Sendable () -> Void)?) throws(VerificationError) {
        refresh()
        try mirror.waitForRequestsBlocking(matching: predicate, count: count, timeout: timeout, whenArmed: whenArmed)
    }

    /// Checks that the app sends no request matching `predicate` within `period` seconds (nor has sent
    /// one); fails as soon as it does, naming the request.
    public func expectNoRequest(matching predicate: RequestPredicate, within period: TimeInterval) async throws(VerificationError) {
        try await expectNoRequest(matching: predicate, within: period, whenArmed: nil)
    }

    package func expectNoRequest(matching predicate: RequestPredicate, within period: TimeInterval,
                                 whenArmed: (@Sendable () -> Void)?) async throws(VerificationError) {
        refresh()
        try await mirror.expectNoRequests(matching: predicate, within: period, whenArmed: whenArmed)
    }

    /// The blocking form of ``expectNoRequest(matching:within:)``.
    public func expectNoRequestBlocking(matching predicate: RequestPredicate, within period: TimeInterval) throws(VerificationError) {
        try expectNoRequestBlocking(matching: predicate, within: period, whenArmed: nil)
    }

    package func expectNoRequestBlocking(matching predicate: RequestPredicate, within period: TimeInterval,
                                         whenArmed: (@Sendable () -> Void)?) throws(VerificationError) {
        refresh()
        try mirror.expectNoRequestsBlocking(matching: predicate, within: period, whenArmed: whenArmed)
    }

    /// Throws unless every rule of the app's active bundles (or of `template`) answered a request so far.
    public func verifyAllRulesUsed(in template: String? = nil) throws(VerificationError) {
        refresh()
        let used = Set(mirror.entries.compactMap { $0.rule?.location })
        let unused = rules.filter { (template == nil || $0.bundle == template) && !used.contains($0.location) }
        guard unused.isEmpty else {
            let seen = mirror.entries
            throw VerificationError("expected every rule\(template.map { " of \($0)" } ?? "") to be used; never used: "
                + unused.map { "\($0.name) (\($0.location))" }.joined(separator: "; ")
                + (seen.isEmpty ? "; no request was seen" : "; requests seen: " + seen.suffix(10).map(\.summary).joined(separator: "; ")))
        }
    }
}
