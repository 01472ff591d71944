import Foundation
import Testing
@testable import StubKit

/// A wait in a task that is cancelled (a test that gave up, a timed-out test's task group) ends at once,
/// saying it was cancelled, instead of holding the task until its timeout.
struct StubJournalWaitingTests {
    /// Long enough that a wait which ignored cancellation would make the test fail by its message and
    /// its waiter still being registered long after the cancel, short enough not to stall the suite.
    private static let timeout: TimeInterval = 30

    @Test("a wait whose task is cancelled ends at once with an error saying it was cancelled")
    func cancelledWaitEndsAtOnce() async throws {
        let journal = StubJournal()
        let (armed, armedContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await journal.waitForRequests(matching: RequestPredicate("GET", path: "/never"), count: 1, timeout: Self.timeout,
                                              whenArmed: { armedContinuation.yield() })
        }
        for await _ in armed { break }
        let cancelledAt = Date()
        task.cancel()
        let result = await task.result
        let error = try #require(result.failure as? VerificationError)
        #expect(error.description.hasPrefix("cancelled: expected 1 request matching GET /never"), "\(error)")
        #expect(Date().timeIntervalSince(cancelledAt) < Self.timeout / 2)
        #expect(journal.waiterCount == 0)
    }

    @Test("a check for no requests whose task is cancelled fails at once rather than passing")
    func cancelledCheckFailsAtOnce() async throws {
        let journal = StubJournal()
        let (armed, armedContinuation) = AsyncStream<Void>.makeStream()
        let task = Task {
            try await journal.expectNoRequests(matching: .any, within: Self.timeout, whenArmed: { armedContinuation.yield() })
        }
        for await _ in armed { break }
        task.cancel()
        let error = try #require(await task.result.failure as? VerificationError)
        #expect(error.description.hasPrefix("cancelled: expected no request matching"), "\(error)")
        #expect(journal.waiterCount == 0)
    }

    @Test("a wait started in a task already cancelled ends at once")
    func waitInCancelledTaskEndsAtOnce() async throws {
        let journal = StubJournal()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await journal.waitForRequests(matching: .any, count: 1, timeout: Self.timeout)
        }
        let error = try #require(await task.result.failure as? VerificationError)
        #expect(error.description.hasPrefix("cancelled:"), "\(error)")
    }
}

private extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
