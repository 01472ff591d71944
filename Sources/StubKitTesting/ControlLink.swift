import Foundation
import StubKit

/// One app's control connection on the runner's side, shut down and closed under one lock and
/// closed once: the reader thread closes it when the app goes, while a writer or the session may
/// shut it down at any moment, and a descriptor closed twice (or shut down after closing) could hit
/// an unrelated file the process opened since with the same number.
final class ControlLink: Sendable {
    let socket: LoopbackSocket
    private let closed = Locked(false)

    init(_ socket: LoopbackSocket) {
        self.socket = socket
    }

    /// Ends the connection both ways, so the reader blocked on it returns; nothing once closed.
    func shutdown() {
        closed.withLock { closed in
            if !closed { socket.shutdown() }
        }
    }

    /// Closes the descriptor, once.
    func close() {
        closed.withLock { closed in
            if !closed { socket.close() }
            closed = true
        }
    }
}
