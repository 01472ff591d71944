#if Tools
import Foundation
import StubKitTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Scripts far longer than any real one, run by `stubkit serve` in its own process: a step that
/// follows the one before without a delay must cost the server no stack, or a long script crashes it.
@Suite("Local server: long WebSocket scripts", .timeLimit(.minutes(2)))
struct WebSocketLongScriptTests {
    static let count = 20_000

    static func rules() -> String {
        let steps = (0..<count).map { "{ \"text\": \"m\($0)\" }" }.joined(separator: ", ")
        return """
        { "host": "long.test", "rules": [
          { "name": "long", "path": "/long", "webSocket": { "onConnect": [ \(steps) ] } },
          { "name": "short", "path": "/short", "webSocket": { "onConnect": [ { "text": "still here" } ] } }
        ] }
        """
    }

    static func handshake(_ path: String) -> String {
        "GET /long.test\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    }

    /// The server's unmasked frame carrying `text` (under 126 bytes).
    static func textFrame(_ text: String) -> Data { Data([0x81, UInt8(text.utf8.count)]) + Data(text.utf8) }

    /// The texts of the frames after the `101` head (server frames: unmasked, short here).
    static func texts(in received: Data) -> [String] {
        guard let headEnd = received.range(of: Data("\r\n\r\n".utf8))?.upperBound else { return [] }
        let bytes = [UInt8](received[headEnd...])
        var texts: [String] = [], offset = 0
        while offset + 2 <= bytes.count, bytes[offset + 1] < 126 {
            let length = Int(bytes[offset + 1])
            guard offset + 2 + length <= bytes.count else { break }
            if bytes[offset] & 0x0F == 1 { texts.append(String(decoding: bytes[offset + 2..<offset + 2 + length], as: UTF8.self)) }
            offset += 2 + length
        }
        return texts
    }

    @Test("onConnect with 20,000 steps and no delays: the client gets every message in order and the server keeps serving")
    func twentyThousandSteps() async throws {
        let folder = try TemporaryFolder()
        try folder.bundle("long", ["stubsRules.json": Self.rules()])
        let path = folder.url.path
        // Blocking reads off the cooperative pool; the expectations back on the test's task.
        let (texts, short, running, exit) = try await WebSocketFixture.offPool {
            let server = try ServerProcess([path, "--template", "long"])
            let last = Self.textFrame("m\(Self.count - 1)")
            let connection = try RawConnection(port: server.port)
            try connection.send(Self.handshake("/long"))
            // Compared at the tail only: parsing everything on every read would cost as much as the test.
            let received = try connection.read { $0.count >= last.count && $0.suffix(last.count) == last }
            let other = try RawConnection(port: server.port)
            try other.send(Self.handshake("/short"))
            let answer = try other.read { $0.suffix(10) == Data("still here".utf8) }
            let running = server.isRunning
            return (Self.texts(in: received), Self.texts(in: answer), running, server.terminate(SIGTERM))
        }
        #expect(texts.count == Self.count)
        #expect(texts == (0..<Self.count).map { "m\($0)" })
        #expect(short == ["still here"])
        #expect(running, "the server died during the test")
        expectCleanExit(exit)
    }
}
#endif
