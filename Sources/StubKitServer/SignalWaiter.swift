import Foundation
import Dispatch

/// Waits for the first of some signals (SIGINT, SIGTERM), which no longer end the process by default.
enum SignalWaiter {
    static func wait(for signals: [Int32]) async {
        let queue = DispatchQueue(label: "StubKit.server.signals")
        let gate = Gate()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { gate.open() }
            source.resume()
            sources.append(source)
        }
        await gate.wait()
        sources.forEach { $0.cancel() }
    }

    /// Opens once; waiters before or after the opening all pass.
    private final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var isOpen = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func open() {
            lock.lock()
            isOpen = true
            let resumed = waiting
            waiting = []
            lock.unlock()
            resumed.forEach { $0.resume() }
        }

        func wait() async {
            await withCheckedContinuation { continuation in
                lock.lock()
                if isOpen {
                    lock.unlock()
                    continuation.resume()
                } else {
                    waiting.append(continuation)
                    lock.unlock()
                }
            }
        }
    }
}
