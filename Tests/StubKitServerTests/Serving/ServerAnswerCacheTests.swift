#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The server keeps static answers ready between requests; what a client sees must not change.
@Suite("Local server: answers kept between requests", .timeLimit(.minutes(2)))
struct ServerAnswerCacheTests {
    static let rules = """
    { "host": "api.shop.example", "rules": [
      { "name": "menu", "path": "/v1/menu", "response": "menu.json" },
      { "name": "echo", "path": "/v1/echo", "template": true, "json": { "q": "{{query.q}}", "hit": "{{hit}}" } },
      { "name": "links", "path": "/v1/links", "json": { "next": "https://api.shop.example/v1/menu" } }
    ] }
    """

    func fixture() async throws -> ServerFixture {
        try await ServerFixture(bundles: ["api": ["stubsRules.json": Self.rules, "menu.json": #"{"menu":"old"}"#]], active: ["api"])
    }

    @Test("a response file replaced on disk while the server runs is served with its new bytes")
    func replacedFile() async throws {
        let server = try await fixture()
        let file = server.folder.url.appendingPathComponent("api/menu.json")
        #expect(await server.get("/api.shop.example/v1/menu").text == #"{"menu":"old"}"#)
        #expect(await server.get("/api.shop.example/v1/menu").text == #"{"menu":"old"}"#)

        // Replaced the way editors and `cp` over a rename do it: a new file of the same size.
        try Data(#"{"menu":"new"}"#.utf8).write(to: file, options: .atomic)
        let replaced = await server.get("/api.shop.example/v1/menu")
        #expect(replaced.text == #"{"menu":"new"}"#)

        // Written in place with another size.
        try Data(#"{"menu":"longer one"}"#.utf8).write(to: file)
        let rewritten = await server.get("/api.shop.example/v1/menu")
        #expect(rewritten.text == #"{"menu":"longer one"}"#)
        #expect(rewritten.response?.value(forHTTPHeaderField: "Content-Length") == "21")

        // Removed: the same 500 as before any answer was kept.
        try FileManager.default.removeItem(at: file)
        #expect(await server.get("/api.shop.example/v1/menu").status == 500)
        await server.stop()
    }

    @Test("a template rule is rendered for every request, never kept")
    func templateNeverKept() async throws {
        let server = try await fixture()
        let first = await server.get("/api.shop.example/v1/echo?q=soup")
        let second = await server.get("/api.shop.example/v1/echo?q=bread")
        #expect(first.json?["q"] as? String == "soup")
        #expect(second.json?["q"] as? String == "bread")
        #expect(second.json?["hit"] as? String == "1")
        await server.stop()
    }

    @Test("URLs are pointed at the address each client used, even after another client's answer was kept")
    func rewriteBasePerClient() async throws {
        let server = try await fixture()
        let direct = await server.get("/api.shop.example/v1/links")
        let named = await server.get("/api.shop.example/v1/links", headers: ["Host": "localhost:\(server.port)"])
        #expect(direct.json?["next"] as? String == "\(server.base)/api.shop.example/v1/menu")
        #expect(named.json?["next"] as? String == "http://localhost:\(server.port)/api.shop.example/v1/menu")
        await server.stop()
    }

    @Test("a kept-alive connection that then sends half a request is closed after the head time-out")
    func headTimeoutAfterAnswer() async throws {
        let server = try await ServerFixture(bundles: ["api": ["stubsRules.json": Self.rules, "menu.json": #"{"menu":"old"}"#]],
                                             active: ["api"]) { $0.requestHeadTimeout = 1 }
        let connection = try RawConnection(port: server.port, limit: 10)
        try connection.send("GET /api.shop.example/v1/menu HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = try connection.read { String(decoding: $0, as: UTF8.self).hasSuffix(#"{"menu":"old"}"#) }
        #expect(String(decoding: first, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        // The timer set when the connection opened has passed its first deadline by the time it fires
        // again; it must still close the connection rather than wait for the rest for good.
        try connection.send("GET /api.shop.example/v1/menu HTTP/1.1\r\nX-Slow: ")
        let rest = try connection.readToEnd()
        #expect(rest.count == first.count, "no second answer: \(String(decoding: rest, as: UTF8.self))")
        await server.stop()
    }
}
#endif
