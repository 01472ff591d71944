#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// GraphQL batches on the local server: answered per operation as in process, refused with the
/// report, or forwarded whole.
@Suite("Local server: GraphQL batches", .timeLimit(.minutes(2)))
struct ServerGraphQLBatchTests {
    typealias F = GraphQLBatchFixture
    /// The rules name no host: the server answers them at its own address.
    static let path = "/graphql"

    @Test("a batch is answered in order by each operation's rule, sequence and scenario included, in one journal entry")
    func answeredPerOperation() async throws {
        let server = try await ServerFixture(bundles: ["takeaway": ["stubsRules.json": F.rules]], active: ["takeaway"])
        let result = await server.get(Self.path, method: "POST",
                                      body: F.batch(F.operation("TrackOrder"), F.operation("PlaceOrder", ["orderId": "o-3"], type: "mutation"),
                                                    F.operation("OrderStatus"), F.operation("TrackOrder")),
                                      headers: ["Content-Type": "application/json"])
        #expect(result.status == 200)
        #expect(result.response?.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(F.parts(result.data) == [
            #"{"step":1}"#, #"{"data":{"placeOrder":{"id":"o-3"}}}"#, #"{"data":{"order":{"status":"PLACED"}}}"#, #"{"step":2}"#,
        ], "\(result.text ?? "")")
        let entry = try #require(server.engine.journal.entries.last)
        #expect(server.engine.journal.entries.count == 1)
        #expect(entry.rule?.name == "GraphQL batch: TrackOrder (tracking), PlaceOrder (order placed), OrderStatus (order status after), TrackOrder (tracking)")
        // A second, different batch is answered afresh (not a kept answer of the first).
        let second = await server.get(Self.path, method: "POST", body: F.batch(F.operation("TrackOrder")))
        #expect(F.parts(second.data) == [#"{"step":3}"#], "\(second.text ?? "")")
        await server.stop()
    }

    @Test("with the kill switch on, an operation no rule answers gets the 502 report naming it")
    func refusedWithReport() async throws {
        let server = try await ServerFixture(bundles: ["takeaway": ["stubsRules.json": F.rules]], active: ["takeaway"])
        let result = await server.get(Self.path, method: "POST", body: F.batch(F.operation("RestaurantList"), F.operation("Serch")))
        #expect(result.status == 502)
        #expect(result.response?.value(forHTTPHeaderField: "X-StubKit-Miss") == "no-rule")
        #expect(result.text?.contains("no stub answers 1 of the 2 operations") == true, "\(result.text ?? "")")
        #expect(result.text?.contains("No rule answers operation 2 (query Serch)") == true, "\(result.text ?? "")")
        await server.stop()
    }

    @Test("forwarding misses: a batch with an operation no rule answers goes to the real host whole")
    func forwardedWhole() async throws {
        let upstream = try LoopbackServer(status: 200, headers: ["Content-Type": "application/json"], body: Data(#"[{"real":true}]"#.utf8))
        defer { upstream.stop() }
        let authority = "127.0.0.1:\(upstream.port)"
        let server = try await ServerFixture(bundles: ["takeaway": ["stubsRules.json": F.rules]], active: ["takeaway"]) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        let body = F.batch(F.operation("RestaurantList"), F.operation("Unknown"))
        let result = await server.get("/\(authority)/graphql", method: "POST", body: body)
        #expect(result.text == #"[{"real":true}]"#)
        #expect(upstream.requests.last?.body == Data(body.utf8))
        await server.stop()
    }

    @Test("stubkit serve answers a batch sent by curl")
    func curlBatch() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("takeaway", ["stubsRules.json": F.rules])
        try withServer([folder.url.path, "--template", "takeaway"]) { server in
            let reply = try Curl.request("\(server.baseURL)\(Self.path)", [
                "--header", "Content-Type: application/json",
                "--data", F.batch(F.operation("Echo", ["text": "curl"]), F.operation("RestaurantList")),
            ])
            #expect(reply.status == 200, "\(reply)")
            #expect(F.parts(reply.body) == [
                #"{"data":{"echo":"curl","operation":"Echo"}}"#, #"{"data":{"restaurants":[{"id":"r1"}]}}"#,
            ], "\(reply)")
        }
    }
}
#endif
