#if Tools
import Foundation
@testable import StubKitServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Signals sent to this test process itself: SIGUSR1 and SIGUSR2, so the test runner's own SIGINT and
/// SIGTERM handling stays as it is.
@Suite("shutdown signals", .serialized, .timeLimit(.minutes(1)))
struct ShutdownSignalsTests {
    @Test("a signal sent the moment the signals are made is caught, not dropped")
    func signalRightAfterInit() throws {
        for round in 1...5 {
            let signals = ShutdownSignals([SIGUSR1])
            kill(getpid(), SIGUSR1)
            #expect(signals.wait(limit: 5), "round \(round): the SIGUSR1 was lost")
        }
    }

    @Test("a second signal after the first is caught too and does not end the process")
    func secondSignal() throws {
        let signals = ShutdownSignals([SIGUSR2])
        kill(getpid(), SIGUSR2)
        #expect(signals.wait(limit: 5))
        kill(getpid(), SIGUSR2)
        #expect(signals.wait(limit: 5))
    }
}

extension ShutdownSignals {
    /// Whether a signal arrived within `limit` seconds. A waiter left behind by a lost signal stays
    /// suspended (waiting cannot be cancelled); it holds nothing the next round needs.
    func wait(limit: TimeInterval) -> Bool {
        let arrived = DispatchSemaphore(value: 0)
        Task { await self.wait(); arrived.signal() }
        return arrived.wait(timeout: .now() + limit) == .success
    }
}
#endif
