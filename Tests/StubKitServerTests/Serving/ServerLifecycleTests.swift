#if Tools
import Foundation
import StubKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starting, running side by side, refusing bad arguments, and shutting down in the middle of an answer.
@Suite("stubkit serve lifecycle", .timeLimit(.minutes(2)))
struct ServerLifecycleTests {
    @Test("two servers started at once with --port 0 get different ports, write them to --port-file, and both serve")
    func twoServersAtOnce() throws {
        let folder = try TemporaryFolder()
        let portFiles = (0..<2).map { folder.url.appendingPathComponent("port-\($0)") }
        let started = LockedBox<[Result<ServerProcess, any Error>?]>([nil, nil])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let result = Result { try ServerProcess([stubBundles, "--template", "restaurants_base", "--port", "0", "--port-file", portFiles[index].path]) }
            started.mutate { $0[index] = result }
        }
        let servers = try started.value.map { try #require($0).get() }
        #expect(servers[0].port != servers[1].port)
        for (server, portFile) in zip(servers, portFiles) {
            #expect(server.port > 0)
            #expect(try String(contentsOf: portFile, encoding: .utf8) == "\(server.port)\n")
            #expect(try Curl.request("\(server.baseURL)/api.takeaway.example/restaurants").status == 200)
        }
        for server in servers { expectCleanExit(server.terminate(SIGTERM)) }
    }

    /// A 6,000-byte body at 4,000 bytes a second: 1,000 bytes a quarter second, about 1.5 s in all.
    static let slowBody = String((0..<6000).map { index in Character(UnicodeScalar(UInt8(97 + index % 26))) })

    @Test("SIGTERM during a throttled answer: the client gets the whole body, the server exits 0 and writes --har")
    func gracefulShutdownMidResponse() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("slow", ["stubsRules.json": """
            { "host": "slow.example",
              "rules": [ { "method": "GET", "path": "/download", "contentType": "text/plain", "throttle": 4000, "body": "\(Self.slowBody)" } ] }
            """])
        let har = folder.url.appendingPathComponent("journal.har")
        let server = try ServerProcess([folder.url.path, "--template", "slow", "--har", har.path])
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /slow.example/download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // The head and the first chunk have arrived: the answer is in flight.
        let head = try connection.readHead()
        #expect(head.hasPrefix("HTTP/1.1 200"))
        let receivedBeforeSignal = connection.bytesReceived.count - head.utf8.count - 4
        #expect(receivedBeforeSignal < Self.slowBody.utf8.count, "the whole body came before the signal")
        kill(server.process.processIdentifier, SIGTERM)

        let received = try connection.readToEnd()
        let bodyStart = received.range(of: Data("\r\n\r\n".utf8))!.upperBound
        #expect(head.contains("Content-Length: 6000"))
        #expect(String(decoding: received[bodyStart...], as: UTF8.self) == Self.slowBody)

        let exit = server.terminate(SIGTERM)
        expectCleanExit(exit)
        let entries = try #require((try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])?["log"] as? [String: Any])["entries"] as? [[String: Any]]
        #expect(entries?.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["https://slow.example/download"])
    }

    @Test("an answer still running when --shutdown-grace ends is cut off, and the server still exits 0")
    func shutdownPastGrace() throws {
        let folder = try TemporaryFolder()
        // 60,000 bytes at 4,000 bytes a second: 15 s, far past the half-second grace.
        try folder.bundle("slow", ["stubsRules.json": """
            { "host": "slow.example",
              "rules": [ { "method": "GET", "path": "/download", "throttle": 4000, "body": "\(String(repeating: "x", count: 60_000))" } ] }
            """])
        let server = try ServerProcess([folder.url.path, "--template", "slow", "--shutdown-grace", "0.5"])
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /slow.example/download HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let head = try connection.readHead()
        #expect(head.hasPrefix("HTTP/1.1 200"))
        kill(server.process.processIdentifier, SIGTERM)
        let body = try connection.readToEnd().count - head.utf8.count - 4
        #expect(body > 0 && body < 60_000, "\(body) body bytes")
        // Exits on its own (a shutdown that hangs is killed after a minute and fails here).
        expectCleanExit(server.terminate(SIGTERM))
    }

    @Test("SIGTERM answers a pending admin wait with 503 at once instead of holding the shutdown")
    func shutdownEndsLongPolls() throws {
        let server = try ServerProcess([stubBundles, "--template", "restaurants_base"])
        let poll = try RawConnection(port: server.port)
        try poll.send("GET /__stubkit/wait?path=/never&timeout=300 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // Another client is served after the poll went out, so the poll is waiting by now.
        #expect(try Curl.request("\(server.baseURL)/api.takeaway.example/restaurants").status == 200)
        kill(server.process.processIdentifier, SIGTERM)
        let head = try poll.readHead()
        #expect(head.hasPrefix("HTTP/1.1 503"), "\(head)")
        #expect(head.contains("Connection: close"))
        #expect(String(decoding: try poll.readToEnd(), as: UTF8.self).contains("shutting down"))
        expectCleanExit(server.terminate(SIGTERM))
    }

    /// One bad command line and a word its message must contain.
    struct BadArguments: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var named: String
        var testDescription: String { name }
    }

    static let badArguments: [BadArguments] = [
        .init(name: "missing folder", arguments: ["/no/such/bundles", "--template", "restaurants_base"], named: "/no/such/bundles"),
        .init(name: "unknown template", arguments: [stubBundles, "--template", "restaurants_bsae"], named: "no template 'restaurants_bsae' in"),
        .init(name: "template typo gets a suggestion", arguments: [stubBundles, "--template", "restaurant_base"], named: "did you mean 'restaurants_base'?"),
        .init(name: "--kill-network with --forward", arguments: [stubBundles, "--kill-network", "--forward"], named: "--kill-network"),
        .init(name: "--kill-network with --record", arguments: [stubBundles, "--kill-network", "--record", "x"], named: "--record"),
        .init(name: "port out of range", arguments: [stubBundles, "--port", "70000"], named: "--port 70000 is not a port number"),
        .init(name: "negative port", arguments: [stubBundles, "--port", "-1"], named: "--port -1 is not a port number"),
        .init(name: "--now not a date", arguments: [stubBundles, "--now", "yesterday"], named: "--now"),
        .init(name: "--header-timeout zero", arguments: [stubBundles, "--header-timeout", "0"], named: "--header-timeout"),
        .init(name: "--upstream-scheme ftp", arguments: [stubBundles, "--upstream-scheme", "ftp"], named: "--upstream-scheme"),
        .init(name: "--upstream-ca missing", arguments: [stubBundles, "--upstream-ca", "/no/such/ca.pem"],
              named: "/no/such/ca.pem: the upstream certificate authorities (--upstream-ca) cannot be read"),
        .init(name: "--upstream-ca not PEM", arguments: [stubBundles, "--upstream-ca", PackagePaths.root.appendingPathComponent("README.md").path],
              named: "README.md: the upstream certificate authorities (--upstream-ca) hold no PEM certificate"),
    ]

    @Test("bad arguments exit 2 with a message naming the argument", arguments: badArguments)
    func badArgumentsExit2(_ bad: BadArguments) throws {
        let exit = try ServerProcess.failingToStart(bad.arguments)
        #expect(exit.exited && exit.status == 2, "status \(exit.status): \(exit.stderr)")
        #expect(exit.stderr.contains(bad.named), "\(exit.stderr)")
        #expect(!exit.stdout.contains("listening on"))
    }

    @Test("a port already in use exits 2 naming the port and the reason, and nothing after")
    func portInUse() throws {
        let occupant = try LoopbackServer()
        // The failed bind lets go of its channel while the event loops stop; the release used to land on
        // a loop already stopped now and then. SWIFTNIO_STRICT turns that into a crash, and five tries
        // make a one-in-two race show.
        for _ in 0..<5 {
            let exit = try ChildProcess.run("stubkit", arguments: ["serve", stubBundles, "--port", String(occupant.port)], environment: ["SWIFTNIO_STRICT": "1"])
            #expect(exit.status == 2, "status \(exit.status): \(exit.stderr)")
            #expect(exit.stderr == "stubkit: cannot listen on 127.0.0.1:\(occupant.port): Address already in use (errno \(EADDRINUSE)); another process uses it: choose another port, or 0 for a free one\n",
                    "\(exit.stderr)")
            #expect(!exit.stdout.contains("listening on"))
        }
    }
}

/// A value shared by the threads of `concurrentPerform`, behind a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
#endif
