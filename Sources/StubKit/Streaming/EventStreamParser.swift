import Foundation

/// Reads a `text/event-stream` as it arrives, chunk by chunk, the way a browser's `EventSource` does
/// (the WHATWG HTML standard's "interpreting an event stream"), and gives each event with the time it
/// arrived: what recording turns into a rule's `events`.
///
/// Lines end at CR LF, CR or LF, wherever the chunks split them (a CR that ends one chunk and an LF
/// that starts the next are one line end). A leading byte order mark is skipped. Each complete line is
/// decoded as UTF-8 (invalid bytes become U+FFFD, as the standard's decoder does; CR and LF never occur
/// inside a multi-byte sequence, so decoding line by line gives the same text as decoding the stream).
/// An event is dispatched at a blank line; one still unterminated when the stream ends is not.
///
/// Beyond what a browser keeps: comment lines (keep-alives) come out as comment-only events when their
/// line ends, so a replay sends them at the same moments; and a block that sets only `id`, `retry` or
/// `event` comes out too (a browser dispatches nothing for it, but `id` and `retry` change its state).
package struct EventStreamParser: Sendable {
    /// One parsed event, or a comment, and when it arrived.
    package struct Parsed: Sendable, Equatable {
        package var event: String?
        /// The `data` lines, joined with LF, exactly as received (after the one optional space).
        package var data: String?
        /// The `id` this event set (not the last one still in force).
        package var id: String?
        package var retry: Int?
        package var comment: String?
        /// When the chunk that completed it arrived, as given to ``feed(_:at:)``.
        package var arrival: TimeInterval

        package init(event: String? = nil, data: String? = nil, id: String? = nil, retry: Int? = nil, comment: String? = nil, arrival: TimeInterval = 0) {
            self.event = event
            self.data = data
            self.id = id
            self.retry = retry
            self.comment = comment
            self.arrival = arrival
        }
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
    private static let cr: UInt8 = 0x0D, lf: UInt8 = 0x0A

    /// The bytes of the line not yet ended.
    private var line: [UInt8] = []
    /// Whether the stream's first bytes were checked for a byte order mark.
    private var pastStart = false
    /// The last line ended with CR: an LF right after it (even in the next chunk) ends nothing.
    private var afterCR = false
    /// The event being read: its fields so far.
    private var pending = Parsed()
    private var dataLines: [String] = []
    private var hasFields = false

    /// The longest line kept, in bytes: a stream that never sends a line end (a broken or hostile
    /// feed) would otherwise grow the line buffer without limit.
    package let maximumLineLength: Int
    /// Whether a line grew past ``maximumLineLength``: the parser then stops reading (every later
    /// ``feed(_:at:)`` returns nothing), since the rest of the stream can no longer be framed.
    package private(set) var lineTooLong = false

    /// The default ``maximumLineLength``: 1 MiB, the default largest WebSocket message too. A `data`
    /// line is one payload line; a JSON payload of a megabyte on one line is already beyond what a
    /// rules file written by hand or read in a review holds.
    package static let defaultMaximumLineLength = 1 << 20

    package init(maximumLineLength: Int = Self.defaultMaximumLineLength) {
        self.maximumLineLength = maximumLineLength
    }

    /// Reads one chunk that arrived at `time`.
    ///
    /// - Returns: the events (and comments) this chunk completed, in order.
    package mutating func feed(_ chunk: Data, at time: TimeInterval) -> [Parsed] {
        var out: [Parsed] = []
        guard !lineTooLong else { return out }
        var bytes = [UInt8](chunk)
        if !pastStart {
            line.append(contentsOf: bytes)
            // The whole mark may come in pieces: wait until it is known whether the stream starts with one.
            if line.count < Self.byteOrderMark.count, Self.byteOrderMark.starts(with: line) { return out }
            pastStart = true
            if line.starts(with: Self.byteOrderMark) { line.removeFirst(Self.byteOrderMark.count) }
            bytes = line
            line = []
        }
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == Self.lf { continue }
            }
            if byte == Self.cr || byte == Self.lf {
                afterCR = byte == Self.cr
                let text = String(decoding: line, as: UTF8.self)
                line.removeAll(keepingCapacity: true)
                if let parsed = process(text, at: time) { out.append(parsed) }
            } else {
                line.append(byte)
                if line.count > maximumLineLength {
                    lineTooLong = true
                    line = []
                    return out
                }
            }
        }
        return out
    }

    /// The stream ended: an event without its blank line is not dispatched, as in a browser.
    package mutating func finish() {
        line = []
        pending = Parsed()
        dataLines = []
        hasFields = false
    }

    /// One complete line; an event or a comment when it completes one.
    private mutating func process(_ line: String, at time: TimeInterval) -> Parsed? {
        if line.isEmpty { return dispatch(at: time) }
        let field: Substring, value: Substring
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            var rest = line[line.index(after: colon)...]
            if rest.first == " " { rest = rest.dropFirst() }
            value = rest
        } else {
            field = line[...]
            value = ""
        }
        switch field {
        case "": return Parsed(comment: String(value), arrival: time)
        case "event":
            pending.event = String(value)
            hasFields = true
        case "data":
            dataLines.append(String(value))
            hasFields = true
        case "id":
            // An id holding NUL is ignored by clients (it could not be sent back in a header).
            if !value.contains("\0") {
                pending.id = String(value)
                hasFields = true
            }
        case "retry":
            // Digits only; a value too large for an Int is no reconnection time either.
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let retry = Int(value) {
                pending.retry = retry
                hasFields = true
            }
        default: break  // unknown fields are ignored
        }
        return nil
    }

    private mutating func dispatch(at time: TimeInterval) -> Parsed? {
        defer {
            pending = Parsed()
            dataLines = []
            hasFields = false
        }
        guard hasFields else { return nil }
        var event = pending
        if !dataLines.isEmpty { event.data = dataLines.joined(separator: "\n") }
        event.arrival = time
        return event
    }
}
