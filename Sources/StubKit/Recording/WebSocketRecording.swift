import Foundation

/// One WebSocket conversation as it happened between an app and a real server: the upgrade request, the
/// subprotocol the server accepted, and every message both ways in order with its arrival time.
///
/// ``Recorder/record(_:)-(WebSocketRecording)`` turns it into a rule whose `webSocket` script replays
/// the server's side: what it sent before the client spoke goes to `onConnect`, and each client message
/// becomes a reply holding what the server sent after it, until the next client message. Pings and
/// pongs are keep-alives, not conversation, so a transport does not hand them in.
package struct WebSocketRecording: Sendable {
    /// Who sent a message.
    package enum Direction: Sendable, Hashable {
        case clientToServer
        case serverToClient
    }

    /// What a message carried.
    package enum Kind: Sendable, Hashable {
        case text(String)
        case binary(Data)
        /// A close frame; `code` is `nil` when the frame had no status.
        case close(code: UInt16?, reason: String)
    }

    package struct Message: Sendable, Hashable {
        package var direction: Direction
        package var kind: Kind
        /// When the message arrived at the relay.
        package var time: Date

        package init(_ direction: Direction, _ kind: Kind, at time: Date) {
            self.direction = direction
            self.kind = kind
            self.time = time
        }
    }

    /// The client's upgrade request (its URL names the real server).
    package var request: StubRequest
    /// The subprotocol the real server accepted, if any.
    package var subprotocol: String?
    /// When the upgrade completed: the first `onConnect` step's delay counts from here.
    package var openedAt: Date
    package var messages: [Message]

    package init(request: StubRequest, subprotocol: String? = nil, openedAt: Date, messages: [Message] = []) {
        self.request = request
        self.subprotocol = subprotocol
        self.openedAt = openedAt
        self.messages = messages
    }

    /// A server message with the seconds since whatever came before it (the trigger or the previous message).
    package struct TimedMessage: Sendable, Hashable {
        package var delay: TimeInterval
        package var kind: Kind
    }

    /// A client message and what the server sent after it, before the next client message.
    package struct Turn: Sendable, Hashable {
        package var message: Kind
        package var answer: [TimedMessage]
    }

    /// The conversation cut into what the script needs: the server's opening messages, then one turn
    /// per client message, in order. It ends at the first close from either side; the server's close
    /// that only answers the client's is the closing handshake, not part of the script.
    package var turns: (opening: [TimedMessage], turns: [Turn]) {
        var opening: [TimedMessage] = []
        var turns: [Turn] = []
        var previous = openedAt
        for message in messages {
            let delay = Self.rounded(message.time.timeIntervalSince(previous))
            previous = message.time
            switch message.direction {
            case .clientToServer:
                if case .close = message.kind { return (opening, turns) }
                turns.append(Turn(message: message.kind, answer: []))
            case .serverToClient:
                let timed = TimedMessage(delay: delay, kind: message.kind)
                if turns.isEmpty { opening.append(timed) } else { turns[turns.count - 1].answer.append(timed) }
                if case .close = message.kind { return (opening, turns) }
            }
        }
        return (opening, turns)
    }

    /// A gap in whole milliseconds: finer timing is noise from the network and the relay, and a rules
    /// file with `0.0123456` delays is harder to read and edit. Negative gaps (a clock step) are 0.
    static func rounded(_ seconds: TimeInterval) -> TimeInterval {
        max(0, (seconds * 1000).rounded() / 1000)
    }
}
