import Foundation
import Testing
@testable import StubKit
import StubKitTesting
import StubKitTestSupport

/// Each end of runtime control against a hand-driven other end on loopback, so broken messages can
/// be sent: unknown commands, a message over the size limit, one cut in half, bytes that are not JSON.
struct ControlWireTests {
    static let timeout: TimeInterval = 300

    /// An app's end in this process (an engine serving restaurants_base), connected to a listener the
    /// test drives as the runner.
    struct FakeRunner {
        let engine: StubEngine
        let connection: LoopbackSocket
        var reader = ControlLineReader()

        init() throws {
            let (listener, port) = try LoopbackSocket.listen()
            defer { listener.close() }
            let locator = BundleLocator(explicitFolder: nil, environment: [:], includeMainBundle: false)
            let activation = try StubActivation.prepare(StubLaunchSettings(templates: ["restaurants_base"]), locator: locator)
            engine = activation.engine
            let token = ControlLaunchSettings.randomToken()
            _ = try ControlConnection.start(ControlLaunchSettings(port: port, token: token), handler: ControlCommandHandler(engine: engine, locator: locator))
            connection = try #require(listener.accept())
            connection.setReceiveTimeout(Int(ControlWireTests.timeout))
            let hello = try #require(nextLine())
            #expect(try ControlProtocol.decodeHello(hello).token == token)
        }

        mutating func nextLine() -> Data? {
            var pending: [ControlLineReader.Item] = []
            while pending.isEmpty {
                let bytes = connection.receive()
                if bytes.isEmpty { return nil }
                pending = reader.append(bytes)
            }
            guard case .line(let line) = pending[0] else { return nil }
            return line
        }

        mutating func reply(to bytes: Data) throws -> ControlReply {
            #expect(connection.send(bytes))
            return try ControlProtocol.decodeReply(try #require(nextLine()))
        }
    }

    func status(_ engine: StubEngine, _ path: String) -> Int? {
        let request = StubRequest(method: "GET", url: URL(string: "https://api.takeaway.example\(path)")!, headers: [:], body: nil)
        return engine.match(request)?.response.status
    }

    @Test("the app answers an unknown command, a line that is not JSON and one over the size limit with errors, and keeps going")
    func appSideBadInput() throws {
        var runner = try FakeRunner()
        defer { runner.connection.close() }
        let unknown = try runner.reply(to: Data(#"{"id":1,"command":"actvate","template":"x"}"#.utf8 + [10]))
        #expect(unknown.id == 1 && !unknown.ok)
        #expect(unknown.error?.contains("unknown command 'actvate'; did you mean 'activate'?") == true, "\(unknown)")
        let garbage = try runner.reply(to: Data("hello there\n".utf8))
        #expect(garbage.id == nil && garbage.error?.contains("not a control message") == true, "\(garbage)")
        let missing = try runner.reply(to: Data(#"{"id":2,"command":"activate"}"#.utf8 + [10]))
        #expect(missing.id == 2 && missing.error == "command 'activate' without 'template'", "\(missing)")
        var huge = Data(#"{"id":3,"command":"addRule","json":""#.utf8)
        huge.append(Data(repeating: UInt8(ascii: "a"), count: ControlProtocol.maximumLineLength + 10))
        huge.append(Data("\"}\n".utf8))
        let tooLong = try runner.reply(to: huge)
        #expect(tooLong.id == nil && tooLong.error?.contains("over the limit of \(ControlProtocol.maximumLineLength) bytes") == true, "\(String(describing: tooLong.error))")
        // A command in two pieces, split inside a string: one command, applied once.
        let command = ControlProtocol.encode(.addRule(json: #"{"method":"GET","path":"/restaurants","status":410}"#), id: 4)
        #expect(runner.connection.send(command.prefix(20)))
        let applied = try runner.reply(to: command.dropFirst(20))
        #expect(applied.id == 4 && applied.ok && applied.ruleID == "rule-1", "\(applied)")
        #expect(status(runner.engine, "/restaurants") == 410)
    }

    /// A fake app: connects to `control` with its token and hands back the connection, the hello sent.
    func fakeApp(for control: AppControl, token: String? = nil) throws -> LoopbackSocket {
        let port = try #require(UInt16(control.launchEnvironment["STUB_CONTROL"]?.split(separator: ":").last ?? ""))
        let socket = try LoopbackSocket.connect(port: port)
        #expect(socket.send(ControlProtocol.encodeHello(token: token ?? control.launchEnvironment["STUB_CONTROL_TOKEN"]!, pid: 1)))
        return socket
    }

    /// Plays the app on a thread of its own (its reads block, and the runner's calls need Swift's
    /// cooperative threads): waits for one command, then does `answer`.
    func playApp(_ app: LoopbackSocket, answer: @escaping @Sendable (LoopbackSocket) -> Void) {
        Thread {
            var reader = ControlLineReader()
            while true {
                let bytes = app.receive()
                if bytes.isEmpty || !reader.append(bytes).isEmpty { break }
            }
            answer(app)
        }.start()
    }

    @Test("an answer cut in half by the app's exit: the call fails saying so, not a hang")
    func replyCutInHalf() async throws {
        let control = try AppControl(timeout: Self.timeout)
        let app = try fakeApp(for: control)
        // Half a line, then the app goes away.
        playApp(app) { app in
            _ = app.send(Data(#"{"id":1,"ok"#.utf8))
            app.shutdown()
            app.close()
        }
        do {
            try await control.resetState()
            Issue.record("a half answer passed")
        } catch let error as AppControlError {
            #expect(error.message == "the app closed the control connection: the connection closed in the middle of a message (11 bytes without a newline)", "\(error)")
        }
        await #expect(throws: AppControlError.self) { try await control.clearJournal() }
    }

    @Test("an answer over the size limit ends the session with a clear error")
    func replyTooLong() async throws {
        let control = try AppControl(timeout: Self.timeout)
        let app = try fakeApp(for: control)
        defer { app.close() }
        playApp(app) { app in
            _ = app.send(Data(repeating: UInt8(ascii: " "), count: ControlProtocol.maximumLineLength + 1))
        }
        do {
            try await control.resetState()
            Issue.record("an oversized answer passed")
        } catch let error as AppControlError {
            #expect(error.message.contains("the app sent an answer over the size limit"), "\(error)")
        }
    }

    @Test("launch settings: loopback only, the token required, both in the environment only")
    func launchSettings() throws {
        let token = ControlLaunchSettings.randomToken()
        #expect(token.count == 32 && token != ControlLaunchSettings.randomToken())
        let good = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "127.0.0.1:4000", "STUB_CONTROL_TOKEN": token])
        #expect(good.control == ControlLaunchSettings(port: 4000, token: token) && good.problems.isEmpty && !good.isEmpty)
        #expect(!good.launchArguments.contains { $0.contains(token) })
        let remote = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "10.0.0.2:4000", "STUB_CONTROL_TOKEN": token])
        #expect(remote.control == nil && remote.problems == ["environment variable STUB_CONTROL=10.0.0.2:4000: expected 127.0.0.1:<port> (runtime control is loopback only)"])
        let tokenless = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "127.0.0.1:4000"])
        #expect(tokenless.problems.first?.contains("go together") == true)
        #expect(throws: StubKitError.self) { try StubActivation.activate(arguments: ["app"], environment: ["STUB_CONTROL": "10.0.0.2:4000", "STUB_CONTROL_TOKEN": token], register: false) }
    }
}
