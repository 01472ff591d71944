#if Tools
import Foundation
import StubKit
@testable import StubKitServer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Signals sent to this test process itself: SIGUSR1 and SIGUSR2, so the test runner's own SIGINT and
/// SIGTERM handling stays as it is.
@Suite("shutdown signals", .serialized, .timeLimit(.minutes(1)))
struct ShutdownSignalsTests {
    @Test("a signal sent the moment the signals are made is caught, not dropped, every time")
    func signalRightAfterInit() {
        for round in 1...5 {
            let signals = ShutdownSignals([SIGUSR1])
            kill(getpid(), SIGUSR1)
            #expect(signals.arrived(within: 10), "round \(round): the SIGUSR1 was dropped")
        }
    }

    @Test("a second signal after the first does not end the process, and the next catcher gets the one after")
    func secondSignal() {
        let signals = ShutdownSignals([SIGUSR2])
        kill(getpid(), SIGUSR2)
        #expect(signals.arrived(within: 10))
        kill(getpid(), SIGUSR2)
        let next = ShutdownSignals([SIGUSR2])
        kill(getpid(), SIGUSR2)
        #expect(next.arrived(within: 10), "the second catcher of SIGUSR2 missed it")
        withExtendedLifetime(signals) {}
    }
}

extension ShutdownSignals {
    /// Whether a signal arrived within `limit` seconds: a wait on the catching thread's own signal,
    /// so no task has to run first (a cooperative pool kept busy by other suites cannot delay it).
    func arrived(within limit: TimeInterval) -> Bool {
        arrivals.wait(timeout: .now() + limit) == .success
    }
}
#endif
