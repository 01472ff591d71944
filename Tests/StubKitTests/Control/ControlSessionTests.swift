import Foundation
import Testing
@testable import StubKit
import StubKitTesting
import StubKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The runner's session against a fake app on loopback: descriptors as a BSD kernel hands them out,
/// an app that stops reading, hellos it must refuse, commands too big to send, calls cancelled mid-way.
struct ControlSessionTests {
    let wire = ControlWireTests()

    static func port(of control: AppControl) throws -> UInt16 {
        try #require(UInt16(control.launchEnvironment["STUB_CONTROL"]?.split(separator: ":").last ?? ""))
    }

    /// Answers every command `ok` on a thread of its own until the connection ends; `seen` hears of each.
    static func answerEverything(_ app: LoopbackSocket, seen: (@Sendable (Int) -> Void)? = nil, reply: Bool = true) {
        Thread {
            var reader = ControlLineReader()
            while let bytes = try? app.receive(), !bytes.isEmpty {
                for case .line(let line) in reader.append(bytes) {
                    guard let (id, _) = try? ControlProtocol.decodeCommand(line) else { continue }
                    seen?(id)
                    if reply { _ = app.send(ControlProtocol.encode(ControlReply(id: id, ok: true))) }
                }
            }
        }.start()
    }

    @Test("an accepted socket is blocking even when the kernel hands it the listener's O_NONBLOCK, as BSD kernels do")
    func acceptedSocketIsBlocking() throws {
        let (listener, port) = try LoopbackSocket.listen()
        defer { listener.close() }
        listener.setNonBlocking()
        let client = try LoopbackSocket.connect(port: port)
        defer { client.close() }
        var accepted: LoopbackSocket?
        while accepted == nil {
            #expect(listener.wait(for: Int16(POLLIN), milliseconds: 30_000))
            accepted = listener.accept { fcntl($0, F_SETFL, fcntl($0, F_GETFL) | O_NONBLOCK) }
        }
        defer { accepted?.close() }
        #expect(fcntl(accepted!.descriptor, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test("a session whose accepted socket inherited O_NONBLOCK waits for a hello that comes late, then works")
    func lateHelloOnInheritedNonBlocking() async throws {
        let control = try AppControl(timeout: 60) { fd in _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let app = try LoopbackSocket.connect(port: Self.port(of: control))
        defer { app.close() }
        // No hello yet: the runner must keep the connection open, not read "no data yet" as its end.
        app.setReceiveTimeout(1)
        #expect(throws: LoopbackSocket.Failure.self, "the runner closed a connection whose hello was still to come") { _ = try app.receive() }
        app.setReceiveTimeout(60)
        #expect(app.send(ControlProtocol.encodeHello(token: control.launchEnvironment["STUB_CONTROL_TOKEN"]!, pid: 1)))
        Self.answerEverything(app)
        try await control.resetState()
    }

    @Test("an app that stops reading: large commands fail after the time-out with a clear error, never hanging the runner")
    func appStopsReading() async throws {
        let control = try AppControl(timeout: 2)
        let app = try wire.fakeApp(for: control)
        defer { app.close() }
        let rule = #"{"method":"GET","path":"/big","status":200,"body":""# + String(repeating: "a", count: 900_000) + #""}"#
        let started = Date()
        let messages = await withTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    do { try await control.addRule(rule); return "succeeded" } catch { return "\(error)" }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Seconds alone; the bound is loose because the full suite (builds in child processes on two
        // cores) can starve the test's tasks for minutes. A blocked writer never returns at all.
        #expect(Date().timeIntervalSince(started) < 280, "the calls took \(Date().timeIntervalSince(started)) s")
        #expect(messages.count == 8 && !messages.contains("succeeded"), "\(messages)")
        #expect(messages.contains { $0.contains("the app did not read the command within 2.0 s") || $0.contains("the app stopped reading commands") }, "\(messages)")
    }

    @Test("a command over the size limit is refused before sending, and the session stays usable")
    func commandTooLong() async throws {
        let control = try AppControl(timeout: 60)
        let app = try wire.fakeApp(for: control)
        defer { app.close() }
        Self.answerEverything(app)
        let rule = #"{"method":"GET","path":"/big","status":200,"body":""# + String(repeating: "a", count: ControlProtocol.maximumLineLength) + #""}"#
        do {
            try await control.addRule(rule)
            Issue.record("an oversized command was sent")
        } catch let error as AppControlError {
            #expect(error.message.contains("over the control message limit of \(ControlProtocol.maximumLineLength) bytes: not sent"), "\(error)")
        }
        try await control.resetState()
        try await control.setKillSwitch(true)
    }

    @Test("a hello in another protocol version or with another token is refused with the reason, which a call waiting for an app then names")
    func refusedHello() async throws {
        let control = try AppControl(timeout: 1)
        let port = try Self.port(of: control)
        let token = control.launchEnvironment["STUB_CONTROL_TOKEN"]!
        let old = try RuntimeControlBadInputTests.hello(port: port, token: token, version: 1)
        #expect(old.closed && old.answer.contains("the app speaks control protocol version 1; this runner speaks version \(ControlProtocol.version)"), "\(old.answer)")
        do {
            try await control.resetState()
            Issue.record("a call with no app succeeded")
        } catch let error as AppControlError {
            #expect(error.message.hasSuffix("; the last connection was refused: the app speaks control protocol version 1; this runner speaks version \(ControlProtocol.version)"), "\(error)")
            #expect(!error.message.contains(token), "\(error)")
        }
        // The app's side: activation fails with the runner's reason instead of running unsteered.
        var settings = ControlLaunchSettings.parse(environment: control.launchEnvironment).0!
        settings.token = ControlLaunchSettings.randomToken()
        let locator = BundleLocator(explicitFolder: nil, environment: [:], includeMainBundle: false)
        let engine = try StubActivation.prepare(StubLaunchSettings(templates: ["restaurants_base"]), locator: locator).engine
        do {
            _ = try ControlConnection.start(settings, handler: ControlCommandHandler(engine: engine, locator: locator))
            Issue.record("the app was let in with another token")
        } catch {
            #expect(error.description.contains("the test runner refused the connection: the hello of process"), "\(error)")
        }
        // And a listener that is not its runner (it answers with another runner token) is not trusted.
        settings.token = token
        settings.runnerToken = ControlLaunchSettings.randomToken()
        do {
            _ = try ControlConnection.start(settings, handler: ControlCommandHandler(engine: engine, locator: locator))
            Issue.record("the app trusted a runner with another token")
        } catch {
            #expect(error.description.contains("not the test runner that launched this app"), "\(error)")
        }
    }

    @Test("a call cancelled while it waits for the app's answer returns at once with CancellationError")
    func cancelledWhileWaitingForReply() async throws {
        let control = try AppControl(timeout: 300)
        let app = try wire.fakeApp(for: control)
        defer { app.close() }
        let (received, continuation) = AsyncStream.makeStream(of: Int.self)
        Self.answerEverything(app, seen: { continuation.yield($0) }, reply: false)
        let task = Task { try await control.resetState() }
        for await _ in received { break }
        let started = Date()
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(Date().timeIntervalSince(started) < 30)
    }

    @Test("connections that never say hello are capped: one past the limit is closed at once, and the app still gets in once they go")
    func silentConnectionsCapped() async throws {
        let control = try AppControl(timeout: 60)
        let port = try Self.port(of: control)
        let silent = try (0..<8).map { _ in try LoopbackSocket.connect(port: port) }
        let extra = try LoopbackSocket.connect(port: port)
        defer { extra.close() }
        // Closed by the runner (the end of the connection), not left to wait for its hello.
        extra.setReceiveTimeout(5)
        #expect(try extra.receive().isEmpty)
        for socket in silent { socket.close() }
        // The runner notices each close on its own thread: until it has, a newcomer may still be
        // closed at once, so try again on each close (an event, not a timer), a bounded number of times.
        let token = control.launchEnvironment["STUB_CONTROL_TOKEN"]!
        var welcomed = false
        for _ in 0..<1000 where !welcomed {
            welcomed = try RuntimeControlBadInputTests.hello(port: port, token: token).answer.contains("welcome")
        }
        #expect(welcomed, "the app was never let in after the silent connections went")
    }
}
