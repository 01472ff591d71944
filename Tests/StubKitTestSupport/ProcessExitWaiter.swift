import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits for a child process to end by blocking on its termination handler, never by
/// `Process.waitUntilExit()`: on Linux that spins the thread's run loop until Foundation reaps the
/// child, and in the thread sanitizer run two such spinning threads on a two-core machine kept the
/// reaper from running for minutes. Install it before `run()`.
public final class ProcessExitWaiter: Sendable {
    private let ended = DispatchSemaphore(value: 0)

    public init(_ process: Process) {
        let ended = self.ended
        process.terminationHandler = { _ in ended.signal() }
    }

    /// Whether the process ended within `limit` seconds (then its status can be read); once it has,
    /// every later call returns at once.
    @discardableResult
    public func wait(limit: TimeInterval) -> Bool {
        guard ended.wait(timeout: .now() + limit) == .success else { return false }
        ended.signal()
        return true
    }
}
