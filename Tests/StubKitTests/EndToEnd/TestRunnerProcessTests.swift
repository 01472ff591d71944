import Foundation
import Testing
import StubKit
import StubKitTesting
import StubKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test runner's side across a real process boundary: stubdemo launched as the app under test,
/// flags in through launch arguments, requests out through the live journal while it runs.
struct TestRunnerProcessTests {
    let api = "https://api.takeaway.example"
    let stubdemo = ChildProcess.executable("stubdemo")

    /// The `{"launch": …}` line stubdemo prints with `--print-launch`.
    func launchLine(_ output: ChildProcess.Output, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let line = output.jsonLines.first { $0["launch"] != nil }
        return try #require(line?["launch"] as? [String: Any], "no launch line in: \(output.stdout) \(output.stderr)", sourceLocation: sourceLocation)
    }

    func flags(_ object: Any?) throws -> LaunchFlags {
        let envelope = try JSONSerialization.data(withJSONObject: ["version": 1, "flags": object ?? [:]])
        return try LaunchFlags(decoding: String(decoding: envelope, as: UTF8.self), source: "stubdemo output")
    }

    @Test("awkward flag values go runner → launch arguments → the app's bridge → its output unchanged")
    func flagsRoundTrip() throws {
        var config = AppLaunchConfiguration(templates: ["restaurants_base"])
        config.featureFlags = LaunchFlagsTests.awkward
        config.automationFlags = ["simulateUserAlreadyLoggedIn": true, "user": ["name": "Zoë \"Z\" O'Neil", "id": 12]]
        let out = try ChildProcess.run("stubdemo", arguments: config.launchArguments + ["--print-launch"], environment: config.launchEnvironment)
        #expect(out.status == 0, "\(out.stderr)")
        let launch = try launchLine(out)
        #expect(try flags(launch["featureFlags"]) == config.featureFlags)
        #expect(try flags(launch["automationFlags"]) == config.automationFlags)
        #expect(launch["simulateUserAlreadyLoggedIn"] as? Bool == true)

        // Apple's `-NAME value` form, as XCUITest users write launch arguments by hand.
        let dashed = try ChildProcess.run("stubdemo", arguments: ["-STUB_AUTOMATION_FLAGS", config.automationFlags.encoded(), "-STUB_SEED", "5", "--print-launch"])
        #expect(dashed.status == 0, "\(dashed.stderr)")
        #expect(try flags(try launchLine(dashed)["automationFlags"]) == config.automationFlags)
    }

    @Test("a malformed flags argument stops the app with an error naming it")
    func malformedFlags() throws {
        let out = try ChildProcess.run("stubdemo", arguments: [#"STUB_AUTOMATION_FLAGS={"version":1,"flags":{"simulateUserAlreadyLoggedIn":YES}}"#, "--print-launch"])
        #expect(out.status == 3)
        #expect(out.stderr.contains("launch argument STUB_AUTOMATION_FLAGS: not version-1 flags JSON"), "\(out.stderr)")
        #expect(out.stdout.isEmpty)
    }

    @Test("the app sees STUB_NOW and STUB_SEED through the bridge; a recorded bundle's time otherwise")
    func clock() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        let config = AppLaunchConfiguration(templates: ["restaurants_base"], now: now, seed: 99)
        let launch = try launchLine(try ChildProcess.run("stubdemo", arguments: config.launchArguments + ["--print-launch"]))
        #expect(launch["now"] as? String == "2024-05-01T19:30:00Z")
        #expect(launch["seed"] as? Int == 99)

        let recorded = AppLaunchConfiguration(templates: ["recorded_session"])
        let replay = try launchLine(try ChildProcess.run("stubdemo", arguments: recorded.launchArguments + ["--print-launch"]))
        #expect(replay["now"] as? String == "2026-11-23T12:29:36Z")
    }

    @Test("stubdemo --print-launch with stubs active says it is a test launch")
    func stubbedLaunchIsTestLaunch() throws {
        let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_restaurants_base", "STUB_KILL_NETWORK", "--print-launch", "GET", "\(api)/restaurants"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try launchLine(out)["isTestLaunch"] as? Bool == true)
    }

    @Test("a production launch sees no flags, writes no journal, and reaches the real network")
    func production() throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-production-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = try ChildProcess.run("stubdemo", arguments: ["--print-launch", "GET", server.baseURL.absoluteString + "/x"],
                                       environment: ["TMPDIR": folder.path], currentDirectory: folder)
        #expect(out.status == 0, "\(out.stderr)")
        let launch = try launchLine(out)
        #expect(launch["isTestLaunch"] as? Bool == false)
        #expect((launch["featureFlags"] as? [String: Any])?.isEmpty == true)
        #expect((launch["automationFlags"] as? [String: Any])?.isEmpty == true)
        #expect(launch["now"] == nil && launch["seed"] == nil)
        #expect(out.jsonLines.last?["body"] as? String == "from the real network")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    /// Generous, so a loaded machine (a full parallel test run on two cores) cannot fail the tests; a
    /// wait that slept for its time-out would still fail them.
    static let timeout: TimeInterval = 300

    // The timing tests use the blocking forms: an async wait resumes on Swift's cooperative pool, which
    // other tests blocking their threads can starve for seconds in a full run, and that would be
    // measured instead of the wake-up. The async forms are exercised below and in LiveJournalTests.
    @Test("an app that does not exit when asked is killed after the limit: the test runner never hangs on it")
    func hungAppIsKilled() throws {
        // An app that ignores its closed standard input, as a hung app ignores being asked to finish.
        let folder = try TemporaryFolder()
        let hung = try folder.file("hung-app", data: Data("#!/bin/sh\nexec sleep 600\n".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hung.path)
        let app = try AppUnderTest.launch(hung, with: AppLaunchConfiguration())
        let started = Date()
        #expect(app.finish(limit: 1) == SIGKILL)
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(app.terminate(limit: 1) == SIGKILL)
        // One that ignores SIGTERM is killed after the limit too.
        let deaf = try folder.file("deaf-app", data: Data("#!/bin/sh\ntrap '' TERM\necho deaf\nexec sleep 600\n".utf8))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: deaf.path)
        let deafApp = try AppUnderTest.launch(deaf, with: AppLaunchConfiguration())
        #expect(deafApp.nextOutputLine(timeout: 60) == "deaf")  // SIGTERM is ignored from now on
        #expect(deafApp.terminate(limit: 1) == SIGKILL)
    }

    @Test("the runner waits for a request the running app makes, woken by it long before the time-out")
    func waitWokenByRequest() throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true),
                                          arguments: ["--interactive"])
        defer { app.terminate() }
        let restaurants = RequestPredicate("GET", path: "/restaurants")
        #expect(app.journal.requests(matching: restaurants).isEmpty)

        // Seven requests, each sent once its wait is registered: only the app's write can wake it.
        var wakeUps: [TimeInterval] = []
        var last: JournalEntry?
        for count in 1...7 {
            let started = Date()
            try app.journal.waitForRequestBlocking(matching: restaurants, count: count, timeout: Self.timeout,
                                                   whenArmed: { try? app.send("GET \(api)/restaurants") })
            let returned = Date()
            last = app.journal.requests(matching: restaurants).last
            let written = try #require(last)
            // From the app's write (its entry's end) to the wait's return: the wake-up, without the app's start.
            wakeUps.append(returned.timeIntervalSince(written.startedAt) - written.duration)
            // A wait that slept for its time-out would take all of it.
            #expect(returned.timeIntervalSince(started) < Self.timeout / 2)
        }
        // Woken by the write itself: the median wake-up is far under the interval a poller would use (a
        // 1 s poll gives a median near 0.5 s; one late sample on a loaded machine does not move a median).
        let median = wakeUps.sorted()[wakeUps.count / 2]
        #expect(median < 0.2, "median wake-up \(median) s after the write; all: \(wakeUps)")
        let entry = try #require(last)
        #expect(app.isRunning)
        #expect(entry.status == 200 && entry.rule?.name == "list restaurants")
    }

    @Test("step by step, as taps: the async wait sees a POST with its quoted body and header")
    func stepByStep() async throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true),
                                          arguments: ["--interactive"])
        defer { app.terminate() }
        try app.send(#"POST \#(api)/orders --data '{"items": [11], "note": "Grüß"}' --header 'X-Trace: a b'"#)
        try await app.journal.waitForRequest(matching: RequestPredicate("POST", path: "/orders"), timeout: Self.timeout)
        let order = try #require(app.journal.requests(matching: RequestPredicate("POST", path: "/orders")).first)
        #expect(order.request.body.map { String(decoding: $0, as: UTF8.self) } == #"{"items": [11], "note": "Grüß"}"#)
        #expect(order.request.header("x-trace") == "a b")
        #expect(order.status == 201)
        #expect(app.isRunning)
    }

    @Test("the UI-tests article's Linux example runs as written")
    func readmeExample() async throws {
        // Keep in step with Sources/StubKit/StubKit.docc/UITestsAcrossProcesses.md.
        let app = try AppUnderTest.launch(ChildProcess.executable("stubdemo"),
                                          with: AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true),
                                          arguments: ["--interactive"])
        defer { app.terminate() }                      // SIGTERM, as XCUITest stops an app
        try app.send("GET https://api.takeaway.example/restaurants")
        try await app.journal.waitForRequest(matching: RequestPredicate("GET", path: "/restaurants"), timeout: 60)
        try app.send(#"POST https://api.takeaway.example/orders --data '{"items": [11]}' --header 'X-Trace: a b'"#)
        try await app.journal.waitForRequest(matching: RequestPredicate("POST", path: "/orders"), timeout: 60)
        try await app.journal.expectNoRequest(matching: RequestPredicate("DELETE", path: "/basket"), within: 0.5)
        // Not a check that always passes: the same call fails for a request the app did send.
        await #expect(throws: VerificationError.self) {
            try await app.journal.expectNoRequest(matching: RequestPredicate("POST", path: "/orders"), within: Self.timeout)
        }
    }

    @Test("the blocking wait, for XCTest UI tests, returns with the request and the app's output")
    func blockingWait() throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"])
        defer { app.terminate() }
        try app.send("GET \(api)/restaurants/1/menu")
        try app.journal.waitForRequestBlocking(matching: RequestPredicate("GET", path: "/restaurants/*/menu"), timeout: Self.timeout)
        #expect(app.nextOutputLine(timeout: Self.timeout).map { $0.contains("\"status\":200") } == true)
        // A bad line is answered with a usage line; the app keeps running.
        try app.send("GET")
        #expect(app.nextOutputLine(timeout: Self.timeout)?.contains(#""usage":"expected METHOD URL, got 'GET'""#) == true)
        #expect(app.isRunning)
    }

    @Test("expectNoRequest fails as soon as the app sends it, listing what the app requested")
    func expectNoRequestFails() throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"])
        defer { app.terminate() }
        let started = Date()
        do {
            try app.journal.expectNoRequestBlocking(matching: RequestPredicate("DELETE", path: "/basket"), within: Self.timeout,
                                                    whenArmed: { try? app.send("DELETE \(api)/basket") })
            Issue.record("expectNoRequest passed although the app sent DELETE /basket")
        } catch {
            #expect(error.description.contains("expected no request matching DELETE /basket"), "\(error.description)")
            #expect(error.description.contains("DELETE https://api.takeaway.example/basket → 204 (restaurants_base: delete basket)"), "\(error.description)")
        }
        #expect(Date().timeIntervalSince(started) < Self.timeout / 2)
    }

    @Test("expectNoRequest passes when the app sends only other requests; verifyAllRulesUsed names the unused rules")
    func expectNoRequestPassesAndUnusedRules() throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"])
        defer { app.terminate() }
        try app.send("GET \(api)/search?q=pizza")
        try app.journal.waitForRequestBlocking(matching: RequestPredicate("GET", path: "/search"), timeout: Self.timeout)
        let watched = Date()
        try app.journal.expectNoRequestBlocking(matching: RequestPredicate("POST", path: "/orders"), within: 0.2)
        // It watched for the whole period (a check that returned at once would not have)...
        #expect(Date().timeIntervalSince(watched) >= 0.2)
        // ...and it fails, naming the request, for one the app did send.
        do {
            try app.journal.expectNoRequestBlocking(matching: RequestPredicate("GET", path: "/search"), within: Self.timeout)
            Issue.record("expectNoRequest passed although the app sent GET /search")
        } catch {
            #expect(error.description.contains("GET https://api.takeaway.example/search?q=pizza → 200"), "\(error.description)")
        }
        #expect(app.journal.rules.count == 8)
        do {
            try app.journal.verifyAllRulesUsed()
            Issue.record("verifyAllRulesUsed passed with seven rules unused")
        } catch {
            #expect(String(describing: error).contains("never used: list restaurants (") && String(describing: error).contains("delete basket ("), "\(String(describing: error))")
            #expect(!String(describing: error).contains("never used: search") && !String(describing: error).contains("; search ("))
            #expect(String(describing: error).contains("requests seen: GET https://api.takeaway.example/search?q=pizza → 200"), "\(String(describing: error))")
        }
    }

    @Test("releasing an AppUnderTest stops the app and waits for it: no process is left behind")
    func releaseWaitsForExit() throws {
        var app: AppUnderTest? = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]),
                                                         arguments: ["--interactive"])
        let pid = try #require(app?.processIdentifier)
        try app?.send("GET \(api)/restaurants")
        try app?.journal.waitForRequestBlocking(matching: RequestPredicate("GET", path: "/restaurants"), timeout: Self.timeout)
        app = nil
        // kill(pid, 0) succeeds for a running child and for an unreaped (zombie) one.
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "process \(pid) still exists after its AppUnderTest was released")
    }

    #if os(Linux)
    /// Set in the child process `sigpipeScoped` starts, where this test runs alone.
    static let sigpipeChildVariable = "STUBKIT_SIGPIPE_CHECK_IN_THIS_PROCESS"

    @Test("launching leaves the runner's SIGPIPE handling alone; a line sent to an app that exited is an error, not a kill")
    func sigpipeScoped() throws {
        if ProcessInfo.processInfo.environment[Self.sigpipeChildVariable] == "1" {
            try sigpipeCheckInThisProcess()
            return
        }
        // In a test process of its own: other suites ignore SIGPIPE for their sockets while they run,
        // so here neither a change by the launcher nor a SIGPIPE it lets through could be seen.
        let out = try ChildProcess.run(executableURL: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                       arguments: ["--testing-library", "swift-testing", "--filter", "TestRunnerProcessTests/sigpipeScoped"],
                                       environment: [Self.sigpipeChildVariable: "1"])
        // Swift Testing writes its report to standard error or standard output, depending on the terminal.
        let report = out.stdout + out.stderr
        #expect(out.status == 0, "the child test process ended with \(out.status) (13 is SIGPIPE): \(report.suffix(3000))")
        #expect(report.contains("Test run with 1 test") && report.contains("passed"), "\(report.suffix(3000))")
    }

    func sigpipeCheckInThisProcess() throws {
        func disposition() -> UInt {
            var action = sigaction()
            sigaction(SIGPIPE, nil, &action)
            return unsafeBitCast(action.__sigaction_handler.sa_handler, to: UInt.self)
        }
        // The default: a SIGPIPE the launcher lets through ends this process, and the parent test sees it.
        signal(SIGPIPE, SIG_DFL)
        let before = disposition()
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"])
        // Stopped as XCUITest stops an app: the runner keeps its end of the app's input open, so the next
        // write meets a pipe nobody reads (EPIPE, and a SIGPIPE unless the launcher holds it back).
        app.terminate()
        #expect(disposition() == before, "launching changed the process's SIGPIPE disposition")
        #expect { try app.send("GET \(api)/restaurants") } throws: { ($0 as? POSIXError)?.code == .EPIPE }
    }
    #endif

    @Test("terminate() stops an app launched from a thread that blocks every signal with SIGTERM, not the SIGKILL at the limit")
    func terminateFromBlockingThread() throws {
        // Dispatch's worker threads block signals; a launch from one must not hand that mask to the app.
        let launched = Locked<Result<AppUnderTest, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let stubdemo = stubdemo
        Thread {
            var all = sigset_t()
            sigfillset(&all)
            pthread_sigmask(SIG_SETMASK, &all, nil)
            let result = Result { try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"]) }
            launched.withLock { $0 = result }
            done.signal()
        }.start()
        try #require(done.wait(timeout: .now() + 60) == .success)
        let app = try #require(try launched.withLock { $0 }?.get())
        #expect(app.terminate(limit: 30) == SIGTERM, "the app ignored SIGTERM and was killed at the limit")
    }

    @Test("an app killed as XCUITest kills it has already written every line whole")
    func killedApp() async throws {
        let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]), arguments: ["--interactive"])
        for id in 1...5 { try app.send("GET \(api)/orders/\(id)") }
        try await app.journal.waitForRequest(matching: RequestPredicate("GET", path: "/orders/*"), count: 5, timeout: Self.timeout)
        app.terminate()
        #expect(app.journal.problems.isEmpty)
        #expect(app.journal.entries.map(\.id) == [1, 2, 3, 4, 5])
        let text = try String(contentsOf: app.journal.url, encoding: .utf8)
        #expect(text.hasSuffix("\n") && text.split(separator: "\n").count == 6)
    }
}
