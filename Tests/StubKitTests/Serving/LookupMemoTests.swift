import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// `canInit`'s lookup, kept for `startLoading` (LookupMemo): reused only for an equal request against
/// the same rules. These drive the engine's two halves directly, so the order of events is exact.
struct LookupMemoTests {
    static let rules = """
    [ { "method": "POST", "path": "/orders", "requestBody": { "equals": "a" }, "status": 201, "body": "for a" },
      { "method": "POST", "path": "/orders", "requestBody": { "equals": "b" }, "status": 202, "body": "for b" },
      { "method": "GET", "path": "/menu", "body": "first menu" } ]
    """

    func request(_ method: String, _ path: String, body: String? = nil) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://api.example.test\(path)")!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }

    /// What `startLoading` decides for a request `canInit` took.
    func started(_ request: URLRequest, by engine: StubEngine, sourceLocation: SourceLocation = #_sourceLocation) throws -> StubMatch? {
        let found = engine.lookups.take(LookupMemo.Key(request))
        let stubRequest = found?.request ?? StubRequest(request)
        guard case .answer(let match) = engine.decision(for: stubRequest, found: found) else { return nil }
        return match
    }

    @Test("the same URL with another body gets the rule for its own body, even when canInit saw the other one last")
    func otherBodyIsNotReused() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "orders", rules: Self.rules)
        let a = request("POST", "/orders", body: "a"), b = request("POST", "/orders", body: "b")
        #expect(engine.handles(a) && engine.handles(b))
        #expect(try started(a, by: engine)?.response.status == 201)
        #expect(try started(b, by: engine)?.response.status == 202)
        #expect(engine.lookups.count == 0)
    }

    @Test("rules activated between canInit and startLoading answer, not the ones canInit saw")
    func ruleChangeIsSeen() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "first", rules: Self.rules)
        let menu = request("GET", "/menu")
        #expect(engine.handles(menu))
        try folder.activate(engine, bundle: "second", rules: #"[ { "method": "GET", "path": "/menu", "body": "second menu" } ]"#)
        let match = try #require(try started(menu, by: engine))
        #expect(match.bundle == "second")
    }

    @Test("deactivating the rules frees them and the request bodies kept for them, even when no load took its lookup")
    func deactivationFreesKeptLookups() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "orders", rules: Self.rules)
        weak var oldIndex = engine.snapshot.index
        // canInit took these, but no load started (a task cancelled before it started, or canInit asked twice).
        #expect(engine.handles(request("POST", "/orders", body: "a")) && engine.handles(request("GET", "/menu")))
        engine.deactivate(template: "orders")
        #expect(engine.lookups.count == 0)
        #expect(oldIndex == nil, "the deactivated rules are still kept alive by canInit's lookups")
    }

    @Test("the same request taken twice starts twice with the right rule; lookups are used once and bounded")
    func sameRequestTwice() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "first", rules: Self.rules)
        let menu = request("GET", "/menu")
        #expect(engine.handles(menu) && engine.handles(menu))
        #expect(engine.lookups.count == 2)
        #expect(try started(menu, by: engine)?.bundle == "first")
        #expect(try started(menu, by: engine)?.bundle == "first")
        #expect(engine.lookups.count == 0)
        for _ in 0..<(LookupMemo.capacity + 5) { _ = engine.handles(menu) }
        #expect(engine.lookups.count == LookupMemo.capacity)
    }
}

extension URLProtocolSuites {
    /// The same, through a real URLSession: requests to one URL that differ only by body, all at once.
    @Suite struct LookupMemoSessionTests {
        @Test("concurrent requests to one URL with different bodies each get the rule for their body")
        func concurrentBodies() async throws {
            let folder = try TemporaryFolder()
            let engine = StubEngine()
            try folder.activate(engine, bundle: "orders", rules: LookupMemoTests.rules)
            let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
            let statuses = await withTaskGroup(of: (String, Int?).self) { group in
                for i in 0..<40 {
                    let body = i % 2 == 0 ? "a" : "b"
                    group.addTask { (body, await session.result("POST", "https://api.example.test/orders", body: body).status) }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 40)
            for (body, status) in statuses { #expect(status == (body == "a" ? 201 : 202), "body \(body)") }
            #expect(engine.lookups.count == 0, "startLoading did not use the lookups canInit kept")
        }

        // The lookup canInit kept skips capturing path parameters for rules whose response is not a
        // template; a templated one still gets them.
        @Test("path parameters reach a templated response served from canInit's lookup; other rules answer as written")
        func pathParametersFromKeptLookup() async throws {
            let folder = try TemporaryFolder()
            let engine = StubEngine()
            try folder.activate(engine, bundle: "orders", rules: #"""
            [ { "path": "/orders/{id}/items/{item}", "template": true, "body": "order {{path.id}} item {{path.item}}", "contentType": "text/plain" },
              { "path": "/orders/{id}", "body": "order {{path.id}} as written", "contentType": "text/plain" } ]
            """#)
            let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
            defer { session.finishTasksAndInvalidate() }
            #expect(await session.result("GET", "https://api.example.test/orders/42/items/7").text == "order 42 item 7")
            #expect(await session.result("GET", "https://api.example.test/orders/43").text == "order {{path.id}} as written")
            // The public matching API still captures them for every rule.
            #expect(engine.match(StubRequest(url: URL(string: "https://api.example.test/orders/43")!))?.parameters == ["id": "43"])
            #expect(engine.lookups.count == 0, "startLoading did not use the lookups canInit kept")
        }

        // Apple's loading system asks canInit with the body as `httpBody` and starts the load with it
        // moved into `httpBodyStream`; the lookup canInit kept must not stay behind holding the body.
        @Test("a body canInit saw whole but startLoading gets as a stream: the kept lookup is taken, the answer is right")
        func bodyMovedIntoStream() async throws {
            let folder = try TemporaryFolder()
            let engine = StubEngine()
            try folder.activate(engine, bundle: "orders", rules: LookupMemoTests.rules)
            let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
            defer { session.finishTasksAndInvalidate() }
            let whole = LookupMemoTests().request("POST", "/orders", body: "b")
            // The class the session's configuration holds: the one that names this engine.
            let protocolClass = StubURLProtocol.protocolClass(for: engine)
            #expect(protocolClass.canInit(with: whole))
            #expect(engine.lookups.count == 1)
            var streamed = whole
            streamed.httpBody = nil
            streamed.httpBodyStream = InputStream(data: Data("b".utf8))
            let client = RecordingProtocolClient()
            let instance = protocolClass.init(request: streamed, cachedResponse: nil, client: client)
            instance.startLoading()
            #expect(await Eventually.becomesTrue(within: 10) { client.calls.withLock { $0.contains("finish") } })
            #expect(engine.journal.entries.map(\.status) == [202])
            #expect(engine.lookups.count == 0, "canInit's lookup (and the body it holds) stayed in the memo")
        }
    }
}
