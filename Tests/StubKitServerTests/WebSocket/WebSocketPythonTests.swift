#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The server's WebSocket stubs driven by a real client: Python's `websockets` (.ci/test-deps installs it).
@Suite("Local server: WebSockets with Python's websockets", .timeLimit(.minutes(2)))
struct WebSocketPythonTests {
    static let python = ChildProcess.onPath("python3")
    static var websocketsAvailable: Bool { (try? ChildProcessRunner.python(["-c", "import websockets.sync.client"])) != nil }
    static var runs: Bool { websocketsAvailable || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Runs `script` with the server's port as `PORT` and a connected-client helper; returns the JSON it prints.
    static func run(_ script: String, port: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        let prelude = """
        import json, sys, base64
        from websockets.sync.client import connect
        from websockets.exceptions import ConnectionClosed
        PORT = int(sys.argv[1])
        def url(path): return "ws://127.0.0.1:%d/api.chat.example%s" % (PORT, path)
        def show(m): return m if isinstance(m, str) else "binary:" + base64.b64encode(m).decode()

        """
        let executable = try #require(python)
        let (status, stdout, stderr) = try await WebSocketFixture.offPool {
            let output = try ChildProcess.run(executableURL: executable, arguments: ["-c", prelude + script, String(port)])
            return (output.status, output.stdout, output.stderr)
        }
        #expect(status == 0, "python3 failed: \(stderr)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    @Test("a conversation: onConnect messages, replies by equals/containsJSON (templated)/contains/regex, binary, periodic times, ping/pong, close with code and reason, subprotocol",
          .enabled(if: runs, "python3 cannot import websockets (python3 -m pip install websockets; .ci/test-deps does)"))
    func conversation() async throws {
        let server = try await WebSocketFixture.server()
        let result = try await Self.run("""
        out = {"messages": [], "ticks": 0}
        with connect(url("/chat/lobby"), subprotocols=["other", "chat.v1"], open_timeout=30) as ws:
            out["subprotocol"] = ws.subprotocol
            def next_message():
                # Ticks arrive between replies: counted, not returned.
                while True:
                    m = ws.recv(timeout=30)
                    if m == "tick":
                        out["ticks"] += 1
                        continue
                    out["messages"].append(show(m))
                    return show(m)
            out["welcome"] = next_message()
            out["binary"] = next_message()
            ws.send("exact"); out["equals"] = next_message()
            ws.send(json.dumps({"type": "order", "item": "pizza"})); out["json"] = next_message()
            ws.send("nothing matches this one")
            ws.send(b"\\x00\\x01binary hello"); out["binaryReply"] = next_message()
            ws.send("please ping me")
            ws.ping(b"probe").wait(30); out["pong"] = True
            while out["ticks"] < 3:
                m = ws.recv(timeout=30)
                if m == "tick": out["ticks"] += 1
                else: out["messages"].append(show(m))
            try:
                extra = ws.recv(timeout=0.25)
                out["extra"] = show(extra)
            except TimeoutError:
                pass
            ws.send("bye now"); out["bye"] = next_message()
            try:
                next_message()
            except ConnectionClosed as e:
                out["closeCode"] = e.rcvd.code
                out["closeReason"] = e.rcvd.reason
        print(json.dumps(out))
        """, port: server.port)
        #expect(result["subprotocol"] as? String == "chat.v1")
        #expect(result["welcome"] as? String == "welcome to lobby")
        #expect(result["binary"] as? String == "binary:AAEC")
        #expect(result["equals"] as? String == "equals matched")
        #expect(result["json"] as? String == #"{"got":"pizza"}"#)
        #expect(result["binaryReply"] as? String == "hi", "a binary message containing 'hello' gets the contains reply")
        #expect(result["pong"] as? Bool == true)
        #expect(result["ticks"] as? Int == 3)
        #expect(result["extra"] == nil, "nothing after the third tick: \(result["extra"] ?? "")")
        #expect(result["bye"] as? String == "see you")
        #expect(result["closeCode"] as? Int == 4000)
        #expect(result["closeReason"] as? String == "chat ended")
        // The reply's setState moved the rule's scenario.
        let status = await server.get("/api.chat.example/status")
        #expect(status.text == #"{"ordered":true}"#)

        let entry = try await WebSocketFixture.entry(server, path: "/chat/lobby")
        #expect(entry.status == 101)
        #expect(entry.rule?.name == "chat")
        let messages = try #require(entry.webSocketMessages)
        let unmatched = try #require(messages.first { $0.text == "nothing matches this one" })
        #expect(unmatched.direction == .received && unmatched.opcode == .text)
        #expect(unmatched.nearMisses?.contains { $0.contains("replies[0]") && $0.contains("exact") } == true, "\(unmatched.nearMisses ?? [])")
        #expect(messages.contains { $0.direction == .received && $0.opcode == .binary && $0.data == Data([0, 1]) + Data("binary hello".utf8) })
        #expect(messages.contains { $0.direction == .sent && $0.opcode == .ping && $0.text == "are you there" })
        #expect(messages.contains { $0.direction == .sent && $0.opcode == .pong && $0.text == "probe" })
        #expect(messages.contains { $0.direction == .sent && $0.opcode == .close && $0.closeCode == 4000 && $0.text == "chat ended" })
        #expect(messages.filter { $0.direction == .sent && $0.text == "tick" }.count == 3)

        // HAR as Chrome writes it: "send" is what the client sent.
        let har = try JSONSerialization.jsonObject(with: server.engine.journal.harData()) as? [String: Any]
        let entries = try #require((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        let socket = try #require(entries.first { ($0["_webSocketMessages"] as? [Any]) != nil })
        let frames = try #require(socket["_webSocketMessages"] as? [[String: Any]])
        let welcome = try #require(frames.first)
        #expect(welcome["type"] as? String == "receive" && welcome["opcode"] as? Int == 1 && welcome["data"] as? String == "welcome to lobby")
        #expect((welcome["time"] as? Double).map { abs($0 - Date().timeIntervalSince1970) < 120 } == true)
        #expect(frames.contains { $0["type"] as? String == "receive" && $0["opcode"] as? Int == 2 && $0["data"] as? String == "AAEC" })
        let sentByClient = try #require(frames.first { $0["data"] as? String == "nothing matches this one" })
        #expect(sentByClient["type"] as? String == "send")
        #expect((sentByClient["_nearMisses"] as? [String])?.isEmpty == false)
        #expect(frames.contains { $0["opcode"] as? Int == 8 && $0["_closeCode"] as? Int == 4000 })
        #expect((socket["response"] as? [String: Any])?["status"] as? Int == 101)
        await server.stop()
    }
}
#endif
