import Foundation
import Testing
import StubKit
import StubKitTesting
import StubKitTestSupport

/// Runtime control given bad input, on both ends: each a clear error, never a hang, and the app keeps
/// serving (a request after the bad command is still answered).
struct RuntimeControlBadInputTests {
    static let api = RuntimeControlProcessTests.api
    static let timeout = RuntimeControlProcessTests.timeout
    let process = RuntimeControlProcessTests()

    @Test("a template that does not exist: the app's error names the closest one and those available; the app keeps serving")
    func unknownTemplate() async throws {
        let (app, control) = try process.launch(["restaurants_base"])
        defer { app.terminate() }
        do {
            try await control.activate("restaurants_clsoed")
            Issue.record("activating an unknown template succeeded")
        } catch let error as AppControlError {
            #expect(error.message.contains("unknown stub template 'restaurants_clsoed'"), "\(error)")
            #expect(error.message.contains("did you mean 'restaurants_closed'?"), "\(error)")
            #expect(error.message.contains("templates found: ") && error.message.contains("order_flow"), "\(error)")
        }
        #expect(try process.ask(app, "GET \(Self.api)/restaurants")["status"] as? Int == 200)
        await #expect(throws: AppControlError.self) { try await control.deactivate("order_flow") }
    }

    @Test("a rule with errors is refused with diagnostics at their line and column in the text sent")
    func malformedRule() async throws {
        let (app, control) = try process.launch(["restaurants_base"])
        defer { app.terminate() }
        let rule = """
        {
          "method": "GET",
          "path": "/restaurants",
          "stauts": 503
        }
        """
        do {
            try await control.addRule(rule)
            Issue.record("a rule with an unknown key was added")
        } catch let error as AppControlError {
            let unknown = try #require(error.diagnostics.first { $0.severity == .error }, "\(error)")
            #expect(unknown.description.hasPrefix("added rule:4:3: error: rule.stauts: unknown key 'stauts'"), "\(unknown.description)")
            #expect(unknown.description.contains("did you mean 'status'?"), "\(unknown.description)")
            #expect(error.message.contains("added rule:4:3"), "\(error.message)")
        }
        // Not JSON at all: the parser's error, at its position.
        do {
            try await control.addRule("{ \"method\": \"GET\",\n  \"path\": }")
            Issue.record("malformed JSON was added")
        } catch let error as AppControlError {
            #expect(error.message.contains("added rule:2:11: error: malformed JSON"), "\(error.message)")
        }
        #expect(try process.ask(app, "GET \(Self.api)/restaurants")["status"] as? Int == 200)
        await #expect(throws: AppControlError.self) { try await control.removeRule("rule-7") }
    }

    @Test("a command for an app that has exited fails at once with its exit status")
    func appExited() async throws {
        let (app, control) = try process.launch(["restaurants_base"])
        try await control.setKillSwitch(true)
        let status = app.terminate()
        let started = Date()
        do {
            try await control.activate("restaurants_closed")
            Issue.record("a command for an exited app succeeded")
        } catch let error as AppControlError {
            #expect(error.message == "the app has exited (status \(status))", "\(error)")
        }
        #expect(Date().timeIntervalSince(started) < Self.timeout / 2)
    }

    @Test("an app that never connects: the call fails after the time-out, saying so")
    func neverConnects() async throws {
        let control = try AppControl(timeout: 0.2)
        do {
            try await control.resetState()
            Issue.record("a command without an app succeeded")
        } catch let error as AppControlError {
            #expect(error.message.contains("did not connect for runtime control within 0.2 s"), "\(error)")
        }
    }

    @Test("a cancelled call returns at once with CancellationError")
    func cancelled() async throws {
        let control = try AppControl(timeout: Self.timeout)
        let task = Task { try await control.resetState() }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    /// Connects to `port`, says hello with `token`, and returns the runner's first line (the welcome
    /// or the refusal) and whether the runner then closed the connection.
    static func hello(port: UInt16, token: String, version: Int = ControlProtocol.version) throws -> (answer: String, closed: Bool) {
        let socket = try LoopbackSocket.connect(port: port)
        defer { socket.close() }
        var hello = ControlProtocol.encodeHello(token: token, pid: 1)
        if version != ControlProtocol.version {
            hello = Data(String(decoding: hello, as: UTF8.self).replacingOccurrences(of: "\"v\":\(ControlProtocol.version)", with: "\"v\":\(version)").utf8)
        }
        #expect(socket.send(hello))
        // A timed read: a runner that left the connection open fails the test instead of hanging it.
        socket.setReceiveTimeout(30)
        var received = Data()
        while true {
            guard let bytes = try? socket.receive() else { return (String(decoding: received, as: UTF8.self), false) }
            if bytes.isEmpty { return (String(decoding: received, as: UTF8.self), true) }
            received.append(bytes)
            if received.last == UInt8(ascii: "\n"), received.count > 0, String(decoding: received, as: UTF8.self).contains("welcome") {
                return (String(decoding: received, as: UTF8.self), false)
            }
        }
    }

    @Test("a connection with the wrong token is refused and closed, the app still gets in, and a second hello while it is connected is refused")
    func wrongToken() async throws {
        var config = AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true)
        let control = try config.enableRuntimeControl(timeout: Self.timeout)
        let port = try #require(UInt16(config.launchEnvironment["STUB_CONTROL"]?.split(separator: ":").last ?? ""))
        // A stray local process, or a second app, poses as the app: refused, with no token in the reason.
        let impostor = try Self.hello(port: port, token: ControlLaunchSettings.randomToken())
        #expect(impostor.closed, "the impostor's connection stayed open")
        #expect(impostor.answer.contains("does not carry this runner's token"), "\(impostor.answer)")
        #expect(!impostor.answer.contains(control.launchEnvironment["STUB_CONTROL_RUNNER_TOKEN"]!))

        let app = try AppUnderTest.launch(process.stubdemo, with: config, arguments: ["--interactive"], control: control)
        defer { app.terminate() }
        try await control.addRule(#"{ "method": "GET", "path": "/restaurants", "status": 418 }"#)
        #expect(try process.ask(app, "GET \(Self.api)/restaurants")["status"] as? Int == 418)
        // The app is in: another hello, even with the right token, is refused while it stays connected.
        let second = try Self.hello(port: port, token: control.launchEnvironment["STUB_CONTROL_TOKEN"]!)
        #expect(second.closed && second.answer.contains("another app is connected"), "\(second.answer)")
        try await control.resetState()
    }
}
