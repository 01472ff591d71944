#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StubKit

/// Static answers made ready once and sent again as they are: the response head, the body bytes
/// (URLs already pointed back at the server) and what the journal keeps.
///
/// Only answers that are the same for every request are kept: no template, no simulated error, a
/// body of at most ``maximumBodySize``. A response file is checked with one `stat` per answer (size,
/// modification time, inode and device), so a file replaced while the server runs is read again, as
/// the local server article (LocalServer.md) promises. Replaced when the active templates change; emptied when it holds more than
/// ``maximumEntries`` answers or ``maximumBytes`` of bodies.
final class AnswerCache: Sendable {
    static let maximumBodySize = 256 << 10
    static let maximumEntries = 4096
    static let maximumBytes = 64 << 20

    /// Which answer: the rule (by its place in its rules file) and the address URLs are rewritten to.
    /// A hit is also compared with the response it stands for (``Entry/matches(_:)``), so the
    /// responses of one rule's sequence never stand in for one another.
    struct Key: Hashable, Sendable {
        var bundle: String
        var ruleFile: String
        var ruleIndex: Int
        var status: Int
        var rewriteBase: String
    }

    /// What identifies a response file's content without reading it.
    struct FileStamp: Equatable, Sendable {
        var size: Int64
        var modifiedSeconds: Int
        var modifiedNanoseconds: Int
        var inode: UInt64
        var device: UInt64

        /// The stamp of a regular file, or `nil` (missing, not a regular file): the slow path then reports it.
        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG) else { return nil }
            size = Int64(info.st_size)
            #if canImport(Darwin)
            modifiedSeconds = Int(info.st_mtimespec.tv_sec)
            modifiedNanoseconds = Int(info.st_mtimespec.tv_nsec)
            #else
            modifiedSeconds = Int(info.st_mtim.tv_sec)
            modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
            #endif
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            device = UInt64(truncatingIfNeeded: info.st_dev)  // dev_t is a signed Int32 on Darwin
        }
    }

    /// The source of an answer's body, as the rule names it.
    enum Source: Sendable {
        case bytes(Data)
        case file(URL, path: String, FileStamp)
        case empty
    }

    struct Entry: Sendable {
        var source: Source
        var sourceHeaders: [String: String]
        /// The rule as the journal names it (built once: a rule without a name is named from its conditions).
        var rule: JournalEntry.RuleReference
        var status: Int
        /// The headers as sent (Location rewritten, Content-Length set), for the journal.
        var headers: [String: String]
        /// The same, in the order sent, without CORS fields (those depend on the request).
        var fields: HTTPHeaders
        var body: Data
        var buffer: ByteBuffer

        /// Whether this entry is still the answer of `response`: same headers, same body bytes or an
        /// unchanged file (one `stat`).
        func matches(_ response: StubResponse) -> Bool {
            guard response.headerFields == sourceHeaders else { return false }
            switch (source, response.body) {
            case (.bytes(let kept), .inline(let data)), (.bytes(let kept), .json(let data)):
                return kept == data
            case (.file(let keptURL, let path, let stamp), .file(let url)):
                return keptURL == url && FileStamp(path: path) == stamp
            case (.empty, .empty):
                return true
            default:
                return false
            }
        }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Body bytes held (each body is held twice: as `Data` for the journal and as a `ByteBuffer`).
        var bytes = 0
    }

    private let state = NIOLockedValueBox(State())

    /// The key of a match when its answer may be kept, or `nil` (templates, simulated errors, event
    /// streams: their events are sent over time, not kept as one body).
    static func key(for match: StubMatch, rewriteBase: String) -> Key? {
        let response = match.response
        guard response.template == nil, response.error == nil, response.events == nil else { return nil }
        return Key(bundle: match.bundle, ruleFile: match.rule.source.file, ruleIndex: match.rule.source.index,
                   status: response.status, rewriteBase: rewriteBase)
    }

    /// The kept answer for `key`, if it still stands for `response`.
    func answer(for key: Key, response: StubResponse) -> Entry? {
        guard let entry = state.withLockedValue({ $0.entries[key] }), entry.matches(response) else { return nil }
        return entry
    }

    /// The source of `response`'s body as it is now, taken before the body is read (a file changed
    /// while it is read then fails the next check), or `nil` when the answer is not to be kept.
    static func source(of response: StubResponse) -> Source? {
        switch response.body {
        case .empty: return .empty
        case .inline(let data), .json(let data): return data.count <= maximumBodySize ? .bytes(data) : nil
        case .file(let url):
            let path = url.path
            guard let stamp = FileStamp(path: path), stamp.size <= maximumBodySize else { return nil }
            return .file(url, path: path, stamp)
        }
    }

    func keep(_ entry: Entry, for key: Key) {
        let size = 2 * entry.body.count
        state.withLockedValue { state in
            if state.entries.count >= Self.maximumEntries || state.bytes + size > Self.maximumBytes { state = State() }
            if let replaced = state.entries.updateValue(entry, forKey: key) { state.bytes -= 2 * replaced.body.count }
            state.bytes += size
        }
    }
}
#endif
