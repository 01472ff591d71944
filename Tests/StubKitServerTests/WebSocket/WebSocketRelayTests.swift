#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// WebSockets no rule scripts, relayed by `stubkit serve --forward` / `--record` to a real server
/// (`Tests/ws_upstream.py`, Python's `websockets`) and driven by Python's `websockets` client.
@Suite("Local server: WebSockets relayed to the real server", .timeLimit(.minutes(2)),
       .enabled(if: WebSocketPythonTests.runs, "python3 cannot import websockets (python3 -m pip install websockets; .ci/test-deps does)"))
struct WebSocketRelayTests {
    /// A forwarding server for the Python upstream (`127.0.0.1:PORT` as a stubbed host, plain ws).
    static func server(upstream: PythonServer, active: [String] = [], recorder: Recorder? = nil, folder: TemporaryFolder? = nil,
                       onMiss: StubServerConfiguration.MissPolicy = .forward, scheme: String = "http") async throws -> ServerFixture {
        try await ServerFixture(bundles: [:], active: active, recorder: recorder, folder: folder) {
            $0.onMiss = onMiss
            $0.upstreamScheme = scheme
            // Port 1: a stubbed host nothing listens on.
            $0.extraHosts = ["127.0.0.1:\(upstream.port)", "127.0.0.1:1"]
        }
    }

    /// A Python client's conversation through the server: prints what it got, as JSON.
    static func converse(server: ServerFixture, upstreamPort: Int, upstreamHost: String = "127.0.0.1",
                         sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String: Any] {
        try await WebSocketPythonTests.run("""
        def relayed(path): return "ws://127.0.0.1:%d/\(upstreamHost):\(upstreamPort)%s" % (PORT, path)
        out = {}
        with connect(relayed("/echo"), subprotocols=["chat.v1"], open_timeout=30, max_size=None) as ws:
            out["subprotocol"] = ws.subprotocol
            out["greeting"] = json.loads(ws.recv(timeout=30))
            ws.send("hello"); out["hello"] = show(ws.recv(timeout=30))
            ws.send(b"\\x01\\x02\\x03"); out["binary"] = show(ws.recv(timeout=30))
            ws.send("big"); out["big"] = len(ws.recv(timeout=30))
            ws.send("close-me")
            try:
                ws.recv(timeout=30)
            except ConnectionClosed as e:
                out["closeCode"] = e.rcvd.code
                out["closeReason"] = e.rcvd.reason
        print(json.dumps(out))
        """, port: server.port, sourceLocation: sourceLocation)
    }

    /// The journal entry of the one relayed connection, once it has ended.
    static func relayedEntry(_ server: ServerFixture, host: String = "127.0.0.1", sourceLocation: SourceLocation = #_sourceLocation) async throws -> JournalEntry {
        let predicate = RequestPredicate("GET", path: "/echo", host: host)
        try await server.engine.journal.waitForRequests(matching: predicate, count: 1, timeout: 30)
        return try #require(server.engine.journal.entries(matching: predicate).last { $0.webSocketMessages != nil }, sourceLocation: sourceLocation)
    }

    @Test("messages both ways, the real server's subprotocol and close code reach the app, and one journal entry holds the conversation")
    func relaysBothWays() async throws {
        let upstream = try await WebSocketUpstreamTests.upstream()
        let server = try await Self.server(upstream: upstream)
        let result = try await Self.converse(server: server, upstreamPort: upstream.port)
        #expect(result["subprotocol"] as? String == "chat.v1", "the real server chose it; the app's 101 says so")
        let greeting = try #require(result["greeting"] as? [String: Any])
        #expect(greeting["subprotocol"] as? String == "chat.v1", "the app's offer reached the real server")
        #expect(greeting["extensions"] is NSNull, "the relay speaks no extension")
        #expect(result["hello"] as? String == "echo:hello")
        #expect(result["binary"] as? String == "binary:AwIB", "binary both ways")
        #expect(result["big"] as? Int == 200_000, "a fragmented message arrives whole")
        #expect(result["closeCode"] as? Int == 4001)
        #expect(result["closeReason"] as? String == "asked to")

        let entry = try await Self.relayedEntry(server)
        #expect(entry.passedThrough)
        #expect(entry.status == 101)
        #expect(entry.responseHeaders["Sec-WebSocket-Protocol"] == "chat.v1")
        let messages = try #require(entry.webSocketMessages)
        let seen = messages.filter { $0.opcode != .close }.map { "\($0.direction.rawValue) \(String(decoding: $0.data.prefix(12), as: UTF8.self))" }
        #expect(Array(seen.dropFirst()) == ["received hello", "sent echo:hello", "received \u{1}\u{2}\u{3}", "sent \u{3}\u{2}\u{1}",
                                             "received big", "sent xxxxxxxxxxxx", "received close-me"], "\(seen)")
        #expect(messages.first { $0.opcode == .close && $0.direction == .sent }?.closeCode == 4001)
        #expect(entry.recordedAs == nil && entry.recordingFailure == nil, "nothing records without a recorder")
        await server.stop()
    }

    @Test("the app's close code and reason reach the real server, whose answer reaches the app")
    func appCloses() async throws {
        let upstream = try await WebSocketUpstreamTests.upstream()
        let server = try await Self.server(upstream: upstream)
        // The real server (websockets) answers a close with the code and reason it received.
        let result = try await WebSocketPythonTests.run("""
        out = {}
        with connect("ws://127.0.0.1:%d/127.0.0.1:\(upstream.port)/echo" % PORT, open_timeout=30) as ws:
            ws.recv(timeout=30)
            ws.close(4002, "client done")
            out["closeCode"] = ws.protocol.close_rcvd.code
            out["closeReason"] = ws.protocol.close_rcvd.reason
        print(json.dumps(out))
        """, port: server.port)
        #expect(result["closeCode"] as? Int == 4002)
        #expect(result["closeReason"] as? String == "client done")
        let entry = try await Self.relayedEntry(server)
        let closes = (entry.webSocketMessages ?? []).filter { $0.opcode == .close }
        #expect(closes.map(\.direction) == [.received, .sent])
        #expect(closes.map(\.closeCode) == [4002, 4002])
        await server.stop()
    }

    /// A client's failed handshake: the status and the body, as JSON.
    static func refusal(server: ServerFixture, target: String) async throws -> (status: Int, body: String) {
        let result = try await WebSocketPythonTests.run("""
        from websockets.exceptions import InvalidStatus
        out = {}
        try:
            with connect("ws://127.0.0.1:%d\(target)" % PORT, open_timeout=30) as ws:
                out["status"] = 101
        except InvalidStatus as e:
            out["status"] = e.response.status_code
            out["body"] = e.response.body.decode()
        print(json.dumps(out))
        """, port: server.port)
        return (result["status"] as? Int ?? 0, result["body"] as? String ?? "")
    }

    @Test("a real server that refuses, cannot be reached, or does not speak TLS for a wss URL: the app gets a 502 that says why")
    func refusals() async throws {
        let upstream = try await WebSocketUpstreamTests.upstream()
        let server = try await Self.server(upstream: upstream)
        let forbidden = try await Self.refusal(server: server, target: "/127.0.0.1:\(upstream.port)/nowhere")
        #expect(forbidden.status == 502)
        #expect(forbidden.body.contains("answered 403 Forbidden instead of switching to WebSocket (101)"), "\(forbidden.body)")
        let unreachable = try await Self.refusal(server: server, target: "/127.0.0.1:1/chat")
        #expect(unreachable.status == 502)
        #expect(unreachable.body.contains("cannot connect to the real WebSocket server at ws://127.0.0.1:1/chat"), "\(unreachable.body)")
        let entry = try #require(server.engine.journal.entries.first { $0.status == 502 })
        #expect(entry.passedThrough)
        #expect(entry.error?.description.contains("relaying the WebSocket") == true, "\(entry.summary)")
        await server.stop()

        let tls = try await Self.server(upstream: upstream, scheme: "https")
        let secure = try await Self.refusal(server: tls, target: "/127.0.0.1:\(upstream.port)/echo")
        #expect(secure.status == 502)
        #expect(secure.body.contains("the TLS handshake with the real server at wss://127.0.0.1:\(upstream.port)/echo failed"), "\(secure.body)")
        await tls.stop()
    }

    @Test("with the kill switch an upgrade no rule answers gets the kill switch's 502, not a relay")
    func killSwitch() async throws {
        let upstream = try await WebSocketUpstreamTests.upstream()
        let server = try await Self.server(upstream: upstream, onMiss: .refuse)
        let refused = try await Self.refusal(server: server, target: "/127.0.0.1:\(upstream.port)/echo")
        #expect(refused.status == 502)
        #expect(refused.body.hasPrefix("StubKit kill switch: no stub answers GET http://127.0.0.1:\(upstream.port)/echo"), "\(refused.body)")
        #expect(server.engine.journal.entries.allSatisfy { !$0.passedThrough })
        await server.stop()
    }

    @Test("recorded while relayed, then replayed from the bundle with the real server gone: the same answers")
    func recordThenReplay() async throws {
        var upstream: PythonServer? = try await WebSocketUpstreamTests.upstream()
        let port = try #require(upstream).port
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "captured", folder: folder.url))
        let recording = try await Self.server(upstream: try #require(upstream), recorder: recorder, folder: folder)
        let live = try await Self.converse(server: recording, upstreamPort: port)
        let entry = try await Self.relayedEntry(recording)
        #expect(entry.recordedAs == "(webSocket)", "\(entry.summary)")
        await recording.stop()
        upstream = nil

        let replay = try await ServerFixture(bundles: [:], active: ["captured"], folder: folder) {
            $0.onMiss = .refuse
            $0.upstreamScheme = "http"
            $0.extraHosts = ["127.0.0.1:\(port)"]
        }
        var replayed = try await Self.converse(server: replay, upstreamPort: port)
        // Fields named like secrets are redacted in recorded messages, as in HTTP bodies (null ones too).
        var greeting = replayed["greeting"] as? [String: Any] ?? [:]
        #expect(greeting["authorization"] as? String == "REDACTED" && greeting["cookie"] as? String == "REDACTED", "\(greeting)")
        greeting["authorization"] = NSNull()
        greeting["cookie"] = NSNull()
        replayed["greeting"] = greeting
        #expect(NSDictionary(dictionary: replayed) == NSDictionary(dictionary: live), "live: \(live)\nreplayed: \(replayed)")
        #expect(replayed["hello"] as? String == "echo:hello")
        let served = try await Self.relayedEntry(replay)
        #expect(!served.passedThrough && served.rule != nil, "\(served.summary)")
        await replay.stop()
    }
}
#endif
