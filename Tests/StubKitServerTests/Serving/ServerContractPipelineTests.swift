#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The contract check's hop off the event loop and back, in process (so the thread sanitizer sees it):
/// pipelined requests on one connection, some refused and some answered, come back whole and in order,
/// with each finding journalled against its own request.
@Suite("Local server: the contract check on one connection", .timeLimit(.minutes(2)))
struct ServerContractPipelineTests {
    static let api = """
    { "host": "api.shop.example", "rules": [
      { "name": "item", "path": "/items/{id}", "template": true, "json": { "item": "{{path.id}}" } },
      { "name": "count", "path": "/count", "responses": [ { "json": { "n": 1 } }, { "json": { "n": 2 } } ] }
    ] }
    """

    static func get(_ path: String, close: Bool = false) -> String {
        "GET /api.shop.example\(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(close ? "Connection: close\r\n" : "")\r\n"
    }

    @Test("pipelined requests: the refused ones get 400, the others their stubs, in order; no refused request moves a sequence")
    func pipelinedRefusalsInOrder() async throws {
        let checked = Locked(0)
        let server = try await ServerFixture(bundles: ["api": ["stubsRules.json": Self.api]], active: ["api"]) { configuration in
            configuration.contractCheck = ServerContractCheck(checksRequests: true, checksResponses: false, rejectsInvalidRequests: true, check: { request, _, _ in
                checked.withLock { $0 += 1 }
                guard request.url.query?.contains("bad") == true else { return [] }
                return [JournalContractFinding(code: "SK211", severity: .error, subject: .request, message: "query parameter 'q' is bad", parameter: "q")]
            }, report: { _ in })
        }
        let paths = (0..<24).map { i in i % 3 == 1 ? "/items/\(i)?q=bad" : i % 6 == 0 ? "/count?q=ok" : "/items/\(i)" }
        let connection = try RawConnection(port: server.port)
        try connection.send(paths.enumerated().map { Self.get($1, close: $0 == paths.count - 1) }.joined())
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
        try #require(answers.count == paths.count, "\(text)")
        var counts: [Int] = []
        for (path, answer) in zip(paths, answers) {
            if path.contains("bad") {
                #expect(answer.hasPrefix("400 "), "\(path): \(answer)")
                #expect(answer.contains("query parameter 'q' is bad"), "\(path): \(answer)")
            } else if path.hasPrefix("/count") {
                #expect(answer.hasPrefix("200 "), "\(path): \(answer)")
                if let n = answer.firstRange(of: #/"n":(\d+)/#).map({ Int(answer[$0].dropFirst(4)) ?? 0 }) { counts.append(n) }
            } else {
                #expect(answer.hasPrefix("200 ") && answer.contains(#""item":"\#(path.dropFirst(7))""#), "\(path): \(answer)")
            }
        }
        // The sequence moved once per answered /count: 1, 2, then its last answer again.
        #expect(counts == [1, 2, 2, 2], "\(counts)")
        #expect(checked.withLock { $0 } == paths.count)
        let journal = server.engine.journal.entries
        try #require(journal.count == paths.count)
        for (path, entry) in zip(paths, journal) {
            #expect(entry.request.url.absoluteString.hasSuffix(path), "\(path) journalled as \(entry.request.url)")
            #expect(entry.contractFindings.isEmpty == !path.contains("bad"), "\(path): \(entry.contractFindings)")
        }
        await server.stop()
    }
}
#endif
