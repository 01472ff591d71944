import Foundation

/// What a WebSocket rule (`webSocket` in a rule) does once the upgrade is accepted: messages sent on
/// connect, replies to client messages that match, periodic messages, pings and a close.
///
/// Rules are data: the local server runs a script through ``WebSocketConversation``, which makes every
/// decision (what to send, when, in answer to what) in shared code, so any transport sends the same.
package struct WebSocketScript: Sendable {
    /// Steps run in order when the connection opens, each after its delay.
    package var onConnect: [Step]
    /// Replies to client messages, first match wins.
    package var replies: [Reply]
    /// Steps repeated on a timer while the connection is open.
    package var periodic: [Periodic]
    /// The subprotocol accepted when the client offers it (`Sec-WebSocket-Protocol`).
    package var subprotocol: String?
    /// The largest message accepted from the client, in bytes; a larger one closes the connection with 1009.
    package var maximumMessageSize: Int

    package static let defaultMaximumMessageSize = 1 << 20

    package init(onConnect: [Step] = [], replies: [Reply] = [], periodic: [Periodic] = [], subprotocol: String? = nil,
                 maximumMessageSize: Int = WebSocketScript.defaultMaximumMessageSize) {
        self.onConnect = onConnect
        self.replies = replies
        self.periodic = periodic
        self.subprotocol = subprotocol
        self.maximumMessageSize = maximumMessageSize
    }

    /// A message on the wire: text (UTF-8) or binary.
    package enum Message: Sendable, Hashable {
        case text(String)
        case binary(Data)

        /// The payload's bytes.
        package var data: Data {
            switch self {
            case .text(let text): return Data(text.utf8)
            case .binary(let data): return data
            }
        }
    }

    /// One thing the script does, after `delay` seconds (counted from the step before it).
    package struct Step: Sendable {
        package var delay: TimeInterval
        package var action: Action
        /// The text of a `text` or `json` step as a template, when the rule says `template`.
        package var template: ResponseTemplate?
        /// Where the step is written, for diagnostics and the journal.
        package var keyPath: String

        package init(delay: TimeInterval = 0, action: Action, template: ResponseTemplate? = nil, keyPath: String = "") {
            self.delay = delay
            self.action = action
            self.template = template
            self.keyPath = keyPath
        }
    }

    package enum Action: Sendable, Hashable {
        case send(Message)
        /// A ping with this payload (at most 125 bytes); the client answers with a pong.
        case ping(Data)
        /// A close frame with this code and reason; the conversation ends when the client answers it.
        case close(code: UInt16, reason: String)
    }

    /// Steps run when a client message meets every condition.
    package struct Reply: Sendable {
        /// The conditions on the client's message (the same as `requestBody`'s); none matches every message.
        package var conditions: [BodyMatcher]
        package var steps: [Step]
        /// The scenario state the rule's scenario moves to once the reply is chosen.
        package var setState: String?
        /// `webSocket.replies[2]`, for near-miss reports.
        package var keyPath: String

        package init(conditions: [BodyMatcher], steps: [Step], setState: String? = nil, keyPath: String = "") {
            self.conditions = conditions
            self.steps = steps
            self.setState = setState
            self.keyPath = keyPath
        }
    }

    /// Steps run every `interval` seconds (the first time one interval after connecting), `times`
    /// times or until the connection closes.
    package struct Periodic: Sendable {
        package var interval: TimeInterval
        package var steps: [Step]
        package var times: Int?

        package init(interval: TimeInterval, steps: [Step], times: Int? = nil) {
            self.interval = interval
            self.steps = steps
            self.times = times
        }
    }

    /// Whether any template shows `{{hit}}`.
    var usesHitCount: Bool {
        let all = onConnect + replies.flatMap(\.steps) + periodic.flatMap(\.steps)
        return all.contains { $0.template?.usesHitCount == true }
    }

    /// Close codes an endpoint may send (RFC 6455 section 7.4): 1000-1003, 1007-1014, and 3000-4999
    /// for libraries and applications. 1004-1006 and 1015 are reserved for reporting, never sent.
    package static func isSendableCloseCode(_ code: Int) -> Bool {
        switch code {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }
}
