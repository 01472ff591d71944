#if Tools
import Foundation
@testable import StubKitServer
import StubKit
import StubKitTestSupport
import Testing

/// Upgrades the server refuses, each with a status and a text that says why: a page on another site
/// (WebSockets are outside the browser's same-origin rules), subprotocols the rule does not accept, an
/// upgrade that is not its connection's first request.
@Suite("Local server: refused WebSocket upgrades", .timeLimit(.minutes(2)))
struct WebSocketUpgradeRefusalTests {
    /// Sends `requests` on one raw connection and reads until `done` holds for the text so far.
    static func exchange(_ server: ServerFixture, _ requests: [String], until done: @escaping @Sendable (String) -> Bool) async throws -> String {
        let data = try await WebSocketFixture.offPool {
            let connection = try RawConnection(port: server.port)
            for request in requests { try connection.send(request) }
            return try connection.read { done(String(decoding: $0, as: UTF8.self)) }
        }
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a page on another site gets 403 naming its origin and --cors; loopback pages and native clients are accepted")
    func foreignOrigin() async throws {
        let server = try await WebSocketFixture.server()
        let refused = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/evil", extra: "Origin: https://evil.example\r\n")]) {
            $0.contains("--cors")
        }
        #expect(refused.hasPrefix("HTTP/1.1 403"), "\(refused)")
        #expect(refused.contains("'https://evil.example' is refused"))
        for origin in ["http://127.0.0.1:9", "http://localhost:8080", "http://[::1]:3000"] {
            let accepted = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/ok", extra: "Origin: \(origin)\r\n")]) { $0.contains("welcome") }
            #expect(accepted.hasPrefix("HTTP/1.1 101"), "\(origin): \(accepted)")
        }
        let entries = server.engine.journal.entries.filter { $0.request.url.path == "/chat/evil" }
        #expect(entries.map(\.status) == [403])
        // Sandboxed frames and file pages send "null": refused too.
        let null = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/null", extra: "Origin: null\r\n")]) { $0.contains("--cors") }
        #expect(null.hasPrefix("HTTP/1.1 403"), "\(null)")
        await server.stop()
    }

    @Test("with --cors every origin is accepted")
    func corsAcceptsEveryOrigin() async throws {
        let server = try await ServerFixture(bundles: ["chat": ["stubsRules.json": WebSocketFixture.chatRules.replacingOccurrences(of: "FLOODTEXT", with: "x").replacingOccurrences(of: "FLOOD", with: "{ \"text\": \"x\" }")]],
                                             active: ["chat"]) { $0.cors = true }
        let accepted = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/any", extra: "Origin: https://evil.example\r\n")]) { $0.contains("welcome") }
        #expect(accepted.hasPrefix("HTTP/1.1 101"), "\(accepted)")
        await server.stop()
    }

    @Test("subprotocols the rule does not accept get 400 naming both sides")
    func subprotocolMismatch() async throws {
        let server = try await WebSocketFixture.server()
        let refused = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/proto", extra: "Sec-WebSocket-Protocol: chat.v2, mqtt\r\n")]) {
            $0.contains("uses")
        }
        #expect(refused.hasPrefix("HTTP/1.1 400"), "\(refused)")
        #expect(refused.contains("accepts only 'chat.v1', and the client offered 'chat.v2', 'mqtt'"), "\(refused)")
        let accepted = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/proto", extra: "Sec-WebSocket-Protocol: mqtt, chat.v1\r\n")]) { $0.contains("welcome") }
        #expect(accepted.hasPrefix("HTTP/1.1 101"), "\(accepted)")
        #expect(accepted.contains("Sec-WebSocket-Protocol: chat.v1") || accepted.contains("sec-websocket-protocol: chat.v1"), "\(accepted)")
        // No subprotocol offered: accepted, none chosen.
        let plain = try await Self.exchange(server, [WebSocketFixture.handshake("/chat/plain")]) { $0.contains("welcome") }
        #expect(plain.hasPrefix("HTTP/1.1 101"), "\(plain)")
        await server.stop()
    }

    @Test("an upgrade that is not its connection's first request is told so")
    func upgradeOnReusedConnection() async throws {
        let server = try await WebSocketFixture.server()
        let text = try await Self.exchange(server, [
            "GET /api.chat.example/status HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            WebSocketFixture.handshake("/chat/second"),
        ]) { $0.contains("new connection") }
        #expect(text.contains("HTTP/1.1 400"), "\(text)")
        #expect(text.contains("must be its connection's first request"), "\(text)")
        await server.stop()
    }
}
#endif
