import Foundation
import Testing
import StubKit
import StubKitTesting
import StubKitTestSupport

/// Runtime control across a real process boundary: stubdemo launched as the app under test and
/// steered while it runs. Each test sends the same request before and after a command, without a
/// relaunch, and sees a different answer.
struct RuntimeControlProcessTests {
    static let api = "https://api.takeaway.example"
    static let timeout: TimeInterval = 300
    let stubdemo = ChildProcess.executable("stubdemo")

    /// A launched stubdemo with runtime control on.
    func launch(_ templates: [String], killSwitch: Bool = true, environment: [String: String] = [:]) throws -> (AppUnderTest, AppControl) {
        var config = AppLaunchConfiguration(templates: templates, killSwitch: killSwitch, environment: environment)
        let control = try config.enableRuntimeControl(timeout: Self.timeout)
        let app = try AppUnderTest.launch(stubdemo, with: config, arguments: ["--interactive"], control: control)
        return (app, control)
    }

    /// Sends one request line and returns the JSON line stubdemo prints for it.
    func ask(_ app: AppUnderTest, _ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try app.send(line)
        let output = try #require(app.nextOutputLine(timeout: Self.timeout), "no answer to \(line): \(app.standardError)", sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], sourceLocation: sourceLocation)
    }

    func body(_ answer: [String: Any]) -> String { answer["body"] as? String ?? "" }

    @Test("activate puts a template on top and deactivate takes it off; activating an active one moves it on top")
    func activateAndDeactivate() async throws {
        let (app, control) = try launch(["restaurants_base"])
        defer { app.terminate() }
        #expect(body(try ask(app, "GET \(Self.api)/restaurants")).contains(#""isOpen": true"#))
        try await control.activate("restaurants_closed")
        #expect(body(try ask(app, "GET \(Self.api)/restaurants")).contains(#""isOpen": false"#))
        try await control.activate("restaurants_base")
        #expect(body(try ask(app, "GET \(Self.api)/restaurants")).contains(#""isOpen": true"#))
        try await control.activate("restaurants_closed")
        try await control.deactivate("restaurants_closed")
        #expect(body(try ask(app, "GET \(Self.api)/restaurants")).contains(#""isOpen": true"#))
        // The runner's journal knows the rules activated at runtime.
        #expect(app.journal.rules.contains { $0.bundle == "restaurants_closed" })
    }

    @Test("an added rule answers above the templates, the journal names it, and removing it restores the template's answer")
    func addAndRemoveRule() async throws {
        let (app, control) = try launch(["restaurants_base"])
        defer { app.terminate() }
        #expect(try ask(app, "GET \(Self.api)/restaurants")["status"] as? Int == 200)
        let id = try await control.addRule(#"{ "name": "outage", "method": "GET", "path": "/restaurants", "status": 503, "json": { "down": true } }"#)
        #expect(id == "rule-1")
        let down = try ask(app, "GET \(Self.api)/restaurants")
        #expect(down["status"] as? Int == 503 && body(down) == #"{"down":true}"#)
        try await app.journal.waitForRequest(matching: RequestPredicate("GET", path: "/restaurants"), count: 2, timeout: Self.timeout)
        let entry = try #require(app.journal.entries.last)
        #expect(entry.rule?.name == "outage" && entry.rule?.location == "rule-1:1:1" && entry.bundle == "(added at runtime)")
        #expect(app.journal.rules.contains { $0.location == "rule-1:1:1" })
        try await control.removeRule(id)
        #expect(try ask(app, "GET \(Self.api)/restaurants")["status"] as? Int == 200)
    }

    @Test("setting a scenario's state changes which rule answers")
    func scenarioState() async throws {
        let (app, control) = try launch(["order_flow"])
        defer { app.terminate() }
        #expect(try ask(app, "GET \(Self.api)/orders/9001")["status"] as? Int == 404)
        try await control.setScenario("order", state: "placed")
        let placed = try ask(app, "GET \(Self.api)/orders/9001")
        #expect(placed["status"] as? Int == 200 && body(placed).contains("accepted"), "\(placed)")
        // A scenario no rule uses is refused, with the closest name in use.
        do {
            try await control.setScenario("ordr", state: "placed")
            Issue.record("a scenario no rule uses was set")
        } catch let error as AppControlError {
            #expect(error.message.contains("no active or added rule uses scenario 'ordr'; did you mean 'order'?"), "\(error)")
        }
    }

    @Test("resetting returns sequences and scenarios to their start")
    func reset() async throws {
        let (app, control) = try launch(["order_flow"])
        defer { app.terminate() }
        #expect(try ask(app, "POST \(Self.api)/payments")["status"] as? Int == 503)
        #expect(try ask(app, "POST \(Self.api)/payments")["status"] as? Int == 200)
        try await control.setScenario("order", state: "placed")
        try await control.resetState()
        #expect(try ask(app, "POST \(Self.api)/payments")["status"] as? Int == 503)
        #expect(try ask(app, "GET \(Self.api)/orders/9001")["status"] as? Int == 404)
    }

    @Test("the kill switch turned on refuses what no rule answers; turned off, the request reaches the network")
    func killSwitch() async throws {
        let server = try LoopbackServer()
        defer { server.stop() }
        let (app, control) = try launch(["restaurants_base"], killSwitch: false)
        defer { app.terminate() }
        let url = server.baseURL.absoluteString + "/x"
        #expect(body(try ask(app, "GET \(url)")) == "from the real network")
        try await control.setKillSwitch(true)
        let refused = try ask(app, "GET \(url)")
        #expect(refused["error"] != nil && refused["body"] == nil, "\(refused)")
        try await control.setKillSwitch(false)
        #expect(body(try ask(app, "GET \(url)")) == "from the real network")
    }

    @Test("setting now changes what a template renders; nil returns it to the clock")
    func now() async throws {
        let (app, control) = try launch(["restaurants_base"])
        defer { app.terminate() }
        try await control.addRule(#"{ "method": "GET", "path": "/clock", "template": true, "body": "{{now}}" }"#)
        try await control.setNow(ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        #expect(body(try ask(app, "GET \(Self.api)/clock")) == "2024-05-01T19:30:00Z")
        try await control.setNow(ISO8601DateFormatter().date(from: "2031-01-02T03:04:05Z"))
        #expect(body(try ask(app, "GET \(Self.api)/clock")) == "2031-01-02T03:04:05Z")
        try await control.setNow(nil)
        let clock = body(try ask(app, "GET \(Self.api)/clock"))
        let date = try #require(ISO8601DateFormatter().date(from: clock), "\(clock)")
        #expect(abs(date.timeIntervalSinceNow) < 3600)
    }

    @Test("clearing the journal leaves only later requests in the journal the app writes at exit")
    func clearJournal() async throws {
        let folder = try TemporaryFolder()
        let har = folder.url.appendingPathComponent("journal.har")
        let (app, control) = try launch(["restaurants_base"], environment: ["STUB_JOURNAL_HAR": har.path])
        _ = try ask(app, "GET \(Self.api)/restaurants")
        try await control.clearJournal()
        _ = try ask(app, "GET \(Self.api)/search?q=pizza")
        #expect(app.finish() == 0)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any]
        let entries = (object?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect(entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String } == ["\(Self.api)/search?q=pizza"])
    }

    @Test("one AppControl steers a relaunched app: the second launch connects again with fresh state")
    func relaunch() async throws {
        var config = AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true)
        let control = try config.enableRuntimeControl(timeout: Self.timeout)
        let first = try AppUnderTest.launch(stubdemo, with: config, arguments: ["--interactive"], control: control)
        try await control.addRule(#"{ "method": "GET", "path": "/restaurants", "status": 418 }"#)
        #expect(try ask(first, "GET \(Self.api)/restaurants")["status"] as? Int == 418)
        first.terminate()
        let second = try AppUnderTest.launch(stubdemo, with: config, arguments: ["--interactive"], control: control)
        defer { second.terminate() }
        #expect(try ask(second, "GET \(Self.api)/restaurants")["status"] as? Int == 200, "\(second.standardError)")
        let id = try await control.addRule(#"{ "method": "GET", "path": "/restaurants", "status": 503 }"#)
        #expect(id == "rule-1")
        #expect(try ask(second, "GET \(Self.api)/restaurants")["status"] as? Int == 503)
    }

    @Test("clearing the journal: the runner's live journal forgets earlier requests at once and counts later ones from zero")
    func clearJournalLive() async throws {
        let (app, control) = try launch(["restaurants_base"])
        defer { app.terminate() }
        let restaurants = RequestPredicate("GET", path: "/restaurants")
        _ = try ask(app, "GET \(Self.api)/restaurants")
        try await app.journal.waitForRequest(matching: restaurants, count: 1, timeout: Self.timeout)
        try await control.clearJournal()
        #expect(app.journal.entries.isEmpty, "\(app.journal.entries.map(\.request.url))")
        _ = try ask(app, "GET \(Self.api)/restaurants")
        try await app.journal.waitForRequest(matching: restaurants, count: 1, timeout: Self.timeout)
        #expect(app.journal.requests(matching: restaurants).count == 1)
        #expect(app.journal.problems.isEmpty, "\(app.journal.problems)")
    }
}
