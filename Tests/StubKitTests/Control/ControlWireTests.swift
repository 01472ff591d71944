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
            let token = ControlLaunchSettings.randomToken(), runnerToken = ControlLaunchSettings.randomToken()
            // The app waits for the welcome in `start`: the runner's part is played on a thread.
            let accepted = Locked<LoopbackSocket?>(nil)
            let runner = Thread {
                guard let socket = listener.accept() else { return }
                socket.setReceiveTimeout(Int(ControlWireTests.timeout))
                accepted.withLock { $0 = socket }
                var reader = ControlLineReader()
                while let bytes = try? socket.receive(), !bytes.isEmpty {
                    guard case .line(let hello)? = reader.append(bytes).first else { continue }
                    if (try? ControlProtocol.decodeHello(hello).token) == token {
                        _ = socket.send(ControlProtocol.encodeWelcome(runnerToken: runnerToken))
                    }
                    return
                }
            }
            runner.start()
            _ = try ControlConnection.start(ControlLaunchSettings(port: port, token: token, runnerToken: runnerToken),
                                            handler: ControlCommandHandler(engine: engine, locator: locator))
            connection = try #require(accepted.withLock { $0 })
        }

        mutating func nextLine() -> Data? {
            var pending: [ControlLineReader.Item] = []
            while pending.isEmpty {
                guard let bytes = try? connection.receive(), !bytes.isEmpty else { return nil }
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

    /// A fake app: connects to `control` with its token and hands back the connection, the hello sent
    /// and the runner's welcome read.
    func fakeApp(for control: AppControl) throws -> LoopbackSocket {
        let port = try #require(UInt16(control.launchEnvironment["STUB_CONTROL"]?.split(separator: ":").last ?? ""))
        let socket = try LoopbackSocket.connect(port: port)
        #expect(socket.send(ControlProtocol.encodeHello(token: control.launchEnvironment["STUB_CONTROL_TOKEN"]!, pid: 1)))
        var reader = ControlLineReader()
        var welcome: [ControlLineReader.Item] = []
        while welcome.isEmpty, let bytes = try? socket.receive(), !bytes.isEmpty { welcome = reader.append(bytes) }
        guard case .line(let line)? = welcome.first else { Issue.record("no welcome"); return socket }
        #expect(try ControlProtocol.decodeWelcome(line) == control.launchEnvironment["STUB_CONTROL_RUNNER_TOKEN"])
        return socket
    }

    /// Plays the app on a thread of its own (its reads block, and the runner's calls need Swift's
    /// cooperative threads): waits for one command, then does `answer`.
    func playApp(_ app: LoopbackSocket, answer: @escaping @Sendable (LoopbackSocket) -> Void) {
        Thread {
            var reader = ControlLineReader()
            while true {
                guard let bytes = try? app.receive(), !bytes.isEmpty, reader.append(bytes).isEmpty else { break }
            }
            answer(app)
        }.start()
    }

    @Test("an answer cut in half by the app's exit: the call fails saying so, not a hang; the next call waits for another app and says why the last one went")
    func replyCutInHalf() async throws {
        let control = try AppControl(timeout: 2)
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
        do {
            try await control.clearJournal()
            Issue.record("a call with no app connected succeeded")
        } catch let error as AppControlError {
            #expect(error.message.contains("did not connect for runtime control within 2.0 s"), "\(error)")
            #expect(error.message.hasSuffix("; the previous connection ended: the app closed the control connection: the connection closed in the middle of a message (11 bytes without a newline)"), "\(error)")
        }
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
        let runnerToken = ControlLaunchSettings.randomToken()
        let good = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "127.0.0.1:4000", "STUB_CONTROL_TOKEN": token, "STUB_CONTROL_RUNNER_TOKEN": runnerToken])
        #expect(good.control == ControlLaunchSettings(port: 4000, token: token, runnerToken: runnerToken) && good.problems.isEmpty && !good.isEmpty)
        #expect(!good.launchArguments.contains { $0.contains(token) || $0.contains(runnerToken) })
        let remote = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "10.0.0.2:4000", "STUB_CONTROL_TOKEN": token, "STUB_CONTROL_RUNNER_TOKEN": runnerToken])
        #expect(remote.control == nil && remote.problems == ["environment variable STUB_CONTROL=10.0.0.2:4000: expected 127.0.0.1:<port> (runtime control is loopback only)"])
        let tokenless = StubLaunchSettings(arguments: ["app"], environment: ["STUB_CONTROL": "127.0.0.1:4000"])
        #expect(tokenless.problems == ["environment variables STUB_CONTROL, STUB_CONTROL_TOKEN and STUB_CONTROL_RUNNER_TOKEN go together; STUB_CONTROL_TOKEN and STUB_CONTROL_RUNNER_TOKEN are missing"])
        #expect(throws: StubKitError.self) { try StubActivation.activate(arguments: ["app"], environment: ["STUB_CONTROL": "10.0.0.2:4000", "STUB_CONTROL_TOKEN": token, "STUB_CONTROL_RUNNER_TOKEN": runnerToken], register: false) }
    }

    @Test("added rules with random delays each draw their own: the salt names the rule, not only its index in a one-rule file")
    func addedRuleDelaySalt() throws {
        let engine = StubEngine(seed: 7)
        for path in ["/a", "/b"] {
            let (rule, diagnostics) = BundleLoader(options: .engine).decodeRule(#"{ "method": "GET", "path": "\#(path)", "status": 200, "delay": { "min": 0, "max": 1000 } }"#, file: "added rule")
            engine.addRule(try #require(rule, "\(diagnostics)"))
        }
        func delay(_ path: String) -> TimeInterval? {
            guard case .answer(let match) = engine.decision(for: StubRequest(url: URL(string: "https://api.takeaway.example\(path)")!)) else { return nil }
            return match.delay
        }
        let a = try #require(delay("/a")), b = try #require(delay("/b"))
        #expect(a != b, "both added rules drew \(a) s")
    }
}
