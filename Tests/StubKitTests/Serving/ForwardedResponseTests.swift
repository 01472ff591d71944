import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The forwarded response's decisions, shared by the in-process relay and the local server, with no
/// network: which headers the client gets, what the journal keeps, what the recording writes.
struct ForwardedResponseTests {
    struct HeaderCase: Sendable, CustomTestStringConvertible {
        var name: String
        var upstream: [String: String]
        var framesItself: Bool
        var expected: [String: String]
        var testDescription: String { name }
    }

    static let headerCases: [HeaderCase] = [
        HeaderCase(name: "a decoded body loses its encoding and encoded length (in process)",
                   upstream: ["Content-Encoding": "gzip", "Content-Length": "20", "Content-Type": "text/plain"], framesItself: false,
                   expected: ["Content-Type": "text/plain"]),
        HeaderCase(name: "a decoded body loses its encoding and encoded length (server), whatever the case",
                   upstream: ["content-encoding": "br", "CONTENT-LENGTH": "20", "ETag": "\"a\""], framesItself: true,
                   expected: ["ETag": "\"a\""]),
        HeaderCase(name: "a plain body keeps its length everywhere",
                   upstream: ["Content-Length": "5", "Content-Type": "text/plain"], framesItself: true,
                   expected: ["Content-Length": "5", "Content-Type": "text/plain"]),
        HeaderCase(name: "the server drops the upstream's hop-by-hop headers",
                   upstream: ["Connection": "keep-alive", "Keep-Alive": "timeout=5", "Transfer-Encoding": "chunked", "Trailer": "x",
                              "Upgrade": "h2c", "Location": "https://api.example.test/next"], framesItself: true,
                   expected: ["Location": "https://api.example.test/next"]),
        HeaderCase(name: "in process the loading system frames the message: hop-by-hop headers stay as the app would see them",
                   upstream: ["Connection": "keep-alive", "Transfer-Encoding": "chunked"], framesItself: false,
                   expected: ["Connection": "keep-alive", "Transfer-Encoding": "chunked"]),
    ]

    @Test("which upstream headers the client gets", arguments: headerCases)
    func headers(_ c: HeaderCase) {
        #expect(ForwardedResponse.relayedHeaders(c.upstream, framesItself: c.framesItself) == c.expected)
        var response = ForwardedResponse(request: Self.request, recorder: nil, keepsAtMost: 10)
        let relayed = response.receive(status: 201, upstream: c.upstream, framesItself: c.framesItself)
        #expect(relayed == c.expected)
        #expect(response.status == 201 && response.headers == c.expected)
    }

    static let request = StubRequest(url: URL(string: "https://api.example.test/items")!)

    @Test("the journal keeps the body's first bytes up to its limit and the whole length; past it, the entry is truncated",
          arguments: [(chunks: [3, 4], limit: 10), (chunks: [6, 4], limit: 10), (chunks: [6, 5], limit: 10), (chunks: [12, 3], limit: 10), (chunks: [0], limit: 0)])
    func kept(chunks: [Int], limit: Int) {
        var response = ForwardedResponse(request: Self.request, recorder: nil, keepsAtMost: limit)
        var whole = Data()
        for (index, size) in chunks.enumerated() {
            let chunk = Data(repeating: UInt8(index + 65), count: size)
            whole.append(chunk)
            response.receive(chunk, keepingOnFailure: false)
        }
        #expect(response.count == whole.count)
        #expect(response.kept == whole.prefix(limit))
        #expect(response.truncated == (whole.count > limit))
    }

    @Test("a completed exchange is recorded with the relayed headers and the whole body, and the journal names the file")
    func recorded() throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url))
        var response = ForwardedResponse(request: Self.request, recorder: recorder, keepsAtMost: 2)
        _ = response.receive(status: 200, upstream: ["Content-Type": "application/json", "Content-Encoding": "gzip"], framesItself: false)
        response.receive(Data(#"{"a":"#.utf8), keepingOnFailure: false)
        response.receive(Data("1}".utf8), keepingOnFailure: false)
        let (recordedAs, failure) = response.finishRecording()
        #expect(failure == nil)
        let file = try #require(recordedAs)
        #expect(file.hasSuffix(".json"), "\(file)")
        let written = try Data(contentsOf: folder.url.appendingPathComponent("rec").appendingPathComponent(file))
        #expect(String(decoding: written, as: UTF8.self) == #"{"a":1}"#)
        #expect(recorder.summary.recorded == 1)
    }

    @Test("with no temporary file for the body, the client still got it but nothing is recorded and the journal says why")
    func noCapture() throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url), makeCapture: { nil })
        var response = ForwardedResponse(request: Self.request, recorder: recorder, keepsAtMost: 100)
        _ = response.receive(status: 200, upstream: [:], framesItself: true)
        response.receive(Data("body".utf8), keepingOnFailure: false)
        let (recordedAs, failure) = response.finishRecording()
        #expect(recordedAs == nil)
        #expect(failure?.contains("no temporary file") == true, "\(failure ?? "nil")")
        #expect(recorder.summary.recorded == 0 && recorder.summary.failed == 1)
    }

    @Test("a failed exchange is counted as a recording failure and never written, and reaches the client as a URLError")
    func failed() throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url))
        var response = ForwardedResponse(request: Self.request, recorder: recorder, keepsAtMost: 100)
        _ = response.receive(status: 200, upstream: [:], framesItself: true)
        response.receive(Data("half".utf8), keepingOnFailure: false)
        struct Broken: LocalizedError { var errorDescription: String? { "the line broke" } }
        let error = ForwardedResponse.urlError(Broken())
        #expect(error.code == .unknown && error.localizedDescription == "the line broke")
        #expect(ForwardedResponse.urlError(URLError(.timedOut)).code == .timedOut)
        response.fail(error)
        #expect(response.capture == nil)
        #expect(recorder.summary.failed == 1 && recorder.summary.recorded == 0)
    }
}
