#if Tools
import Foundation
import NIOCore
import Testing
@testable import StubKit
@testable import StubKitServer
import StubKitTestSupport

/// The relay's client against a real WebSocket server (Python's `websockets`, which `.ci/test-deps`
/// installs): messages both ways, fragments, pings, close codes, back-pressure and clear refusals.
@Suite(.enabled(if: PythonServer.canImport("websockets"), "python3 cannot import websockets (.ci/test-deps installs it)"))
struct WebSocketUpstreamTests {
    enum Event: Sendable, Equatable {
        case message(WebSocketScript.Message)
        case close(WebSocketUpstream.Close)
    }

    /// What the relay handed out, waited for one at a time with a time limit.
    final class Events: Sendable {
        private let queue = Locked<[Event]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func add(_ event: Event) {
            queue.withLock { $0.append(event) }
            arrived.signal()
        }

        var count: Int { queue.withLock { $0.count } }

        func next(limit: TimeInterval = 20) -> Event? {
            guard arrived.wait(timeout: .now() + limit) == .success else { return nil }
            return queue.withLock { $0.removeFirst() }
        }

        func nextText(sourceLocation: SourceLocation = #_sourceLocation) -> String? {
            guard case .message(.text(let text))? = next() else { Issue.record("expected a text message", sourceLocation: sourceLocation); return nil }
            return text
        }
    }

    static func connect(_ server: PythonServer, _ path: String, headers: [String: String] = [:], events: Events,
                        recorder: WebSocketRecorder? = nil) throws -> WebSocketUpstream {
        do {
            return try open(server, path, headers: headers, events: events, recorder: recorder)
        } catch {
            throw PythonServer.Failure(description: "\(error)\nthe server said:\n\(server.errors)")
        }
    }

    static func open(_ server: PythonServer, _ path: String, headers: [String: String], events: Events,
                     recorder: WebSocketRecorder?) throws -> WebSocketUpstream {
        let url = URL(string: "ws://127.0.0.1:\(server.port)\(path)")!
        let request = StubRequest(url: url, headers: headers)
        return try WebSocketUpstream.connect(to: url, request: request,
                                             onMessage: { recorder?.note(.serverToClient, $0); events.add(.message($0)) },
                                             onClose: { close in
                                                 recorder?.noteClose(.serverToClient, code: close.code, reason: close.reason)
                                                 recorder?.finish()
                                                 events.add(.close(close))
                                             }).wait()
    }

    static func upstream() throws -> PythonServer { try PythonServer(script: "Tests/ws_upstream.py") }

    @Test("the app's headers that matter reach the real server; text, binary, a fragmented message and a ping are relayed; the server's close code arrives")
    func relaysBothWays() throws {
        let server = try Self.upstream()
        let events = Events()
        let upstream = try Self.connect(server, "/echo", headers: [
            "Sec-WebSocket-Protocol": "chat.v1", "Authorization": "Bearer t-1", "Cookie": "session=abc", "Origin": "http://app.test",
            "Sec-WebSocket-Key": "bm90IHRoZSByZWxheSdz", "Sec-WebSocket-Extensions": "permessage-deflate",
        ], events: events)
        #expect(upstream.subprotocol == "chat.v1")
        let greeting = try #require(events.nextText())
        #expect(greeting == #"{"authorization": "Bearer t-1", "cookie": "session=abc", "extensions": null, "origin": "http://app.test", "subprotocol": "chat.v1"}"#)
        try upstream.send(.text("hello")).wait()
        #expect(events.nextText() == "echo:hello")
        try upstream.send(.binary(Data([1, 2, 3]))).wait()
        #expect(events.next() == .message(.binary(Data([3, 2, 1]))))
        try upstream.send(.text("big")).wait()
        #expect(events.nextText() == String(repeating: "x", count: 200_000), "50 fragments reassembled into one message")
        try upstream.send(.text("ping-me")).wait()
        #expect(events.nextText() == "pong received")
        try upstream.send(.text("close-me")).wait()
        #expect(events.next() == .close(.init(code: 4001, reason: "asked to")))
        #expect(events.next(limit: 0.2) == nil, "the close is reported once")
    }

    @Test("the app's close goes to the real server, whose answer ends the connection")
    func appCloses() throws {
        let server = try Self.upstream()
        let events = Events()
        let upstream = try Self.connect(server, "/echo", events: events)
        _ = events.nextText()
        try upstream.close(code: 1000, reason: "bye").wait()
        #expect(events.next() == .close(.init(code: 1000, reason: "bye")))
    }

    @Test("while paused, nothing more is read from the real server; resumed, the held messages arrive in order")
    func backPressure() throws {
        let server = try Self.upstream()
        let held = Events(), control = Events()
        let upstream = try Self.connect(server, "/held", events: held)
        try upstream.pauseReading().wait()
        let trigger = try Self.connect(server, "/trigger", events: control)
        try trigger.send(.text("go")).wait()
        #expect(control.nextText() == "pushed")
        #expect(held.count == 0, "3 messages were sent, none may be delivered while paused")
        try upstream.resumeReading().wait()
        #expect([held.nextText(), held.nextText(), held.nextText()] == ["held 1", "held 2", "held 3"])
    }

    @Test("a refused connection, a server that refuses the upgrade and a wss URL whose server speaks no TLS each fail with a clear error")
    func refusals() throws {
        let server = try Self.upstream()
        func failure(_ url: String) -> String {
            let target = URL(string: url)!
            do {
                _ = try WebSocketUpstream.connect(to: target, request: StubRequest(url: target), onMessage: { _ in }, onClose: { _ in }).wait()
                return "connected"
            } catch {
                return "\(error)"
            }
        }
        let refused = failure("ws://127.0.0.1:1/chat")
        #expect(refused.hasPrefix("cannot connect to the real WebSocket server at ws://127.0.0.1:1/chat"), "\(refused)")
        #expect(refused.lowercased().contains("refused"), "\(refused)")
        let forbidden = failure("ws://127.0.0.1:\(server.port)/nowhere")
        #expect(forbidden == "the server at ws://127.0.0.1:\(server.port)/nowhere answered 403 Forbidden instead of switching to WebSocket (101)")
        let plain = failure("wss://127.0.0.1:\(server.port)/echo")
        #expect(plain.hasPrefix("the TLS handshake with the real server at wss://127.0.0.1:\(server.port)/echo failed"), "\(plain)")
    }

    @Test("a relayed conversation recorded through WebSocketRecorder replays from the written rule")
    func recordsRelayedConversation() throws {
        let server = try Self.upstream()
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "ws", folder: folder.url))
        let events = Events()
        let url = URL(string: "ws://127.0.0.1:\(server.port)/echo")!
        let wsRecorder = WebSocketRecorder(recorder: recorder, request: StubRequest(url: url), subprotocol: nil)
        let upstream = try Self.connect(server, "/echo", events: events, recorder: wsRecorder)
        let greeting = try #require(events.nextText())
        wsRecorder.note(.clientToServer, .text("hello"))
        try upstream.send(.text("hello")).wait()
        #expect(events.nextText() == "echo:hello")
        wsRecorder.note(.clientToServer, .text("close-me"))
        try upstream.send(.text("close-me")).wait()
        #expect(events.next() == .close(.init(code: 4001, reason: "asked to")))
        let result = BundleLoader(options: .lint).load(folder: folder.url.appendingPathComponent("ws"))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        let script = try #require(result.bundle.rules.first?.webSocket)
        let conversation = WebSocketConversation(script: script, request: StubRequest(url: url), parameters: [:], hit: 0)
        // The greeting names the headers it saw: fields named like secrets are redacted, as in HTTP bodies.
        guard case .send(.text(let opening))? = conversation.opening(now: Date()).first?.action else { Issue.record("no opening"); return }
        #expect(greeting.contains(#""authorization": null"#))
        #expect(opening.contains(#""authorization" : "REDACTED""#), "\(opening)")
        guard case .reply(_, let echo, _) = conversation.answer(to: .text("hello"), now: Date()),
              case .reply(_, let close, _) = conversation.answer(to: .text("close-me"), now: Date()) else {
            Issue.record("no reply"); return
        }
        #expect(echo.map(\.action) == [.send(.text("echo:hello"))])
        #expect(close.map(\.action) == [.close(code: 4001, reason: "asked to")])
    }
}
#endif
