#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// One connection's framing: pipelined requests answered whole and in order, answers that have no
/// body, and limits that cannot crash the server.
@Suite("Local server: connections", .timeLimit(.minutes(2)))
struct ServerConnectionTests {
    static let api = """
    { "host": "api.shop.example", "rules": [
      { "name": "late", "path": "/late", "delay": 0.6, "json": { "late": true } },
      { "name": "fast", "path": "/fast", "json": { "fast": true } },
      { "name": "no content", "path": "/none", "status": 204, "contentType": "text/plain", "body": "stray-bytes" },
      { "name": "not modified", "path": "/same", "status": 304, "contentType": "text/plain", "body": "stale-bytes" },
      { "name": "shouting", "path": "/shouting", "contentType": "text/plain", "body": "HTTPS://API.SHOP.EXAMPLE/a Http://api.shop.example/b" }
    ] }
    """

    func fixture(_ configure: (inout StubServerConfiguration) -> Void = { _ in }) async throws -> ServerFixture {
        try await ServerFixture(bundles: ["api": ["stubsRules.json": Self.api]], active: ["api"], configure: configure)
    }

    static func get(_ path: String, close: Bool = false) -> String {
        "GET /api.shop.example\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(close ? "Connection: close\r\n" : "")\r\n"
    }

    @Test("a pipelined request behind a delayed answer is answered, though its delay outlasts --header-timeout")
    func pipelinedDelays() async throws {
        // The head time-out (0.3 s) is shorter than each delay (0.6 s): it must not run while an answer is due.
        let server = try await fixture { $0.requestHeadTimeout = 0.3 }
        let connection = try RawConnection(port: server.port)
        try connection.send(Self.get("/late") + Self.get("/late") + Self.get("/fast", close: true))
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        #expect(text.components(separatedBy: #"{"late":true}"#).count == 3, "\(text)")
        #expect(text.hasSuffix(#"{"fast":true}"#), "\(text)")
        await server.stop()
    }

    @Test("204 and 304 answers end with their head: a rule's body never reaches the wire to be read as the next answer",
          arguments: ["/none", "/same"])
    func bodylessStatuses(_ path: String) async throws {
        let server = try await fixture()
        let connection = try RawConnection(port: server.port)
        try connection.send(Self.get(path) + Self.get("/fast", close: true))
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        #expect(!text.contains("-bytes"), "\(text)")
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 3, "\(text)")
        #expect(text.hasSuffix(#"{"fast":true}"#), "\(text)")
        await server.stop()
    }

    @Test("huge time limits mean 'practically never', not a crash")
    func hugeLimits() throws {
        try withServer([stubBundles, "--template", "restaurants_base", "--header-timeout", "1e10", "--timed-out-hold", "inf",
                        "--shutdown-grace", "1e300"]) { server in
            try ServerBadInputTests.expectServing(server)
        }
    }
}

extension ServerConnectionTests {
    @Test("a request in absolute form naming the server itself is served as its path (the admin API too)")
    func absoluteFormToTheServer() async throws {
        let server = try await fixture()
        let connection = try RawConnection(port: server.port)
        try connection.send("GET \(server.base)/api.shop.example/fast HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n"
            + "GET \(server.base)/__stubkit/status HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nConnection: close\r\n\r\n")
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 OK"), "\(text)")
        #expect(text.contains(#"{"fast":true}"#), "\(text)")
        #expect(text.contains(#""active":["api"]"#), "\(text)")
        await server.stop()
    }
}

extension ServerConnectionTests {
    @Test("an HTTP/1.0 client asking for keep-alive is told the connection stays open, and it does")
    func http10KeepAlive() async throws {
        let server = try await fixture()
        let connection = try RawConnection(port: server.port)
        try connection.send("GET /api.shop.example/fast HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        let head = try connection.readHead()
        #expect(head.lowercased().contains("connection: keep-alive"), "\(head)")
        try connection.read { String(decoding: $0, as: UTF8.self).hasSuffix(#"{"fast":true}"#) }
        try connection.send("GET /api.shop.example/fast HTTP/1.0\r\n\r\n")
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        #expect(text.components(separatedBy: #"{"fast":true}"#).count == 3, "\(text)")
        await server.stop()
    }

    @Test("URLs of stubbed hosts are rewritten whatever the case of their scheme")
    func schemeCase() async throws {
        let server = try await fixture()
        let text = await server.get("/api.shop.example/shouting").text
        #expect(text == "\(server.base)/API.SHOP.EXAMPLE/a \(server.base)/api.shop.example/b")
        await server.stop()
    }
}
#endif
