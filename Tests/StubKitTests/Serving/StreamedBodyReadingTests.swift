import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// A request body that comes as `httpBodyStream` is read whole only when a rule looks at it, never
/// past the cap; otherwise only as far as the journal keeps it.
@Suite(.serialized)
struct StreamedBodyReadingTests {
    let folder: TemporaryFolder
    let engine: StubEngine

    init() throws {
        folder = try TemporaryFolder()
        engine = StubEngine(killSwitch: true)
        try folder.activate(engine, bundle: "uploads", rules: """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/photos", "status": 201, "body": "stored" },
          { "method": "POST", "path": "/orders", "requestBody": { "contains": "pizza" }, "status": 201, "body": "ordered" },
          { "method": "POST", "path": "/echo", "status": 200, "template": true, "body": "{{body.name}}" }
        ] }
        """)
    }

    func post(_ path: String, stream: InputStream, to engine: StubEngine? = nil) async -> TaskResult {
        let session = URLSession(configuration: .stubbed(by: engine ?? self.engine, base: .ephemeral))
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "https://upload.test\(path)")!)
        request.httpMethod = "POST"
        request.httpBodyStream = stream
        return await session.result(for: request)
    }

    @Test("a large streamed upload to a rule that ignores the body is read only as far as the journal keeps it")
    func bodyNobodyLooksAtIsReadForTheJournalOnly() async throws {
        let limit = engine.journal.limits.maximumBodySize
        let stream = CountingInputStream(length: 8 * 1024 * 1024)
        let result = await post("/photos", stream: stream)
        #expect(result.status == 201)
        #expect(result.text == "stored")
        #expect(stream.bytesRead == limit + 1, "\(stream.bytesRead) bytes of the body were read")
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.request.body?.count == limit)
        #expect(entry.requestBodyTruncated)
        // The whole size is not known without reading the whole stream (and no Content-Length says it).
        #expect(entry.requestBodySize == -1)
        #expect(JournalReport(engine: engine).html.contains("request body truncated: \(limit) bytes kept of an unknown size"))
    }

    @Test("a streamed body the rule ignores is journalled whole, and a wait for a body condition finds it")
    func ignoredBodyIsJournalled() async throws {
        let text = "photo of a pizza, 3 bytes"
        let result = await post("/photos", stream: InputStream(data: Data(text.utf8)))
        #expect(result.status == 201)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.request.body.map { String(decoding: $0, as: UTF8.self) } == text)
        #expect(!entry.requestBodyTruncated)
        #expect(entry.requestBodySize == text.utf8.count)
        var predicate = RequestPredicate("POST", path: "/photos")
        predicate.conditions.body = [.contains("pizza")]
        try await engine.journal.waitForRequests(matching: predicate, timeout: 5)
    }

    @Test("a journal that keeps no bodies reads none of a stream the rule ignores")
    func noJournalBodiesReadsNothing() async throws {
        engine.journal.limits = StubJournal.Limits(maximumBodySize: 0)
        let stream = CountingInputStream(length: 100_000)
        #expect(await post("/photos", stream: stream).status == 201)
        #expect(stream.bytesRead == 0, "\(stream.bytesRead) bytes of the body were read")
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.request.body?.isEmpty ?? true)
        #expect(entry.requestBodyTruncated)
    }

    @Test("a scenario moved by another request while the body is unread: the body conditions are decided on the body")
    func scenarioMovedWhileBodyUnread() async throws {
        // A journal limit shorter than the bodies, so the body is still partly in its stream when the
        // state moves (on the first read), as when another request moves it at that moment.
        let engine = StubEngine(killSwitch: true, journalLimits: StubJournal.Limits(maximumBodySize: 4))
        try folder.activate(engine, bundle: "checkout", rules: """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/pay", "scenario": "checkout", "whenState": "Started", "status": 409, "body": "not open" },
          { "method": "POST", "path": "/pay", "scenario": "checkout", "whenState": "open", "requestBody": { "contains": "pizza" }, "status": 201, "body": "paid" },
          { "method": "POST", "path": "/pay", "scenario": "checkout", "whenState": "open", "status": 400, "body": "nothing to pay for" },
          { "method": "POST", "path": "/open", "scenario": "checkout", "setState": "open", "status": 204 }
        ] }
        """)
        for (body, status) in [("one pizza please", 201), ("nothing at all", 400)] {
            engine.resetState()
            let stream = CountingInputStream(content: Data(body.utf8)) {
                _ = engine.decision(for: StubRequest(method: "POST", url: URL(string: "https://upload.test/open")!))
            }
            let result = await post("/pay", stream: stream, to: engine)
            #expect(engine.scenarioState("checkout") == "open")
            #expect(result.status == status, "\(body): \(result.text ?? "")")
        }
    }

    @Test("a streamed body is read when the rule has body conditions or a template reads it")
    func bodyARuleLooksAtIsRead() async throws {
        let order = InputStream(data: Data("one pizza please".utf8))
        #expect(await post("/orders", stream: order).text == "ordered")
        let echo = InputStream(data: Data(#"{"name": "Ada"}"#.utf8))
        #expect(await post("/echo", stream: echo).text == "Ada")
    }

    @Test("a streamed GraphQL body (as Apple platforms hand every body to a URL protocol) is read before a graphql rule or template decides")
    func graphQLBodyIsRead() async throws {
        // A journal that keeps 16 bytes of a body: the engine reads past them only for a rule that needs the body.
        let engine = StubEngine(killSwitch: true, journalLimits: StubJournal.Limits(maximumBodySize: 16))
        try folder.activate(engine, bundle: "graphql", rules: """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/graphql", "graphql": { "operationName": "GetMenu" }, "body": "menu" },
          { "method": "POST", "path": "/graphql", "body": "another operation" },
          { "method": "POST", "path": "/graphql-echo", "template": true, "body": "{{graphql.variables.id}}" }
        ] }
        """)
        func post(_ path: String, stream: InputStream) async -> TaskResult { await self.post(path, stream: stream, to: engine) }
        let menu = InputStream(data: Data(#"{"query": "query GetMenu { restaurant(id: 1) { id } }"}"#.utf8))
        #expect(await post("/graphql", stream: menu).text == "menu")
        let order = InputStream(data: Data(#"{"query": "mutation PlaceOrder { placeOrder { id } }"}"#.utf8))
        #expect(await post("/graphql", stream: order).text == "another operation")
        let echo = InputStream(data: Data(#"{"query": "query Q($id: ID) { a }", "variables": {"id": "r7"}}"#.utf8))
        #expect(await post("/graphql-echo", stream: echo).text == "r7")
    }

    /// Rules for a redirected upload: `/upload-<status>` answers `<status>` to `/stored`, where a POST
    /// is told apart by the end of its body and a GET answers on its own.
    func redirectEngine() throws -> StubEngine {
        // A journal limit far shorter than the body: the first hop reads only the journal's share.
        let engine = StubEngine(killSwitch: true, journalLimits: StubJournal.Limits(maximumBodySize: 16))
        try folder.activate(engine, bundle: "redirects", rules: """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/upload-307", "status": 307, "headers": { "Location": "/stored" } },
          { "method": "POST", "path": "/upload-308", "status": 308, "headers": { "Location": "/stored" } },
          { "method": "POST", "path": "/upload-302", "status": 302, "headers": { "Location": "/stored" } },
          { "method": "POST", "path": "/stored", "requestBody": { "contains": "END-OF-UPLOAD" }, "status": 201, "body": "stored whole" },
          { "method": "POST", "path": "/stored", "status": 400, "body": "body missing" },
          { "method": "GET", "path": "/stored", "status": 200, "body": "fetched" }
        ] }
        """)
        return engine
    }

    @Test("a 307 or 308 to a rule that ignores the body hands the next hop the whole streamed body", arguments: [307, 308])
    func keepingRedirectCarriesTheWholeStreamedBody(status: Int) async throws {
        let engine = try redirectEngine()
        let body = Data(String(repeating: "x", count: 100_000).utf8) + Data("END-OF-UPLOAD".utf8)
        let stream = CountingInputStream(content: body)
        let result = await post("/upload-\(status)", stream: stream, to: engine)
        #expect(result.status == 201, "\(result.text ?? "") \(result.error?.localizedDescription ?? "")")
        #expect(result.text == "stored whole")
        #expect(stream.bytesRead == body.count)
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.request.url.path == "/stored")
        #expect(entry.request.method == "POST")
        #expect(entry.requestBodySize == body.count)
    }

    @Test("a 307 after a streamed body over the cap fails with the clear error rather than losing the body")
    func keepingRedirectWithBodyOverTheCapFails() async throws {
        let engine = try redirectEngine()
        let stream = CountingInputStream(length: StubURLProtocol.maximumStreamedBodySize + 100_000)
        let result = await post("/upload-307", stream: stream, to: engine)
        #expect(result.error?.code == .dataLengthExceedsMaximum, "\(result.status.map(String.init) ?? "") \(result.text ?? "")")
        #expect(result.error?.localizedDescription.contains("longer than \(StubURLProtocol.maximumStreamedBodySize) bytes") == true,
                "\(result.error?.localizedDescription ?? "")")
        #expect(stream.bytesRead == StubURLProtocol.maximumStreamedBodySize + 1)
    }

    @Test("a 307 to a URL no rule answers forwards the whole streamed body to the network")
    func keepingRedirectForwardsTheWholeStreamedBody() async throws {
        let server = try LoopbackServer(responseBody: "the network")
        defer { server.stop() }
        let engine = StubEngine(killSwitch: false, journalLimits: StubJournal.Limits(maximumBodySize: 16))
        try folder.activate(engine, bundle: "forward", rules: """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/upload", "status": 307, "headers": { "Location": "\(server.baseURL.absoluteString)/landing" } }
        ] }
        """)
        let body = Data(String(repeating: "y", count: 50_000).utf8) + Data("END-OF-UPLOAD".utf8)
        let result = await post("/upload", stream: CountingInputStream(content: body), to: engine)
        #expect(result.text == "the network", "\(result.error?.localizedDescription ?? "")")
        let received = try #require(server.requests.first)
        #expect(received.line.hasPrefix("POST /landing "))
        #expect(received.body == body, "\(received.body.count) of \(body.count) bytes arrived")
    }

    @Test("a 302 after a streamed upload turns into a GET without a body, and reads no more of the stream")
    func seeOtherRedirectDropsTheStreamedBody() async throws {
        let engine = try redirectEngine()
        let stream = CountingInputStream(length: 100_000)
        let result = await post("/upload-302", stream: stream, to: engine)
        #expect(result.status == 200)
        #expect(result.text == "fetched")
        #expect(stream.bytesRead == 17, "\(stream.bytesRead) bytes of the body were read")
        let entry = try #require(engine.journal.entries.last)
        #expect(entry.request.method == "GET")
        #expect(entry.request.body?.isEmpty ?? true)
        #expect(entry.requestBodySize == 0)
        #expect(entry.request.headers["content-length"] == nil)
    }

    @Test("a streamed body over the cap fails the request with a clear error, after reading just past the cap")
    func bodyOverTheCapFails() async throws {
        let size = StubURLProtocol.maximumStreamedBodySize + 100_000
        let stream = CountingInputStream(length: size)
        let result = await post("/orders", stream: stream)
        #expect(result.error?.code == .dataLengthExceedsMaximum)
        #expect(result.error?.localizedDescription.contains("longer than \(StubURLProtocol.maximumStreamedBodySize) bytes") == true,
                "\(result.error?.localizedDescription ?? "")")
        #expect(stream.bytesRead == StubURLProtocol.maximumStreamedBodySize + 1)
    }
}
}
