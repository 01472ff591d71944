#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// WireMock's rules for which mapping answers, and the request keys it matches on, kept or reported.
@Suite("WireMock fidelity")
struct WireMockFidelityTests {
    @Test("the mapping loaded last answers, as in WireMock; an identical earlier one is reported as never served")
    func laterWins() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: [
            "a.json": #"{"mappings": [{"request": {"method": "GET", "url": "/same"}, "response": {"status": 200, "body": "first"}}, {"request": {"method": "GET", "urlPath": "/users/42"}, "response": {"status": 200, "body": "specific"}}]}"#,
            "b.json": #"{"mappings": [{"request": {"method": "GET", "url": "/same"}, "response": {"status": 200, "body": "second"}}, {"request": {"method": "GET", "urlPathPattern": "/users/.*"}, "response": {"status": 200, "body": "generic"}}]}"#,
        ])
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        try Replay.check([
            ExpectedExchange(source: "same", method: "GET", url: "http://localhost/same", status: 200, responseBody: Data("second".utf8)),
            ExpectedExchange(source: "42", method: "GET", url: "http://localhost/users/42", status: 200, responseBody: Data("generic".utf8)),
        ], bundle: bundle)
        let never = report.notes.filter { $0.message.contains("never served") }
        #expect(never.count == 1 && never.first?.source.contains("a.json") == true, "\(report.notes)")
    }

    @Test("scheme, port and pathParameters are carried over; clientIp, customMatcher, a second body and object headers are reported")
    func requestKeys() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["keys.json": #"""
            {"mappings": [
              {"request": {"method": "GET", "urlPath": "/p", "scheme": "https", "port": 8443}, "response": {"status": 200, "body": "tls"}},
              {"request": {"method": "GET", "urlPathTemplate": "/users/{id}/x", "pathParameters": {"id": {"equalTo": "7"}}}, "response": {"status": 200, "body": "seven"}},
              {"request": {"method": "GET", "url": "/ip", "clientIp": "10.0.0.1", "customMatcher": {"name": "m"}},
               "response": {"status": 200, "body": "inline", "bodyFileName": "other.txt", "headers": {"X-Obj": {"a": 1}, "X-Ok": "y"}}}
            ]}
            """#])
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        let rules = try String(contentsOf: bundle.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        #expect(rules.contains(#""scheme": "https""#) && rules.contains(":8443"), "\(rules)")
        #expect(rules.contains(#""path": "/users/7/x""#), "\(rules)")
        try Replay.check([
            ExpectedExchange(source: "tls", method: "GET", url: "https://localhost:8443/p", status: 200, responseBody: Data("tls".utf8)),
            ExpectedExchange(source: "seven", method: "GET", url: "http://localhost/users/7/x", status: 200, responseBody: Data("seven".utf8)),
        ], bundle: bundle)
        let messages = report.notes.map(\.message)
        for key in ["clientIp", "customMatcher", "X-Obj", "bodyFileName"] {
            #expect(messages.contains { $0.contains(key) }, "\(key) not reported: \(messages)")
        }
        #expect(report.exitCode == 1)
    }
}
#endif
