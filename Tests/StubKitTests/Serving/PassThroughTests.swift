import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Request bodies that travel as a stream (as Apple's URLSession hands most of them over), and the
/// forwarder that sends a request to the network when no rule answers it after all.
@Suite(.serialized)
struct PassThroughTests {
    let server: LoopbackServer
    let folder: TemporaryFolder
    let engine: StubEngine
    /// Every byte value, so a relay that decodes or re-encodes text would show.
    static let realBody = Data((0..<512).map { UInt8(truncatingIfNeeded: $0 &* 37) })

    init() throws {
        server = try LoopbackServer(status: 207, headers: ["Content-Type": "application/octet-stream", "X-Real": "yes"], body: Self.realBody)
        folder = try TemporaryFolder()
        engine = StubEngine(killSwitch: false)
        try folder.activate(engine, bundle: "orders", rules: """
        { "host": "127.0.0.1", "rules": [
          { "name": "order for restaurant 2", "method": "POST", "path": "/orders",
            "requestBody": { "containsJSON": { "restaurantId": 2 } }, "status": 201, "body": "stubbed order" }
        ] }
        """)
    }

    func post(_ json: String, session: URLSession) async -> TaskResult {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("orders"))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBodyStream = InputStream(data: Data(json.utf8))
        return await session.result(for: request)
    }

    @Test("a requestBody rule answers a request whose body comes only as httpBodyStream (kill switch off)")
    func streamedBodyIsMatched() async throws {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await post(#"{"restaurantId": 2, "items": [1, 2]}"#, session: session)
        #expect(result.status == 201)
        #expect(result.text == "stubbed order")
        // Answered in-process: nothing reached the real server.
        #expect(server.connectionCount == 0)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.rule?.name == "order for restaurant 2")
        #expect(entry.request.body == Data(#"{"restaurantId": 2, "items": [1, 2]}"#.utf8))
    }

    @Test("canInit takes a stream-bodied request only when a rule would answer it apart from the body")
    func canInitIgnoresOnlyTheBody() {
        engine.register()
        defer { engine.unregister() }
        var request = URLRequest(url: server.baseURL.appendingPathComponent("orders"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data(#"{"restaurantId": 99}"#.utf8))
        #expect(StubURLProtocol.canInit(with: request))
        request.httpMethod = "PUT"
        #expect(!StubURLProtocol.canInit(with: request))
        // With the body in httpBody the body conditions decide at once.
        var plain = URLRequest(url: server.baseURL.appendingPathComponent("orders"))
        plain.httpMethod = "POST"
        plain.httpBody = Data(#"{"restaurantId": 99}"#.utf8)
        #expect(!StubURLProtocol.canInit(with: plain))
    }

    @Test("no rule matches once the body is read: the request is forwarded and the real response relayed byte for byte")
    func passThroughRelaysExactly() async throws {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let sent = #"{"restaurantId": 3, "note": "süß \"quoted\""}"#
        let result = await post(sent, session: session)
        #expect(result.error == nil)
        #expect(result.status == 207)
        #expect(result.response?.value(forHTTPHeaderField: "X-Real") == "yes")
        #expect(result.data == Self.realBody)
        // The server saw the app's method, headers and exact body bytes, once.
        #expect(server.connectionCount == 1)
        let received = try #require(server.requests.first)
        #expect(received.line == "POST /orders HTTP/1.1")
        #expect(received.headers["content-type"] == "application/json")
        #expect(received.body == Data(sent.utf8))
        // Journalled as a pass-through with the real response.
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.passedThrough)
        #expect(entry.rule == nil)
        #expect(entry.status == 207)
        #expect(entry.responseBody == Self.realBody)
        #expect(entry.summary.hasSuffix("(passed through)"))
    }

    @Test("a large pass-through reaches a completion handler whole, and a session delegate in order")
    func largePassThrough() async throws {
        var big = Data(count: 3 * 1024 * 1024 + 11)
        big.withUnsafeMutableBytes { for i in 0..<$0.count { $0[i] = UInt8(truncatingIfNeeded: i &* 131) } }
        let bigServer = try LoopbackServer(status: 200, headers: ["Content-Type": "application/octet-stream"], body: big)
        let engine = StubEngine()
        try folder.activate(engine, bundle: "big-orders", rules: """
        { "host": "127.0.0.1", "rules": [ { "method": "POST", "path": "/orders", "requestBody": { "equals": "never" }, "body": "stub" } ] }
        """)
        var request = URLRequest(url: bigServer.baseURL.appendingPathComponent("orders"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("no match".utf8))
        let whole = await URLSession(configuration: .stubbed(by: engine, base: .ephemeral)).result(for: request)
        #expect(whole.data?.count == big.count)
        #expect(whole.data == big)

        request.httpBodyStream = InputStream(data: Data("no match".utf8))
        let collector = CancellingDelegate { _, _ in false }
        let delegated = URLSession(configuration: .stubbed(by: engine, base: .ephemeral), delegate: collector, delegateQueue: nil)
        let error: (any Error)? = await withCheckedContinuation { continuation in
            collector.onComplete = { continuation.resume(returning: $0) }
            delegated.dataTask(with: request).resume()
        }
        #expect(error == nil)
        #expect(collector.data == big)
    }

    @Test("cancelling a pass-through whose server never answers: no crash, the task ends cancelled, journalled as a pass-through")
    func cancelPassThrough() async throws {
        let silent = try SilentServer()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "silent", rules: """
        { "host": "127.0.0.1", "rules": [ { "method": "POST", "path": "/orders", "requestBody": { "equals": "never" }, "body": "stub" } ] }
        """)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        var request = URLRequest(url: silent.baseURL.appendingPathComponent("orders"))
        request.httpMethod = "POST"
        request.httpBodyStream = InputStream(data: Data("no match".utf8))
        let result: URLError? = await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request) { _, _, error in continuation.resume(returning: error as? URLError) }
            // Cancel once the forwarded request has reached the server (its own event).
            silent.onConnection = { task.cancel() }
            task.resume()
        }
        #expect(result?.code == .cancelled)
        try await engine.journal.waitForRequests(matching: RequestPredicate("POST", path: "/orders"), timeout: 10)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.passedThrough)
        #expect(entry.error?.code == URLError.cancelled.rawValue)
    }

    @Test("with the kill switch on, the same unmatched request fails and nothing reaches the server")
    func killSwitchStillHolds() async throws {
        engine.setKillSwitch(true)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await post(#"{"restaurantId": 3}"#, session: session)
        #expect(result.error?.code == .notConnectedToInternet)
        #expect(result.error?.localizedDescription.contains("body") == true)
        #expect(server.connectionCount == 0)
    }

    @Test("a forwarded request that cannot connect fails with the network's error, journalled as a pass-through")
    func passThroughFailure() async throws {
        server.stop()
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await post(#"{"restaurantId": 3}"#, session: session)
        #expect(result.error?.code == .cannotConnectToHost, "\(String(describing: result.error))")
        #expect(result.status == nil)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.passedThrough)
        #expect(entry.error?.code == URLError.Code.cannotConnectToHost.rawValue, "\(String(describing: entry.error))")
    }
}
}
