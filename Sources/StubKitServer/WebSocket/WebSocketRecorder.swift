#if Tools
import Foundation
import StubKit

/// Collects one relayed WebSocket conversation (what the app and the real server sent, with arrival
/// times) and writes it as a rule when it ends, through the recorder that writes HTTP exchanges.
///
/// The relay calls ``note(_:_:at:)`` for every text or binary message in either direction,
/// ``noteClose(_:code:reason:at:)`` for a close frame, and ``finish()`` once the connection is gone.
/// Pings and pongs are not noted. Thread-safe: both directions may note from their own event loops.
///
/// A conversation that never ends (a live feed over a WebSocket) is kept up to ``maximumMessages``
/// messages and ``maximumBytes`` of payload: past either, nothing more is kept, the rule is written with
/// what came before, and the recorder's summary says where it was cut.
package final class WebSocketRecorder: Sendable {
    /// Messages kept at most: far more than a scripted conversation holds, and a rules file that still loads.
    package static let maximumMessages = 10_000
    /// Payload bytes kept at most, as for a recorded event stream.
    package static let maximumBytes = 8 << 20

    private let recorder: Recorder
    private let state: Locked<State>
    private let limits: (messages: Int, bytes: Int)

    private struct State {
        /// `nil` once written.
        var recording: WebSocketRecording?
        var bytes = 0
        var cut = false
    }

    /// - Parameters:
    ///   - request: the app's upgrade request, with the real server's URL.
    ///   - subprotocol: what the real server accepted (``WebSocketUpstream/subprotocol``).
    ///   - openedAt: when the upgrade completed; the first `onConnect` delay counts from here.
    ///   - limits: the caps (tests make them small).
    package init(recorder: Recorder, request: StubRequest, subprotocol: String?, openedAt: Date = Date(),
                 limits: (messages: Int, bytes: Int) = (WebSocketRecorder.maximumMessages, WebSocketRecorder.maximumBytes)) {
        self.recorder = recorder
        self.state = Locked(State(recording: WebSocketRecording(request: request, subprotocol: subprotocol, openedAt: openedAt)))
        self.limits = limits
    }

    /// Notes a text or binary message.
    package func note(_ direction: WebSocketRecording.Direction, _ message: WebSocketScript.Message, at time: Date = Date()) {
        let kind: WebSocketRecording.Kind
        switch message {
        case .text(let text): kind = .text(text)
        case .binary(let data): kind = .binary(data)
        }
        keep(.init(direction, kind, at: time), size: message.data.count)
    }

    /// Notes a close frame (`code` 1005: the frame had none; 1006, no frame at all, is not a message
    /// and is not noted).
    package func noteClose(_ direction: WebSocketRecording.Direction, code: UInt16, reason: String, at time: Date = Date()) {
        guard code != 1006 else { return }
        keep(.init(direction, .close(code: code == 1005 ? nil : code, reason: reason), at: time), size: reason.utf8.count)
    }

    /// Keeps a message unless the recording is over one of its limits; the first one over cuts it there.
    private func keep(_ message: WebSocketRecording.Message, size: Int) {
        let cutAt = state.withLock { state -> String? in
            guard !state.cut, state.recording != nil else { return nil }
            if state.recording!.messages.count + 1 > limits.messages || state.bytes + size > limits.bytes {
                state.cut = true
                return state.recording!.request.url.absoluteString
            }
            state.bytes += size
            state.recording!.messages.append(message)
            return nil
        }
        if let cutAt {
            recorder.noteProblem("the WebSocket conversation with \(cutAt) passed \(limits.messages) messages or \(limits.bytes) bytes; its rule keeps what came before")
        }
    }

    /// Writes the conversation as a rule, once: `nil` when it was finished before.
    @discardableResult
    package func finish() -> Result<Recorder.WebSocketOutcome, RecordingError>? {
        let taken = state.withLock { state -> WebSocketRecording? in
            defer { state.recording = nil }
            return state.recording
        }
        return taken.map(recorder.record)
    }
}
#endif
