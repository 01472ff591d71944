#if Tools
import Foundation
import StubKit

/// Reads recorded traffic: a HAR file (StubKit's end-of-run export or any browser's or proxy's), a
/// live journal file (`STUB_JOURNAL_LIVE`, one JSON object a line), or a bundle folder written by
/// record mode. Which one is told by content: a folder is a bundle; a file one of whose first lines is
/// a JSON object with `kind` is a live journal; any other file is read as HAR. `-` reads standard input.
///
/// A live journal is streamed a line at a time, so its size does not matter; a line that is not a
/// journal line (cut off, not JSON, not UTF-8, too long) is a problem at its line and reading goes on.
/// A HAR file is one JSON document, parsed once: over ``maximumHARBytes`` it is refused, and one that
/// does not parse (cut off, not UTF-8) is refused naming its line and column, as nothing in it can be trusted.
package enum TrafficReader {
    package enum Kind: String, Sendable {
        case har = "HAR file"
        case liveJournal = "live journal"
        case bundle = "recorded bundle"
    }

    /// What reading gave besides the entries.
    package struct Summary: Sendable {
        package var kind: Kind
        package var entries = 0
        /// Lines or rules that could not be read (SK216) or placed (SK215).
        package var problems: [Diagnostic] = []

        package init(kind: Kind) { self.kind = kind }
    }

    /// The input cannot be read at all.
    package struct ReadError: Error, Sendable, CustomStringConvertible {
        package var description: String
        /// The input holds nothing: for a command an error (a wrong path?), for a runner whose app made
        /// no request yet a journal with no requests.
        package var isEmptyInput = false
    }

    package static let maximumHARBytes = 512 << 20
    package static let maximumLineBytes = 16 << 20
    static let chunkBytes = 256 << 10
    /// The first lines looked at to tell a live journal (whose first line may be cut off) from a HAR.
    static let sniffedLines = 3

    /// Reads the input at `url` (`display` `-`: standard input), handing each entry to `visit` as it is read.
    package static func read(_ url: URL, display: String, _ visit: (TrafficEntry) -> Void) throws(ReadError) -> Summary {
        let handle: FileHandle
        if display == "-" {
            handle = FileHandle.standardInput
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
                throw ReadError(description: "\(display): no such file or folder")
            }
            if isDirectory.boolValue { return try TrafficBundleReader.read(url, display: display, visit) }
            guard let opened = try? FileHandle(forReadingFrom: url) else { throw ReadError(description: "\(display): cannot be read") }
            handle = opened
        }
        defer { if display != "-" { try? handle.close() } }
        var stream = ChunkStream(handle: handle)
        // Enough of the start to hold the first lines whole (a journal's first line lists every rule).
        var head = Data()
        var newlines = 0
        while newlines < sniffedLines, head.count <= maximumLineBytes, let chunk = try stream.next(display) {
            newlines += chunk.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
            head.append(chunk)
        }
        if head.allSatisfy({ isBlank($0) }) {
            throw ReadError(description: "\(display): empty; no traffic to check (is this the file STUB_JOURNAL_LIVE or the HAR export wrote?)", isEmptyInput: true)
        }
        if looksLikeLiveJournal(head) {
            return try LiveJournalReader(display: display).read(head: head, rest: &stream, visit)
        }
        var data = head
        while let chunk = try stream.next(display) {
            data.append(chunk)
            if data.count > maximumHARBytes {
                throw ReadError(description: "\(display): more than the \(maximumHARBytes >> 20) MB a HAR file may be; export fewer entries, or check a live journal instead")
            }
        }
        return try HARTrafficReader(display: display).read(data, visit)
    }

    /// Whether one of the first lines is a JSON object with `kind` (a HAR file's first line is `{`
    /// alone, or the whole document on one line, which has no top-level `kind`).
    static func looksLikeLiveJournal(_ head: Data) -> Bool {
        var lines = head.split(separator: UInt8(ascii: "\n"), maxSplits: sniffedLines, omittingEmptySubsequences: true).prefix(sniffedLines)
        // The last piece may be a line read only in part.
        if head.last != UInt8(ascii: "\n"), lines.count > 1 { lines = lines.dropLast() }
        return lines.contains { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return false }
            return object["kind"] != nil && object["log"] == nil
        }
    }

    static func isBlank(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    /// The input a chunk at a time; a read error ends the input with a ``ReadError``.
    struct ChunkStream {
        let handle: FileHandle

        mutating func next(_ display: String) throws(ReadError) -> Data? {
            do {
                guard let chunk = try handle.read(upToCount: TrafficReader.chunkBytes), !chunk.isEmpty else { return nil }
                return chunk
            } catch {
                throw ReadError(description: "\(display): cannot be read: \(error.localizedDescription)")
            }
        }
    }

    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError as NSError? { return underlying.userInfo[NSDebugDescriptionErrorKey] as? String ?? "not JSON" }
            return context.debugDescription
        }
        if case DecodingError.keyNotFound(let key, _) = error { return "no '\(key.stringValue)'" }
        if case DecodingError.typeMismatch(_, let context) = error { return "wrong type at '\(context.codingPath.map(\.stringValue).joined(separator: "."))'" }
        return "not JSON"
    }
}
#endif
