import Foundation

/// One frame of a WebSocket conversation the local server held, as the connection's journal entry
/// keeps it (``JournalEntry/webSocketMessages``).
package struct WebSocketMessageRecord: Sendable, Hashable {
    /// Who sent the frame, from the server's point of view.
    package enum Direction: String, Sendable, Hashable {
        /// The server (the rule's script) sent it.
        case sent
        /// The client sent it.
        case received
    }

    /// The frame's opcode (RFC 6455 section 5.2); fragments are journaled as the message they make.
    package enum Opcode: Int, Sendable, Hashable {
        case text = 1, binary = 2, close = 8, ping = 9, pong = 10
    }

    package var direction: Direction
    package var time: Date
    package var opcode: Opcode
    /// The payload (a close frame's reason, without its code), cut to the journal's body limit.
    package var data: Data
    /// The payload's whole size.
    package var size: Int
    /// A close frame's status code, when it has one.
    package var closeCode: UInt16?
    /// For a client message no reply matched: why each reply did not (empty when the script has none).
    package var nearMisses: [String]?

    package init(direction: Direction, time: Date, opcode: Opcode, data: Data, size: Int? = nil, closeCode: UInt16? = nil,
                 nearMisses: [String]? = nil) {
        self.direction = direction
        self.time = time
        self.opcode = opcode
        self.data = data
        self.size = size ?? data.count
        self.closeCode = closeCode
        self.nearMisses = nearMisses
    }

    /// The payload as text (text frames, close reasons, pings and pongs that are UTF-8), else `nil`.
    package var text: String? {
        guard opcode != .binary else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        return Array(text.utf8) == Array(data) ? text : nil
    }

    /// The payload as text when it is text, else Base64 (what HAR's `_webSocketMessages` holds).
    package var textOrBase64: String { text ?? data.base64EncodedString() }
}
