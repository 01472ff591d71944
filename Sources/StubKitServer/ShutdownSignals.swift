#if Tools
import Dispatch
import Foundation

/// SIGINT and SIGTERM caught from the moment this is made (before the server says it listens, so a
/// signal sent as soon as the `listening on` line appears still shuts down gracefully).
package final class ShutdownSignals: @unchecked Sendable {
    private let lock = NSLock()
    private var received = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
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
        lock.lock()
        received = true
        let resumed = waiting
        waiting = []
        lock.unlock()
        resumed.forEach { $0.resume() }
    }

    /// Returns once one of the signals arrived (at once if one already did).
    package func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if received {
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append(continuation)
                lock.unlock()
            }
        }
    }
}
#endif
