import Foundation
import Testing
@testable import StubKit

/// The state machine behind covering new sessions on Apple platforms (the getter swap itself is the
/// only Apple-only part), run here with an install that can be held half-way.
struct ConfigurationCoverageTests {
    @Test("the install runs once, on the first turn-on; coverage follows every call")
    func installsOnce() {
        let installs = Locked(0)
        let coverage = ConfigurationCoverage { installs.withLock { $0 += 1 } }
        coverage.setCovering(false)
        #expect(installs.withLock { $0 } == 0)
        #expect(!coverage.isCovering)
        coverage.setCovering(true)
        coverage.setCovering(false)
        #expect(!coverage.isCovering)
        coverage.setCovering(true)
        #expect(coverage.isCovering)
        #expect(installs.withLock { $0 } == 1)
    }

    @Test("a second register() during the first one's install returns only once the install is done")
    func concurrentTurnOnWaitsForTheInstall() {
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let done = Locked(false)
        let coverage = ConfigurationCoverage {
            entered.signal()
            release.wait()
            done.withLock { $0 = true }
        }
        let first = DispatchSemaphore(value: 0), second = DispatchSemaphore(value: 0)
        let secondSawInstall = Locked<Bool?>(nil)
        DispatchQueue.global().async { coverage.setCovering(true); first.signal() }
        entered.wait()
        DispatchQueue.global().async {
            coverage.setCovering(true)
            secondSawInstall.withLock { $0 = done.withLock { $0 } }
            second.signal()
        }
        // Held in the install, the second call must not come back; 0.3 s is ample for one that does not wait.
        #expect(second.wait(timeout: .now() + 0.3) == .timedOut, "the second call returned while the install was still running")
        // The swapped getters ask isCovering: it must answer during the install, not wait for it.
        let answered = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { _ = coverage.isCovering; answered.signal() }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        release.signal()
        first.wait()
        second.wait()
        #expect(secondSawInstall.withLock { $0 } == true)
    }
}
