#if Tools
import Dispatch
import Foundation
import StubKit

/// SIGINT and SIGTERM caught from the moment this is made (before the server says it listens, so a
/// signal sent as soon as the `listening on` line appears still shuts down gracefully).
package final class ShutdownSignals: @unchecked Sendable {
    private struct State {
        var received = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private var sources: [any DispatchSourceSignal] = []
    private let queue = DispatchQueue(label: "StubKit.server.signals")

    package init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.fire() }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        sources.forEach { $0.cancel() }
    }

    private func fire() {
        let resumed = state.withLock { state in
            state.received = true
            defer { state.waiting = [] }
            return state.waiting
        }
        resumed.forEach { $0.resume() }
    }

    /// Returns once one of the signals arrived (at once if one already did).
    package func wait() async {
        await withCheckedContinuation { continuation in
            let received = state.withLock { state in
                if !state.received { state.waiting.append(continuation) }
                return state.received
            }
            if received { continuation.resume() }
        }
    }
}
#endif
