import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// A request body that comes as `httpBodyStream` is read only when a rule looks at it, and never
/// past the cap.
@Suite(.serialized)
struct StreamedBodyReadingTests {
    let folder: TemporaryFolder
    let engine: StubEngine

    init() throws {
        folder = try TemporaryFolder()
        let bundle = try folder.bundle("uploads", ["stubsRules.json": """
        { "host": "upload.test", "rules": [
          { "method": "POST", "path": "/photos", "status": 201, "body": "stored" },
          { "method": "POST", "path": "/orders", "requestBody": { "contains": "pizza" }, "status": 201, "body": "ordered" },
          { "method": "POST", "path": "/echo", "status": 200, "template": true, "body": "{{body.name}}" }
        ] }
        """])
        engine = StubEngine(killSwitch: true)
        try engine.activate(folder: bundle)
    }

    func post(_ path: String, stream: InputStream) async -> TaskResult {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: URL(string: "https://upload.test\(path)")!)
        request.httpMethod = "POST"
        request.httpBodyStream = stream
        return await session.result(for: request)
    }

    @Test("a large streamed upload to a rule that ignores the body is answered without reading the stream")
    func bodyNobodyLooksAtIsNotRead() async throws {
        let stream = CountingInputStream(length: 8 * 1024 * 1024)
        let result = await post("/photos", stream: stream)
        #expect(result.status == 201)
        #expect(result.text == "stored")
        #expect(stream.bytesRead == 0, "\(stream.bytesRead) bytes of the body were read")
    }

    @Test("a streamed body is read when the rule has body conditions or a template reads it")
    func bodyARuleLooksAtIsRead() async throws {
        let order = InputStream(data: Data("one pizza please".utf8))
        #expect(await post("/orders", stream: order).text == "ordered")
        let echo = InputStream(data: Data(#"{"name": "Ada"}"#.utf8))
        #expect(await post("/echo", stream: echo).text == "Ada")
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
