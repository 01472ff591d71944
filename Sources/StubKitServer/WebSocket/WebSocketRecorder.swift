#if Tools
import Foundation
import StubKit

/// Collects one relayed WebSocket conversation (what the app and the real server sent, with arrival
/// times) and writes it as a rule when it ends, through the recorder that writes HTTP exchanges.
///
/// The relay calls ``note(_:_:at:)`` for every text or binary message in either direction,
/// ``noteClose(_:code:reason:at:)`` for a close frame, and ``finish()`` once the connection is gone.
/// Pings and pongs are not noted. Thread-safe: both directions may note from their own event loops.
package final class WebSocketRecorder: Sendable {
    private let recorder: Recorder
    private let recording: Locked<WebSocketRecording?>

    /// - Parameters:
    ///   - request: the app's upgrade request, with the real server's URL.
    ///   - subprotocol: what the real server accepted (``WebSocketUpstream/subprotocol``).
    ///   - openedAt: when the upgrade completed; the first `onConnect` delay counts from here.
    package init(recorder: Recorder, request: StubRequest, subprotocol: String?, openedAt: Date = Date()) {
        self.recorder = recorder
        self.recording = Locked(WebSocketRecording(request: request, subprotocol: subprotocol, openedAt: openedAt))
    }

    /// Notes a text or binary message.
    package func note(_ direction: WebSocketRecording.Direction, _ message: WebSocketScript.Message, at time: Date = Date()) {
        let kind: WebSocketRecording.Kind
        switch message {
        case .text(let text): kind = .text(text)
        case .binary(let data): kind = .binary(data)
        }
        recording.withLock { $0?.messages.append(.init(direction, kind, at: time)) }
    }

    /// Notes a close frame (`code` 1005: the frame had none; 1006, no frame at all, is not a message
    /// and is not noted).
    package func noteClose(_ direction: WebSocketRecording.Direction, code: UInt16, reason: String, at time: Date = Date()) {
        guard code != 1006 else { return }
        recording.withLock { $0?.messages.append(.init(direction, .close(code: code == 1005 ? nil : code, reason: reason), at: time)) }
    }

    /// Writes the conversation as a rule, once: `nil` when it was finished before.
    @discardableResult
    package func finish() -> Result<Recorder.WebSocketOutcome, RecordingError>? {
        let taken = recording.withLock { recording -> WebSocketRecording? in
            defer { recording = nil }
            return recording
        }
        return taken.map(recorder.record)
    }
}
#endif
