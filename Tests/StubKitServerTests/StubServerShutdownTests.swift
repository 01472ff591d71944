import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// ``StubServer`` embedded in the test process, for what the command line does not expose: the
/// shutdown grace period.
@Suite("StubServer shutdown")
struct StubServerShutdownTests {
    @Test("an answer still running when the shutdown grace ends is cut off, and shutdown returns")
    func shutdownPastGrace() async throws {
        let folder = try TemporaryFolder()
        // 60,000 bytes at 4,000 bytes a second: 15 s, far past the half-second grace.
        try folder.bundle("slow", ["stubsRules.json": """
            { "host": "slow.example",
              "rules": [ { "method": "GET", "path": "/download", "throttle": 4000, "body": "\(String(repeating: "x", count: 60_000))" } ] }
            """])
        var configuration = StubServerConfiguration()
        configuration.shutdownGrace = 0.5
        let server = StubServer(engine: StubEngine(), bundlesFolder: folder.url, configuration: configuration)
        try server.activate("slow")
        let port = try await server.start()
        let connection = try RawConnection(port: port)
        try connection.send("GET /slow.example/download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try connection.readHead()
        #expect(head.hasPrefix("HTTP/1.1 200"))

        // Returns once the grace has passed and the connection was closed (it used to hang for ever:
        // the limit only keeps that bug from hanging the test run).
        let returned = await Self.finishes(within: 30) { await server.shutdown() }
        #expect(returned, "shutdown() did not return 30 s after a 0.5 s grace")
        let received = try connection.readToEnd()
        let body = received.count - head.utf8.count - 4
        #expect(body > 0 && body < 60_000, "\(body) body bytes")
        #expect(connection.isClosedByPeer)
    }

    /// Whether `work` finishes within `limit` seconds; a hung `work` is left behind, not awaited.
    static func finishes(within limit: TimeInterval, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        let gate = Gate()
        Task.detached {
            await work()
            gate.open(true)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + limit) { gate.open(false) }
        return await gate.value()
    }

    /// The first `open` wins; waiters before and after it get its value.
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Bool?
        private var waiter: CheckedContinuation<Bool, Never>?

        func open(_ value: Bool) {
            lock.lock()
            guard result == nil else { return lock.unlock() }
            result = value
            let waiting = waiter
            waiter = nil
            lock.unlock()
            waiting?.resume(returning: value)
        }

        func value() async -> Bool {
            await withCheckedContinuation { continuation in
                lock.lock()
                if let result {
                    lock.unlock()
                    continuation.resume(returning: result)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        }
    }
}
