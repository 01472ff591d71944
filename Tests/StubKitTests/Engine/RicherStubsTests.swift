import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Issue 4 through real URLSession requests: conditions, responses, sequences, scenarios, templates,
/// the journal and waiting. Some measure delays, so these run one at a time.
@Suite(.serialized)
struct RicherStubsTests {
    static let now = ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z")!
    let api = "https://api.takeaway.example"
    /// A stubbed session is answered only while its engine lives: the engines of sessions a test keeps alone.
    private let engines = Locked<[StubEngine]>([])

    func engine(seed: UInt64 = 42, killSwitch: Bool = true) throws -> (StubEngine, URLSession) {
        let engine = StubEngine(killSwitch: killSwitch, now: Self.now, seed: seed)
        try engine.activate(folder: PackagePaths.stubBundles.appendingPathComponent("order_flow"))
        engines.withLock { $0.append(engine) }
        return (engine, URLSession(configuration: .stubbed(by: engine, base: .ephemeral)))
    }

    /// An engine over a bundle written for one test.
    func engine(rules: String, files: [String: String] = [:]) throws -> (StubEngine, URLSession, TemporaryFolder) {
        let folder = try TemporaryFolder()
        let engine = StubEngine(killSwitch: true, now: Self.now)
        try folder.activate(engine, bundle: "t", rules: rules, files: files)
        engines.withLock { $0.append(engine) }
        return (engine, URLSession(configuration: .stubbed(by: engine, base: .ephemeral)), folder)
    }

    // MARK: Matching

    @Test("request bodies: exact text, contains, regular expression, JSON equality ignoring key order, JSON subset")
    func bodyMatchers() async throws {
        let (_, session, _) = try engine(rules: """
        [
          { "name": "exact", "method": "POST", "path": "/exact", "requestBody": { "equals": "hello" }, "body": "exact" },
          { "name": "contains", "method": "POST", "path": "/contains", "requestBody": { "contains": "needle" }, "body": "contains" },
          { "name": "regex", "method": "POST", "path": "/regex", "requestBody": { "matches": "^id=[0-9]+$" }, "body": "regex" },
          { "name": "json", "method": "POST", "path": "/json", "requestBody": { "equalsJSON": { "a": 1, "b": [true, null] } }, "body": "json" },
          { "name": "subset", "method": "POST", "path": "/subset", "requestBody": { "containsJSON": { "order": { "id": 7 } } }, "body": "subset" }
        ]
        """)
        let cases: [(String, String, String?)] = [
            ("/exact", "hello", "exact"), ("/exact", "hello ", nil),
            ("/contains", "a needle in a haystack", "contains"), ("/contains", "haystack", nil),
            ("/regex", "id=42", "regex"), ("/regex", "id=x", nil),
            ("/json", #"{ "b": [true, null],   "a": 1.0 }"#, "json"), ("/json", #"{"a": 1}"#, nil), ("/json", "not json", nil),
            ("/subset", #"{"order": {"id": 7, "items": [1]}, "user": "x"}"#, "subset"), ("/subset", #"{"order": {"id": 8}}"#, nil),
        ]
        for (path, body, expected) in cases {
            let result = await session.result("POST", "\(api)\(path)", body: body)
            #expect(result.text == expected, "\(path) with \(body)")
            if expected == nil { #expect(result.error?.code == .notConnectedToInternet) }
        }
    }

    @Test("a body that is not JSON is a clean miss whose near-miss report says why")
    func nonJSONBodyExplained() async throws {
        let (engine, session) = try engine()
        let result = await session.result("POST", "\(api)/orders", body: "restaurantId=1")
        #expect(result.error?.code == .notConnectedToInternet)
        let description = result.error?.localizedDescription ?? ""
        #expect(description.contains("the body is not valid JSON"), "\(description)")
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.rule == nil)
        #expect(entry.nearMisses.first?.mismatches.contains { $0.field == "body" } == true)
    }

    @Test("query items and headers: equal, regular expression, present, absent; and the scheme")
    func queryHeaderScheme() async throws {
        let (_, session) = try engine()
        let auth = ["Authorization": "Bearer abc", "Accept-Language": "de"]
        #expect(await session.result("GET", "\(api)/search?q=pizza", headers: auth).text == "results for pizza in de")
        #expect(await session.result("GET", "\(api)/search?q=Pizza", headers: auth).text == nil)          // regex fails
        #expect(await session.result("GET", "\(api)/search?q=pizza&page=2", headers: auth).text == nil)   // page must be absent
        #expect(await session.result("GET", "\(api)/search?q=pizza", headers: ["Authorization": "Basic x"]).text == nil)
        #expect(await session.result("GET", "\(api)/search?q=pizza", headers: auth.merging(["X-Debug": "1"]) { a, _ in a }).text == nil)
        #expect(await session.result("GET", "http://api.takeaway.example/search?q=pizza", headers: auth).text == nil) // scheme
    }

    // MARK: Responses

    @Test("a redirect is followed to the stub that answers the new location")
    func redirect() async throws {
        let (engine, session) = try engine()
        let result = await session.result("GET", "\(api)/menu/7")
        #expect(result.status == 200)
        #expect(result.response?.url?.absoluteString == "\(api)/restaurants/7/menu")
        #expect(result.json?["restaurantId"] as? String == "7")
        #expect(engine.journal.entries.map(\.status) == [301, 200])
    }

    @Test("throttling spreads the body over length / bandwidth seconds")
    func throttle() async throws {
        let (_, session) = try engine()
        let start = Date()
        let result = await session.result("GET", "\(api)/images/banner")
        #expect(result.data?.count == 8000)
        #expect(Date().timeIntervalSince(start) >= 8000.0 / 40000.0)
    }

    @Test("random delays come from the seed: the same seed gives the same delays, another seed others")
    func seededDelays() throws {
        func delays(seed: UInt64) throws -> [TimeInterval] {
            let (engine, _) = try engine(seed: seed)
            return (0..<5).map { _ in
                guard case .answer(let match) = engine.decision(for: StubRequest(url: URL(string: "\(api)/images/banner")!)) else { return -1 }
                return match.delay
            }
        }
        let first = try delays(seed: 1), again = try delays(seed: 1), other = try delays(seed: 2)
        #expect(first == again)
        #expect(first != other)
        #expect(first.allSatisfy { (0.01...0.05).contains($0) })
        #expect(Set(first).count > 1)
    }

    @Test("templates fill in path parameters, query items, headers, JSON body fields and the fixed now")
    func templates() async throws {
        let (_, session) = try engine()
        let placed = await session.result("POST", "\(api)/orders", body: #"{"restaurantId": 1, "items": [11]}"#)
        #expect(placed.status == 201)
        #expect(placed.json?["restaurantId"] as? String == "1")
        #expect(placed.json?["placedAt"] as? String == "2024-05-01T19:30:00Z")
        let status = await session.result("GET", "\(api)/orders/9001")
        #expect(status.json?["orderId"] as? String == "9001")
    }

    // MARK: Sequences and state

    @Test("a scenario: not found, then placed, then polled through the sequence until delivered, then reset")
    func orderScenario() async throws {
        let (engine, session) = try engine()
        #expect(await session.result("GET", "\(api)/orders/9001").status == 404)
        #expect(await session.result("POST", "\(api)/orders", body: #"{"restaurantId": 1, "items": [11]}"#).status == 201)
        #expect(engine.scenarioState("order") == "placed")
        var states: [String] = []
        for _ in 0..<6 { states.append(await session.result("GET", "\(api)/orders/9001").json?["state"] as? String ?? "?") }
        #expect(states == ["accepted", "preparing", "on its way", "delivered", "delivered", "delivered"])
        // The scenario has moved on, so placing again is answered by no rule.
        #expect(await session.result("POST", "\(api)/orders", body: #"{"restaurantId": 1}"#).error?.code == .notConnectedToInternet)
        engine.resetState()
        #expect(engine.scenarioState("order") == ScenarioCondition.initialState)
        #expect(await session.result("GET", "\(api)/orders/9001").status == 404)
    }

    @Test("sequences: repeat the last, cycle, or fail when used up")
    func sequences() async throws {
        let (_, session, _) = try engine(rules: """
        [
          { "path": "/last", "responses": [ { "body": "1" }, { "body": "2" } ] },
          { "path": "/cycle", "responses": [ { "body": "a" }, { "body": "b" } ], "afterLast": "cycle" },
          { "path": "/once", "responses": [ { "body": "only" } ], "afterLast": "fail" }
        ]
        """)
        var last: [String] = [], cycle: [String] = []
        for _ in 0..<4 {
            last.append(await session.result("GET", "\(api)/last").text ?? "?")
            cycle.append(await session.result("GET", "\(api)/cycle").text ?? "?")
        }
        #expect(last == ["1", "2", "2", "2"])
        #expect(cycle == ["a", "b", "a", "b"])
        #expect(await session.result("GET", "\(api)/once").text == "only")
        let used = await session.result("GET", "\(api)/once")
        #expect(used.error?.code == .resourceUnavailable)
        #expect(used.error?.localizedDescription.contains("has used all 1 of its responses") == true)
    }

    @Test("a payment that fails once and then succeeds, as an app's retry sees it")
    func retryAfterFailure() async throws {
        let (_, session) = try engine()
        #expect(await session.result("POST", "\(api)/payments").status == 503)
        #expect(await session.result("POST", "\(api)/payments").status == 200)
    }

    @Test("sequences stay ordered under concurrent requests: each response is used exactly once")
    func concurrentSequence() async throws {
        let (_, session, _) = try engine(rules: """
        [ { "path": "/n", "responses": [ \((0..<40).map { "{ \"body\": \"\($0)\" }" }.joined(separator: ", ")) ], "afterLast": "fail" } ]
        """)
        let bodies = await withTaskGroup(of: String?.self) { group in
            for _ in 0..<40 { group.addTask { await session.result("GET", "\(api)/n").text } }
            var all: [String] = []
            for await body in group { if let body { all.append(body) } }
            return all
        }
        #expect(Set(bodies) == Set((0..<40).map(String.init)))
        #expect(bodies.count == 40)
    }

    // MARK: Journal

    @Test("the journal records every request with rule, status, duration and body; HAR 1.2 has what viewers need")
    func journalAndHAR() async throws {
        let (engine, session) = try engine()
        _ = await session.result("POST", "\(api)/orders", body: #"{"restaurantId": 1}"#, headers: ["X-Trace": "t1"])
        _ = await session.result("GET", "\(api)/nowhere")
        let entries = engine.journal.entries
        #expect(entries.count == 2)
        #expect(entries[0].rule?.name == "place order")
        #expect(entries[0].status == 201)
        #expect(entries[0].request.header("x-trace") == "t1")
        #expect(entries[0].request.body == Data(#"{"restaurantId": 1}"#.utf8))
        #expect(entries[0].duration >= 0)
        #expect(entries[1].rule == nil)
        #expect(!entries[1].nearMisses.isEmpty)

        let har = try #require(try JSONSerialization.jsonObject(with: engine.journal.harData()) as? [String: Any])
        let log = try #require(har["log"] as? [String: Any])
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "StubKit")
        let harEntries = try #require(log["entries"] as? [[String: Any]])
        #expect(harEntries.count == 2)
        for entry in harEntries {
            for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] { #expect(entry[key] != nil, "missing \(key)") }
            let request = entry["request"] as? [String: Any]
            for key in ["method", "url", "httpVersion", "headers", "queryString", "cookies", "headersSize", "bodySize"] { #expect(request?[key] != nil, "request.\(key)") }
            let response = entry["response"] as? [String: Any]
            for key in ["status", "statusText", "httpVersion", "headers", "cookies", "content", "redirectURL", "headersSize", "bodySize"] { #expect(response?[key] != nil, "response.\(key)") }
        }
        let first = harEntries[0]
        #expect(((first["request"] as? [String: Any])?["postData"] as? [String: Any])?["text"] as? String == #"{"restaurantId": 1}"#)
        #expect(((first["response"] as? [String: Any])?["content"] as? [String: Any])?["text"] as? String == #"{"orderId":9001,"restaurantId":"1","placedAt":"2024-05-01T19:30:00Z"}"#)
        #expect((harEntries[1]["_stubkit"] as? [String: Any])?["answered"] as? Bool == false)

        engine.journal.clear()
        #expect(engine.journal.entries.isEmpty)
    }

    @Test("the journal stays whole under concurrent requests")
    func concurrentJournal() async throws {
        let (engine, session) = try engine()
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<60 { group.addTask { _ = await session.result("GET", "\(api)/restaurants/\(i)/menu") } }
        }
        let entries = engine.journal.entries
        #expect(entries.count == 60)
        #expect(Set(entries.map(\.id)).count == 60)
        #expect(Set(entries.compactMap { $0.request.pathSegments.dropFirst().first.map(String.init) }) == Set((0..<60).map(String.init)))
    }

    // MARK: Waiting and verification

    @Test("waiting returns when the request arrives, woken by it, not by a timer")
    func waitForRequest() async throws {
        let (engine, session) = try engine()
        let waited = Task { try await engine.journal.waitForRequests(matching: RequestPredicate("POST", path: "/payments"), count: 2, timeout: 30) }
        // The wait is registered before the requests arrive (a state with no event of its own).
        #expect(await Eventually.becomesTrue(within: 10) { engine.journal.waiterCount == 1 })
        _ = await session.result("POST", "\(api)/payments")
        #expect(engine.journal.waiterCount == 1, "one request of two must not end the wait")
        _ = await session.result("POST", "\(api)/payments")
        // The second entry woke the wait as it was recorded: no timer or poll is left to notice it.
        #expect(engine.journal.waiterCount == 0)
        try await waited.value
    }

    @Test("a wait that times out says what was seen instead")
    func waitTimesOut() async throws {
        let (engine, session) = try engine()
        _ = await session.result("GET", "\(api)/orders/1")
        do {
            try await engine.journal.waitForRequests(matching: RequestPredicate("DELETE", path: "/orders/{id}"), timeout: 0.2)
            Issue.record("did not time out")
        } catch {
            #expect(error.description.contains("expected 1 request matching DELETE /orders/{id} within 0.2 s"))
            #expect(error.description.contains("seen instead: GET https://api.takeaway.example/orders/1 → 404 (order_flow: no order yet)"))
        }
    }

    @Test("the blocking wait works from a background thread")
    func blockingWait() async throws {
        let (engine, session) = try engine()
        let waiter = Task.detached {
            try engine.journal.waitForRequestsBlocking(matching: RequestPredicate("GET", path: "/restaurants/{id}/menu"), timeout: 30)
        }
        _ = await session.result("GET", "\(api)/restaurants/3/menu")
        try await waiter.value
    }

    @Test("expecting no request: passes when none comes, fails at once when one does")
    func expectNoRequest() async throws {
        let (engine, session) = try engine()
        try await engine.journal.expectNoRequests(matching: RequestPredicate("POST", path: "/payments"), within: 0.1)
        let check = Task { try await engine.journal.expectNoRequests(matching: RequestPredicate("POST", path: "/payments"), within: 30) }
        _ = await session.result("POST", "\(api)/payments")
        let start = Date()
        await #expect(throws: VerificationError.self) { try await check.value }
        #expect(Date().timeIntervalSince(start) < 10)
    }

    @Test("verifying that every rule was used lists the ones that were not")
    func allRulesUsed() async throws {
        let (engine, session, _) = try engine(rules: #"[ { "name": "a", "path": "/a" }, { "name": "b", "path": "/b" } ]"#)
        _ = await session.result("GET", "\(api)/a")
        #expect(throws: VerificationError.self) { try engine.verifyAllRulesUsed() }
        #expect(engine.unusedRules().map(\.displayName) == ["b"])
        _ = await session.result("GET", "\(api)/b")
        try engine.verifyAllRulesUsed(in: "t")
    }
}
}
