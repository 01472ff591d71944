import Foundation

/// Splits the bytes of a control connection into lines, with a size limit, for both ends.
///
/// A line longer than the limit is skipped up to its newline and reported once, so one oversized
/// message costs that message only and the connection stays usable; bytes left without a newline
/// when the connection closes are reported as a message cut in half.
package struct ControlLineReader: Sendable {
    /// What the bytes read so far held.
    package enum Item: Sendable, Equatable {
        case line(Data)
        /// A line over the limit, dropped; the count is how many bytes it had when dropping began.
        case tooLong(Int)
    }

    package let limit: Int
    private var buffer = Data()
    /// Inside a line over the limit: bytes are dropped until its newline.
    private var skipping = false

    package init(limit: Int = ControlProtocol.maximumLineLength) {
        self.limit = limit
    }

    /// Adds received bytes and returns the lines (and oversized lines) they completed.
    package mutating func append(_ bytes: Data) -> [Item] {
        var items: [Item] = []
        var rest = bytes[...]
        while !rest.isEmpty {
            guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
                if !skipping {
                    buffer.append(contentsOf: rest)
                    if buffer.count > limit {
                        items.append(.tooLong(buffer.count))
                        buffer = Data()
                        skipping = true
                    }
                }
                break
            }
            if skipping {
                skipping = false
            } else if buffer.count + (newline - rest.startIndex) > limit {
                items.append(.tooLong(buffer.count + (newline - rest.startIndex)))
                buffer = Data()
            } else {
                buffer.append(contentsOf: rest[..<newline])
                items.append(.line(buffer))
                buffer = Data()
            }
            rest = rest[rest.index(after: newline)...]
        }
        return items
    }

    /// At the end of the connection: a description of the message cut in half, or `nil` when every
    /// message was whole.
    package var unfinished: String? {
        guard !buffer.isEmpty || skipping else { return nil }
        return "the connection closed in the middle of a message (\(skipping ? "an oversized line" : "\(buffer.count) bytes without a newline"))"
    }

    /// The error text for a line over the limit.
    package func tooLongDescription(_ count: Int) -> String {
        "a control message of more than \(count > limit ? count : limit) bytes, over the limit of \(limit) bytes: skipped"
    }
}
