#if Tools
import Foundation
@testable import StubKitServer
import StubKit
import StubKitTestSupport
import Testing

/// WebSocket clients that break the protocol, never read, vanish or outlive the server, driven over
/// raw sockets: each gets the close code RFC 6455 gives, and the server keeps serving everyone else.
@Suite("Local server: WebSockets with bad clients", .timeLimit(.minutes(2)))
struct WebSocketBadInputTests {
    struct BadFrame: CustomTestStringConvertible, Sendable {
        var name: String
        var frames: [Data]
        var code: Int
        var testDescription: String { name }
    }

    static let badFrames: [BadFrame] = [
        BadFrame(name: "an unmasked client frame", frames: [WebSocketFixture.frame(opcode: 1, Data("hello".utf8), masked: false)], code: 1002),
        BadFrame(name: "a reserved opcode (3)", frames: [WebSocketFixture.frame(opcode: 3, Data("hello".utf8))], code: 1002),
        BadFrame(name: "a continuation with no message", frames: [WebSocketFixture.frame(opcode: 0, Data("x".utf8))], code: 1002),
        BadFrame(name: "a control frame over 125 bytes", frames: [WebSocketFixture.frame(opcode: 9, Data(count: 200))], code: 1002),
        BadFrame(name: "a text frame that is not UTF-8", frames: [WebSocketFixture.frame(opcode: 1, Data([0x68, 0xC3, 0x28]))], code: 1007),
        BadFrame(name: "a 5,000-byte frame over maxMessageSize 4096", frames: [WebSocketFixture.frame(opcode: 1, Data(repeating: 0x61, count: 5000))], code: 1009),
        BadFrame(name: "a message of 3 fragments of 2,000 bytes over maxMessageSize 4096", frames: [
            WebSocketFixture.frame(opcode: 1, Data(repeating: 0x61, count: 2000), fin: false),
            WebSocketFixture.frame(opcode: 0, Data(repeating: 0x61, count: 2000), fin: false),
            WebSocketFixture.frame(opcode: 0, Data(repeating: 0x61, count: 2000)),
        ], code: 1009),
        BadFrame(name: "a fragmented control frame (a ping without FIN)", frames: [WebSocketFixture.frame(opcode: 9, Data("are you".utf8), fin: false)], code: 1002),
        BadFrame(name: "invalid UTF-8 split across fragments", frames: [
            WebSocketFixture.frame(opcode: 1, Data([0x68, 0xC3]), fin: false),
            WebSocketFixture.frame(opcode: 0, Data([0x28])),
        ], code: 1007),
        BadFrame(name: "a close with a code no endpoint may send (1005)", frames: [WebSocketFixture.frame(opcode: 8, Data([0x03, 0xED]))], code: 1002),
        BadFrame(name: "a close with a 1-byte payload", frames: [WebSocketFixture.frame(opcode: 8, Data([0x03]))], code: 1002),
        BadFrame(name: "a text frame with a reserved bit (RSV1) set and no extension", frames: [reserved(WebSocketFixture.frame(opcode: 1, Data("hello".utf8)))], code: 1002),
    ]

    /// `frame` with RSV1 set, which only a negotiated extension (none here) may use.
    static func reserved(_ frame: Data) -> Data {
        var frame = frame
        frame[frame.startIndex] |= 0x40
        return frame
    }

    /// Opens a WebSocket over a raw connection and reads through the `101` head.
    static func open(_ server: ServerFixture, _ path: String) throws -> RawConnection {
        let connection = try RawConnection(port: server.port)
        try connection.send(WebSocketFixture.handshake(path))
        let head = try connection.readHead()
        #expect(head.hasPrefix("HTTP/1.1 101"), "\(head)")
        return connection
    }

    static func expectServing(_ server: ServerFixture, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let data = try await WebSocketFixture.offPool {
            try open(server, "/chat/again").read { String(decoding: $0, as: UTF8.self).contains("welcome to again") }
        }
        #expect(String(decoding: data, as: UTF8.self).contains("welcome to again"), sourceLocation: sourceLocation)
        let status = await server.get("/api.chat.example/status")
        #expect(status.status == 200, sourceLocation: sourceLocation)
    }

    @Test("a broken frame gets the close code RFC 6455 gives it; the server keeps serving", arguments: badFrames)
    func badFrame(_ bad: BadFrame) async throws {
        let server = try await WebSocketFixture.server()
        let received = try await WebSocketFixture.offPool {
            let connection = try Self.open(server, "/chat/lobby")
            for frame in bad.frames { try connection.send(frame) }
            return try connection.read { WebSocketFixture.closeFrame(in: $0) != nil }
        }
        #expect(WebSocketFixture.closeFrame(in: received)?.code == bad.code, "\(String(describing: WebSocketFixture.closeFrame(in: received)))")
        let entry = try await WebSocketFixture.entry(server, path: "/chat/lobby")
        #expect(entry.webSocketMessages?.last { $0.direction == .sent }?.closeCode == UInt16(bad.code))
        try await Self.expectServing(server)
        await server.stop()
    }

    @Test("a plain GET to a WebSocket rule gets the near-miss 502 saying it is not a WebSocket upgrade")
    func plainGet() async throws {
        let server = try await WebSocketFixture.server()
        let answer = await server.get("/api.chat.example/chat/lobby")
        #expect(answer.status == 502)
        let text = answer.text ?? ""
        #expect(text.contains("chat") && text.contains("upgrade") && text.contains("a WebSocket upgrade (Upgrade: websocket)") && text.contains("a plain HTTP request"), "\(text)")
        await server.stop()
    }

    @Test("an upgrade to a path without a WebSocket rule is not upgraded: a plain rule answers it, or the near-miss 502")
    func upgradeWithoutRule() async throws {
        let server = try await WebSocketFixture.server()
        for (path, status) in [("/status", "200"), ("/nowhere", "502")] {
            let head = try await WebSocketFixture.offPool {
                let connection = try RawConnection(port: server.port)
                try connection.send(WebSocketFixture.handshake(path))
                return try connection.readHead()
            }
            #expect(head.hasPrefix("HTTP/1.1 \(status)"), "\(path): \(head)")
        }
        // A handshake the server cannot accept (no key) on a WebSocket rule's path says why.
        let answer = try await WebSocketFixture.offPool {
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /api.chat.example/chat/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n")
            return String(decoding: try connection.read { String(decoding: $0, as: UTF8.self).contains("Sec-WebSocket-Key and") }, as: UTF8.self)
        }
        #expect(answer.hasPrefix("HTTP/1.1 400"), "\(answer)")
        await server.stop()
    }

    @Test("a client that never reads while the script sends 9.6 MB and more every millisecond: the server buffers under 1 MB")
    func neverReads() async throws {
        let server = try await WebSocketFixture.server(flood: true)
        let connection = try await WebSocketFixture.offPool { try Self.open(server, "/flood") }
        // The socket's buffers fill (nothing has its own event for that): from then on NIO holds what is left.
        let deadline = Date().addingTimeInterval(30)
        var buffered = 0
        while buffered == 0, Date() < deadline {
            buffered = await server.server.connections.bufferedOutboundBytes()
            await Task.yield()
        }
        #expect(buffered > 0, "the socket never filled")
        var largest = 0
        for _ in 0..<50 {
            largest = max(largest, await server.server.connections.bufferedOutboundBytes())
            await Task.yield()
        }
        #expect(largest < 1 << 20, "the server buffered \(largest) bytes for a client that does not read")
        _ = connection
        await server.stop()
    }

    @Test("a client that vanishes mid-script: its journal entry is written at once with the frames so far, and the server serves on")
    func abruptDisconnect() async throws {
        let server = try await WebSocketFixture.server()
        // The connection is closed as soon as the work returns (the socket is freed with it).
        _ = try await WebSocketFixture.offPool {
            try Self.open(server, "/forever").read { String(decoding: $0, as: UTF8.self).contains("again") }
        }
        let entry = try await WebSocketFixture.entry(server, path: "/forever")
        let messages = try #require(entry.webSocketMessages)
        #expect(messages.first?.text == "first")
        #expect(messages.contains { $0.text == "again" })
        // Written once the connection ended: no frame after it (every timer cancelled, nothing more to journal).
        #expect(entry.duration < 30)
        try await Self.expectServing(server)
        await server.stop()
    }

    @Test("a script that never closes: shutdown sends 1001 (going away) and returns promptly")
    func shutdown() async throws {
        // A grace far beyond the suite's time limit: a shutdown that waited it out could not pass. (A bound of
        // 5 s measured the machine: under the full suite on two cores the stop task itself waited 30 s.)
        let server = try await WebSocketFixture.server(shutdownGrace: 3600)
        let connection = try await WebSocketFixture.offPool {
            let connection = try Self.open(server, "/forever")
            try connection.read { String(decoding: $0, as: UTF8.self).contains("first") }
            return connection
        }
        let started = Date()
        let stopping = Task { await server.stop() }
        let received = try await WebSocketFixture.offPool {
            let received = try connection.read { WebSocketFixture.closeFrame(in: $0) != nil }
            // A client that answers the close: the connection ends, and the shutdown with it.
            try connection.send(WebSocketFixture.frame(opcode: 8, Data([0x03, 0xE9])))
            return received
        }
        #expect(WebSocketFixture.closeFrame(in: received)?.code == 1001)
        await stopping.value
        #expect(Date().timeIntervalSince(started) < 1800, "shutdown took \(Date().timeIntervalSince(started)) s")
    }
}
#endif
