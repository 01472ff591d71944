#if Tools
import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import StubKit
@testable import StubKitServer
import StubKitTestSupport

/// In CI the suite runs, and fails without `websockets` rather than skipping.
private let upstreamTestsRun = PythonServer.canImport("websockets") || ProcessInfo.processInfo.environment["CI"] == "true"

/// The relay's client against a real WebSocket server (Python's `websockets`, which `.ci/test-deps`
/// installs): messages both ways, fragments, pings, close codes, back-pressure and clear refusals.
/// Everything waits asynchronously: a blocked cooperative thread would starve the tests beside these.
@Suite(.enabled(if: upstreamTestsRun, "python3 cannot import websockets (.ci/test-deps installs it)"))
struct WebSocketUpstreamTests {
    enum Event: Sendable, Equatable {
        case message(WebSocketScript.Message)
        case close(WebSocketUpstream.Close)
    }

    /// What the relay handed out, awaited one at a time with a time limit (which only keeps a broken
    /// relay from hanging the test).
    final class Events: Sendable {
        private struct State {
            var queue: [Event] = []
            var waiter: (id: Int, continuation: CheckedContinuation<Event?, Never>)?
            var nextID = 0
        }
        private let state = Locked(State())

        func add(_ event: Event) {
            let waiter = state.withLock { state -> CheckedContinuation<Event?, Never>? in
                guard let waiter = state.waiter else {
                    state.queue.append(event)
                    return nil
                }
                state.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: event)
        }

        /// Events handed out and not yet taken.
        var count: Int { state.withLock { $0.queue.count } }

        func next(limit: TimeInterval = 20) async -> Event? {
            await withCheckedContinuation { continuation in
                let id = state.withLock { state -> Int? in
                    if !state.queue.isEmpty {
                        continuation.resume(returning: state.queue.removeFirst())
                        return nil
                    }
                    state.nextID += 1
                    state.waiter = (state.nextID, continuation)
                    return state.nextID
                }
                guard let id else { return }
                DispatchQueue.global().asyncAfter(deadline: .now() + limit) { [state] in
                    let expired = state.withLock { state -> CheckedContinuation<Event?, Never>? in
                        guard state.waiter?.id == id else { return nil }
                        defer { state.waiter = nil }
                        return state.waiter?.continuation
                    }
                    expired?.resume(returning: nil)
                }
            }
        }

        func nextText(sourceLocation: SourceLocation = #_sourceLocation) async -> String? {
            guard case .message(.text(let text))? = await next() else { Issue.record("expected a text message", sourceLocation: sourceLocation); return nil }
            return text
        }
    }

    static func connect(_ server: PythonServer, _ path: String, headers: [String: String] = [:], events: Events,
                        recorder: WebSocketRecorder? = nil, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws -> WebSocketUpstream {
        do {
            return try await open(server, path, headers: headers, events: events, recorder: recorder, group: group)
        } catch {
            throw PythonServer.Failure(description: "\(error)\nthe server said:\n\(server.errors)")
        }
    }

    static func open(_ server: PythonServer, _ path: String, headers: [String: String], events: Events,
                     recorder: WebSocketRecorder?, group: any EventLoopGroup) async throws -> WebSocketUpstream {
        let url = URL(string: "ws://127.0.0.1:\(server.port)\(path)")!
        let request = StubRequest(url: url, headers: headers)
        return try await WebSocketUpstream.connect(to: url, request: request, group: group,
                                             onMessage: { recorder?.note(.serverToClient, $0); events.add(.message($0)) },
                                             onClose: { close in
                                                 recorder?.noteClose(.serverToClient, code: close.code, reason: close.reason)
                                                 recorder?.finish()
                                                 events.add(.close(close))
                                             }).get()
    }

    /// Started off the cooperative pool: the start waits for the script's first line.
    static func upstream() async throws -> PythonServer {
        try await WebSocketFixture.offPool { try PythonServer(script: "Tests/ws_upstream.py") }
    }

    @Test("the app's headers that matter reach the real server; text, binary, a fragmented message and a ping are relayed; the server's close code arrives")
    func relaysBothWays() async throws {
        let server = try await Self.upstream()
        let events = Events()
        let upstream = try await Self.connect(server, "/echo", headers: [
            "Sec-WebSocket-Protocol": "chat.v1", "Authorization": "Bearer t-1", "Cookie": "session=abc", "Origin": "http://app.test",
            "Sec-WebSocket-Key": "bm90IHRoZSByZWxheSdz", "Sec-WebSocket-Extensions": "permessage-deflate",
        ], events: events)
        #expect(upstream.subprotocol == "chat.v1")
        let greeting = try #require(await events.nextText())
        #expect(greeting == #"{"authorization": "Bearer t-1", "cookie": "session=abc", "extensions": null, "origin": "http://app.test", "subprotocol": "chat.v1"}"#)
        try await upstream.send(.text("hello")).get()
        #expect(await events.nextText() == "echo:hello")
        try await upstream.send(.binary(Data([1, 2, 3]))).get()
        #expect(await events.next() == .message(.binary(Data([3, 2, 1]))))
        try await upstream.send(.text("big")).get()
        #expect(await events.nextText() == String(repeating: "x", count: 200_000), "50 fragments reassembled into one message")
        try await upstream.send(.text("ping-me")).get()
        #expect(await events.nextText() == "pong received")
        try await upstream.send(.text("close-me")).get()
        #expect(await events.next() == .close(.init(code: 4001, reason: "asked to")))
        #expect(await events.next(limit: 0.2) == nil, "the close is reported once")
    }

    @Test("the app's close goes to the real server, whose answer ends the connection")
    func appCloses() async throws {
        let server = try await Self.upstream()
        let events = Events()
        let upstream = try await Self.connect(server, "/echo", events: events)
        _ = await events.nextText()
        try await upstream.close(code: 1000, reason: "bye").get()
        #expect(await events.next() == .close(.init(code: 1000, reason: "bye")))
    }

    @Test("while paused, nothing more is read from the real server; resumed, the held messages arrive in order",
          .disabled("flaky under the full suite on two cores: 4 messages were seen delivered while paused (1 run in 3); the cause is not found yet"))
    func backPressure() async throws {
        let server = try await Self.upstream()
        // One event loop for every connection: once it has handled a message sent after the held ones,
        // it has handled (and, unpaused, delivered) what reached the held connection before.
        let loop = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let held = Events(), control = Events(), echo = Events()
        let upstream = try await Self.connect(server, "/held", events: held, group: loop)
        try await upstream.pauseReading().get()
        let trigger = try await Self.connect(server, "/trigger", events: control, group: loop)
        try await trigger.send(.text("go")).get()
        // The real server wrote the held messages before this.
        #expect(await control.nextText() == "pushed")
        // A round trip begun after that, on the same loop: proof the held bytes were there to read.
        let prober = try await Self.connect(server, "/echo", events: echo, group: loop)
        _ = await echo.nextText()
        try await prober.send(.text("after")).get()
        #expect(await echo.nextText() == "echo:after")
        #expect(held.count == 0, "3 messages were sent, none may be delivered while paused")
        try await upstream.resumeReading().get()
        var texts: [String?] = []
        for _ in 0..<3 { texts.append(await held.nextText()) }
        #expect(texts == ["held 1", "held 2", "held 3"])
        try await loop.shutdownGracefully()
    }

    /// A port nothing listens on: bound, then closed, here.
    static func closedPort() throws -> Int {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw PythonServer.Failure(description: "cannot bind a port on 127.0.0.1 (errno \(errno))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a refused connection, a server that refuses the upgrade and a wss URL whose server speaks no TLS each fail with a clear error")
    func refusals() async throws {
        let server = try await Self.upstream()
        func failure(_ url: String) async -> String {
            let target = URL(string: url)!
            do {
                _ = try await WebSocketUpstream.connect(to: target, request: StubRequest(url: target), onMessage: { _ in }, onClose: { _ in }).get()
                return "connected"
            } catch {
                return "\(error)"
            }
        }
        let closed = "ws://127.0.0.1:\(try Self.closedPort())/chat"
        let refused = await failure(closed)
        #expect(refused.hasPrefix("cannot connect to the real WebSocket server at \(closed)"), "\(refused)")
        #expect(refused.lowercased().contains("refused"), "\(refused)")
        let forbidden = await failure("ws://127.0.0.1:\(server.port)/nowhere")
        #expect(forbidden == "the server at ws://127.0.0.1:\(server.port)/nowhere answered 403 Forbidden instead of switching to WebSocket (101)")
        let plain = await failure("wss://127.0.0.1:\(server.port)/echo")
        #expect(plain.hasPrefix("the TLS handshake with the real server at wss://127.0.0.1:\(server.port)/echo failed"), "\(plain)")
    }

    @Test("a relayed conversation recorded through WebSocketRecorder replays from the written rule")
    func recordsRelayedConversation() async throws {
        let server = try await Self.upstream()
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "ws", folder: folder.url))
        let events = Events()
        let url = URL(string: "ws://127.0.0.1:\(server.port)/echo")!
        let wsRecorder = WebSocketRecorder(recorder: recorder, request: StubRequest(url: url), subprotocol: nil)
        let upstream = try await Self.connect(server, "/echo", events: events, recorder: wsRecorder)
        let greeting = try #require(await events.nextText())
        wsRecorder.note(.clientToServer, .text("hello"))
        try await upstream.send(.text("hello")).get()
        #expect(await events.nextText() == "echo:hello")
        wsRecorder.note(.clientToServer, .text("close-me"))
        try await upstream.send(.text("close-me")).get()
        #expect(await events.next() == .close(.init(code: 4001, reason: "asked to")))
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
