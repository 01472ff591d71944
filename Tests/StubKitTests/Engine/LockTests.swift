import Foundation
import Testing
@testable import StubKit

/// The locks every stubbed request takes: one value behind one lock, and the recursive lock a load's
/// client calls are made under (a client call may lead to `stopLoading` on the same thread).
struct LockTests {
    @Test("Locked: increments from 8 threads at once are none of them lost, and copies share the value")
    func lockedIsExclusive() {
        let counter = Locked(0)
        let copy = counter
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<10_000 { copy.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 80_000)
    }

    @Test("RecursiveLock: the thread holding it takes it again (as a client call that stops the load does) without blocking")
    func recursiveLockIsReentrant() {
        let lock = RecursiveLock()
        let done = DispatchSemaphore(value: 0)
        let depth = Locked(0)
        // On a thread of its own: were the lock not re-entrant, that thread would block for good and
        // the bounded wait below would fail the test instead of hanging it.
        Thread {
            lock.withLock {
                depth.withLock { $0 += 1 }
                lock.withLock { depth.withLock { $0 += 1 } }
            }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 30) == .success, "the thread holding the lock blocked taking it again")
        #expect(depth.withLock { $0 } == 2)
    }

    @Test("RecursiveLock: another thread waits while one holds it")
    func recursiveLockExcludesOthers() {
        let lock = RecursiveLock()
        let inside = Locked(0)
        let maximum = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<2_000 {
                lock.withLock {
                    let now = inside.withLock { $0 += 1; return $0 }
                    maximum.withLock { $0 = max($0, now) }
                    inside.withLock { $0 -= 1 }
                }
            }
        }
        #expect(maximum.withLock { $0 } == 1)
    }
}
