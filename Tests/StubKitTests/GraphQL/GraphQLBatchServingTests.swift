import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// GraphQL batches (a JSON array of operations in one body) through a real URLSession: each operation
/// answered by its own rule, in order, in one response and one journal entry.
struct GraphQLBatchServingTests {
    typealias F = GraphQLBatchFixture
    static let url = "https://api.takeaway.example/graphql"
    let folder: TemporaryFolder
    let engine: StubEngine
    let session: URLSession

    init() throws {
        folder = try TemporaryFolder()
        engine = StubEngine(killSwitch: true)
        try folder.activate(engine, bundle: "takeaway", rules: F.rules)
        session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
    }

    func post(_ body: String, stream: Bool = false, to url: String = Self.url) async -> TaskResult {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        if stream { request.httpBodyStream = InputStream(data: Data(body.utf8)) } else { request.httpBody = Data(body.utf8) }
        return await session.result(for: request)
    }

    @Test("a batch of three operations is answered in order by each one's rule, in one journal entry naming them")
    func threeOperations() async throws {
        let result = await post(F.batch(F.operation("RestaurantList"), F.operation("GetMenu", ["restaurantId": "r1"]),
                                        F.operation("PlaceOrder", ["orderId": "o-7"], type: "mutation")))
        #expect(result.status == 200, "\(result.error?.localizedDescription ?? "")")
        #expect(result.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(F.parts(result.data) == [
            #"{"data":{"restaurants":[{"id":"r1"}]}}"#, #"{"data":{"restaurant":{"name":"Pizza Palace"}}}"#,
            #"{"data":{"placeOrder":{"id":"o-7"}}}"#,
        ], "\(result.text ?? "")")
        let entries = engine.journal.entries
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.rule?.name == "GraphQL batch: RestaurantList (restaurants), GetMenu (menu of Pizza Palace), PlaceOrder (order placed)")
        #expect(entry.bundle == "takeaway")
        #expect(entry.status == 200)
    }

    @Test("a sequence used twice in one batch gives its first then its second response, and the next request its third")
    func sequenceTwiceInOneBatch() async throws {
        let result = await post(F.batch(F.operation("TrackOrder"), F.operation("TrackOrder")))
        #expect(F.parts(result.data) == [#"{"step":1}"#, #"{"step":2}"#], "\(result.text ?? "")")
        let next = await post(F.operation("TrackOrder"))
        #expect(next.json?["step"] as? Int == 3)
    }

    @Test("the scenario state set by one operation is seen by the next one of the same batch")
    func scenarioMovedWithinTheBatch() async throws {
        let result = await post(F.batch(F.operation("OrderStatus"), F.operation("PlaceOrder", ["orderId": "o-1"], type: "mutation"),
                                        F.operation("OrderStatus")))
        #expect(F.parts(result.data) == [
            #"{"data":{"order":null}}"#, #"{"data":{"placeOrder":{"id":"o-1"}}}"#, #"{"data":{"order":{"status":"PLACED"}}}"#,
        ], "\(result.text ?? "")")
        #expect(engine.scenarioState("order") == "placed")
    }

    @Test("a template reads each operation's own variables and name")
    func templatePerOperation() async throws {
        let result = await post(F.batch(F.operation("Echo", ["text": "first"]), F.operation("Echo", ["text": "second"])))
        #expect(F.parts(result.data) == [
            #"{"data":{"echo":"first","operation":"Echo"}}"#, #"{"data":{"echo":"second","operation":"Echo"}}"#,
        ], "\(result.text ?? "")")
    }

    @Test("a batch sent as a body stream (as Apple's URLSession sends it) is read and answered per operation")
    func streamedBatch() async throws {
        // A body longer than the journal keeps stays in its stream until a rule needs it.
        engine.journal.limits = StubJournal.Limits(maximumBodySize: 8)
        let result = await post(F.batch(F.operation("Echo", ["text": "streamed"]), F.operation("RestaurantList")), stream: true)
        #expect(F.parts(result.data) == [
            #"{"data":{"echo":"streamed","operation":"Echo"}}"#, #"{"data":{"restaurants":[{"id":"r1"}]}}"#,
        ], "\(result.text ?? "")")
        // One operation alone, streamed: its own rule, not the first rule on the path.
        let single = await post(F.operation("Echo", ["text": "alone"]), stream: true)
        #expect(single.json?["data"] as? [String: String] == ["echo": "alone", "operation": "Echo"], "\(single.text ?? "")")
    }

    @Test("an operation no rule answers: with the kill switch on the whole batch is refused, naming it and its near misses, and nothing is used up")
    func unansweredOperationRefused() async throws {
        let result = await post(F.batch(F.operation("TrackOrder"), F.operation("GetMenuu", ["restaurantId": "r1"])))
        #expect(result.error?.code == .notConnectedToInternet)
        let message = result.error?.localizedDescription ?? ""
        #expect(message.contains("no stub answers 1 of the 2 operations of the GraphQL batch POST \(Self.url)"), "\(message)")
        #expect(message.contains("No rule answers operation 2 (query GetMenuu); closest rules: takeaway: menu of Pizza Palace"), "\(message)")
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.rule == nil)
        #expect(entry.nearMisses.first?.rule.name == "menu of Pizza Palace")
        // The batch was not answered, so the sequence did not move.
        #expect(await post(F.operation("TrackOrder")).json?["step"] as? Int == 1)
    }

    @Test("a rule that answers the whole array wins over answering it per operation")
    func wholeBatchRule() async throws {
        let result = await post(F.batch(#"{"query":"query Startup { a }"}"#, #"{"query":"query Promotions { b }"}"#))
        #expect(F.parts(result.data) == [#"{"data":{"whole":true}}"#], "\(result.text ?? "")")
        #expect(engine.journal.entries.last?.rule?.name == "the app's start-up batch")
    }

    @Test("answers a batch cannot carry: a non-JSON 500 becomes an errors entry; a simulated network error fails the request")
    func partsABatchCannotCarry() async throws {
        let result = await post(F.batch(F.operation("RestaurantList"), F.operation("Broken")))
        #expect(result.status == 200)
        let parts = try #require(F.parts(result.data), "\(result.text ?? "")")
        #expect(parts.count == 2)
        #expect(parts.last?.hasPrefix(#"{"errors":[{"message":"StubKit: rule broken in takeaway"#) == true, "\(parts)")
        #expect(parts.last?.contains("answers operation 2 (query Broken) with status 500") == true, "\(parts)")

        let failed = await post(F.batch(F.operation("RestaurantList"), F.operation("Offline")))
        #expect(failed.error?.code == .networkConnectionLost, "\(failed.text ?? "")")
    }

    @Test("the batch answer waits for the longest delay of its operations")
    func longestDelay() throws {
        let request = StubRequest(method: "POST", url: URL(string: Self.url)!, headers: ["Content-Type": "application/json"],
                                  body: Data(F.batch(F.operation("RestaurantList"), F.operation("GetMenu", ["restaurantId": "r1"])).utf8))
        guard case .answer(let match) = engine.decision(for: request) else {
            Issue.record("the batch was not answered")
            return
        }
        #expect(match.delay == 0.3)
    }
}

/// Operations no rule answers, with the kill switch off: the batch goes to the network as it was sent.
@Suite(.timeLimit(.minutes(1)))
struct GraphQLBatchPassThroughTests {
    @Test("an operation no rule answers sends the whole batch, unchanged, to the real server; nothing is used up")
    func passedThroughWhole() async throws {
        let server = try LoopbackServer(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"[{"real":1},{"real":2}]"#.utf8))
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let engine = try folder.activate(StubEngine(killSwitch: false), bundle: "takeaway", rules: GraphQLBatchFixture.rules)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let body = GraphQLBatchFixture.batch(GraphQLBatchFixture.operation("TrackOrder"), GraphQLBatchFixture.operation("Unknown"))
        let url = server.baseURL.appendingPathComponent("graphql").absoluteString
        let result = await session.result("POST", url, body: body, headers: ["Content-Type": "application/json"])
        #expect(result.text == #"[{"real":1},{"real":2}]"#)
        #expect(server.requests.last?.body == Data(body.utf8))
        #expect(engine.journal.entries.last?.passedThrough == true)
        #expect(await session.result("POST", url, body: GraphQLBatchFixture.operation("TrackOrder")).json?["step"] as? Int == 1)
    }

    /// The fixture's rules (some stateful), and two stateless ones: `canInit` decides the two apart.
    static let ruleSets = [
        GraphQLBatchFixture.rules,
        """
        { "rules": [
          { "path": "/graphql", "graphql": { "operationName": "RestaurantList" }, "json": { "data": { "restaurants": [ { "id": "r1" } ] } } },
          { "path": "/graphql", "graphql": { "operationName": "Echo" }, "json": { "echo": 1 } }
        ] }
        """,
    ]

    @Test("with the kill switch off, canInit takes a batch whose operations rules answer (no rule answers it as a whole)",
          arguments: ruleSets.indices)
    func takenWithKillSwitchOff(ruleSet: Int) async throws {
        let server = try LoopbackServer(responseBody: "from the real network")
        defer { server.stop() }
        let folder = try TemporaryFolder()
        let engine = try folder.activate(StubEngine(killSwitch: false), bundle: "takeaway", rules: Self.ruleSets[ruleSet])
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let body = GraphQLBatchFixture.batch(GraphQLBatchFixture.operation("RestaurantList"), GraphQLBatchFixture.operation("Echo", ["text": "x"]))
        let result = await session.result("POST", server.baseURL.appendingPathComponent("graphql").absoluteString, body: body)
        #expect(GraphQLBatchFixture.parts(result.data)?.first == #"{"data":{"restaurants":[{"id":"r1"}]}}"#, "\(result.text ?? "")")
        #expect(server.connectionCount == 0)
    }
}
