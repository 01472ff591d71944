#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The WebSocket tests' bundle and helpers: a chat on `ws://127.0.0.1:PORT/api.chat.example/chat/{room}`.
enum WebSocketFixture {
    static let chatRules = """
    { "host": "api.chat.example", "rules": [
      { "name": "chat", "path": "/chat/{room}", "template": true, "scenario": "chat",
        "webSocket": {
          "subprotocol": "chat.v1",
          "maxMessageSize": 4096,
          "onConnect": [ { "text": "welcome to {{path.room}}" }, { "binary": "AAEC", "delay": 0.02 } ],
          "replies": [
            { "when": { "equals": "exact" }, "send": { "text": "equals matched" } },
            { "when": { "containsJSON": { "type": "order" } }, "send": { "json": { "got": "{{body.item}}" } }, "setState": "ordered" },
            { "when": { "matches": "^bye" }, "send": [ { "text": "see you" }, { "close": { "code": 4000, "reason": "chat ended" } } ] },
            { "when": { "contains": "ping me" }, "send": { "ping": "are you there" } },
            { "when": { "contains": "hello" }, "send": { "text": "hi" } }
          ],
          "every": [ { "interval": 0.05, "send": { "text": "tick" }, "times": 3 } ]
        } },
      { "name": "flood", "path": "/flood",
        "webSocket": { "onConnect": [ FLOOD ], "every": [ { "interval": 0.001, "send": { "text": "FLOODTEXT" } } ] } },
      { "name": "forever", "path": "/forever",
        "webSocket": { "onConnect": [ { "text": "first" } ], "every": [ { "interval": 0.05, "send": { "text": "again" } } ] } },
      { "name": "ordered status", "path": "/status", "scenario": "chat", "whenState": "ordered", "json": { "ordered": true } },
      { "name": "status", "path": "/status", "json": { "ordered": false } }
    ] }
    """

    /// 300 messages of 32 KB each (9.6 MB) sent on connect, then one every millisecond: what a client
    /// that never reads must not cost the server.
    static let floodCount = 300
    static let floodMessage = String(repeating: "x", count: 32 << 10)

    /// The chat bundle's server; `flood` fills the `/flood` rule (10 MB of rules to decode, so only when needed).
    static func server(flood: Bool = false, shutdownGrace: TimeInterval? = nil) async throws -> ServerFixture {
        let message = flood ? floodMessage : "x"
        let steps = Array(repeating: "{ \"text\": \"\(message)\" }", count: flood ? floodCount : 1).joined(separator: ", ")
        let rules = chatRules.replacingOccurrences(of: "FLOODTEXT", with: message).replacingOccurrences(of: "FLOOD", with: steps)
        return try await ServerFixture(bundles: ["chat": ["stubsRules.json": rules]], active: ["chat"]) { configuration in
            if let shutdownGrace { configuration.shutdownGrace = shutdownGrace }
        }
    }

    /// Runs blocking work (a raw socket's read, a child process) on a thread of its own: blocking the
    /// test's cooperative thread would starve the server's shutdown and the other tests running meanwhile.
    static func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
        }
    }

    /// The one journal entry of the connection to `path`, once the connection has ended.
    static func entry(_ server: ServerFixture, path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> JournalEntry {
        let predicate = RequestPredicate("GET", path: path, host: "api.chat.example", answered: true)
        try await server.engine.journal.waitForRequests(matching: predicate, count: 1, timeout: 30)
        let entries = server.engine.journal.entries(matching: predicate).filter { $0.webSocketMessages != nil }
        return try #require(entries.last, sourceLocation: sourceLocation)
    }

    /// A client's handshake, for raw connections.
    static func handshake(_ path: String, extra: String = "") -> String {
        "GET /api.chat.example\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\(extra)\r\n"
    }

    /// A client frame: masked unless told otherwise (a zero mask key, so the payload is sent as it is).
    static func frame(opcode: UInt8, _ payload: Data, fin: Bool = true, masked: Bool = true) -> Data {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let mask: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(mask | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [mask | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(mask | 127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8((payload.count >> shift) & 0xFF)) }
        }
        if masked { bytes += [0, 0, 0, 0] }
        return Data(bytes) + payload
    }

    /// The first close frame the server sent after the `101` head: its code and reason.
    static func closeFrame(in received: Data) -> (code: Int, reason: String)? {
        guard let headEnd = received.range(of: Data("\r\n\r\n".utf8))?.upperBound else { return nil }
        var bytes = [UInt8](received[headEnd...])
        while bytes.count >= 2 {
            let opcode = bytes[0] & 0x0F
            var length = Int(bytes[1] & 0x7F), offset = 2
            if length == 126 {
                guard bytes.count >= 4 else { return nil }
                length = Int(bytes[2]) << 8 | Int(bytes[3]); offset = 4
            } else if length == 127 {
                guard bytes.count >= 10 else { return nil }
                length = bytes[2..<10].reduce(0) { $0 << 8 | Int($1) }; offset = 10
            }
            guard bytes.count >= offset + length else { return nil }
            let payload = Array(bytes[offset..<offset + length])
            if opcode == 8 {
                guard payload.count >= 2 else { return (1005, "") }
                return (Int(payload[0]) << 8 | Int(payload[1]), String(decoding: payload[2...], as: UTF8.self))
            }
            bytes.removeFirst(offset + length)
        }
        return nil
    }
}
#endif
