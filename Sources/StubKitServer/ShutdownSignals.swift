#if Tools
import Dispatch
import Foundation
import StubKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM caught from the moment this is made (before the server says it listens, so a
/// signal sent as soon as the `listening on` line appears still shuts down gracefully).
///
/// The handler is installed before `init` returns and only writes the signal's number to a pipe; a
/// thread of its own reads the pipe. (Dispatch signal sources on Linux install their handler later,
/// on dispatch's manager thread, and only for the first source of a signal: a signal sent before
/// then, or after another `SIG_IGN`, was dropped.) That thread also unblocks the signals, so they
/// arrive even when every other thread blocks them (threads started from dispatch's workers do).
package final class ShutdownSignals: Sendable {
    private struct State {
        var received = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let signals: [Int32]
    private let writeEnd: Int32

    package init(_ signals: [Int32] = [SIGINT, SIGTERM]) {
        self.signals = signals
        var ends: [Int32] = [0, 0]
        precondition(pipe(&ends) == 0, "cannot make the signal pipe: errno \(errno)")
        let (readEnd, writeEnd) = (ends[0], ends[1])
        self.writeEnd = writeEnd
        // The handler never blocks: a full pipe means a signal is already waiting to be read.
        _ = fcntl(writeEnd, F_SETFL, fcntl(writeEnd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        for number in signals {
            precondition((1..<65).contains(number), "\(number) is not a signal number")
            signalPipes[Int(number)] = writeEnd
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = forwardSignal
            #else
            action.__sigaction_u.__sa_handler = forwardSignal
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        let thread = Thread { [weak self, signals] in
            var mask = sigset_t()
            sigemptyset(&mask)
            for number in signals { sigaddset(&mask, number) }
            pthread_sigmask(SIG_UNBLOCK, &mask, nil)
            var byte: UInt8 = 0
            // Ends when `deinit` closes the write end.
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 {
                    self?.fire()
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(readEnd)
        }
        thread.name = "StubKit.server.signals"
        thread.start()
    }

    deinit {
        // Later signals of these numbers are ignored rather than written to a closed descriptor.
        for number in signals where signalPipes[Int(number)] == writeEnd {
            signal(number, SIG_IGN)
            signalPipes[Int(number)] = -1
        }
        close(writeEnd)
    }

    /// Signalled once per signal caught, by the reading thread: a wait on it needs no task to run, so a
    /// busy cooperative pool cannot delay it (tests wait on it).
    package let arrivals = DispatchSemaphore(value: 0)

    private func fire() {
        arrivals.signal()
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

/// The pipe each signal's handler writes to, by signal number. Read by the handler, which may use
/// nothing but async-signal-safe calls (no locks), so it is set before the handler is installed.
/// Plain memory rather than a Swift array: the handler must not meet a copy-on-write.
nonisolated(unsafe) private let signalPipes: UnsafeMutablePointer<Int32> = {
    let pipes = UnsafeMutablePointer<Int32>.allocate(capacity: 65)
    pipes.initialize(repeating: -1, count: 65)
    return pipes
}()

private func forwardSignal(_ number: Int32) {
    let saved = errno
    let pipe = number >= 0 && number < 65 ? signalPipes[Int(number)] : -1
    if pipe >= 0 {
        var byte = UInt8(truncatingIfNeeded: number)
        _ = write(pipe, &byte, 1)
    }
    errno = saved
}
#endif
