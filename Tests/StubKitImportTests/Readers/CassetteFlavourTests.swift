#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// Cassette layouts the shared real-world folder has no file of, written here after each tool's
/// documented format, each replayed through the stand-in app.
@Suite("cassette flavours")
struct CassetteFlavourTests {
    struct Flavour: CustomTestStringConvertible, Sendable {
        var name: String
        var fileName: String
        var content: String
        var testDescription: String { name }
    }

    static let flavours: [Flavour] = [
        Flavour(name: "go-vcr (status text, code, list headers)", fileName: "fixture.yaml", content: """
            ---
            version: 2
            interactions:
            - id: 0
              request:
                proto: HTTP/1.1
                body: ""
                form: {}
                headers:
                  Accept:
                  - application/json
                url: https://api.example.com/users/1
                method: GET
              response:
                proto: HTTP/2.0
                body: '{"id":1,"name":"Ann"}'
                headers:
                  Content-Type:
                  - application/json
                status: 200 OK
                code: 200
                duration: 41.2ms
            """),
        Flavour(name: "OkReplay tape (!tape, recorded timestamp, !!binary body)", fileName: "tape.yaml", content: """
            !tape
            name: users
            interactions:
            - recorded: 2016-05-06T10:00:00.000Z
              request:
                method: GET
                uri: https://api.example.com/users/1
                headers:
                  Accept: application/json
              response:
                status: 200
                headers:
                  Content-Type: application/json
                body: !!binary |-
                  eyJpZCI6MSwibmFtZSI6IkFubiJ9
            """),
        Flavour(name: "Betamax (http_interactions, base64_string, response url)", fileName: "cassette.json", content: """
            {"http_interactions": [{"recorded_at": "2013-08-19T00:28:10",
              "request": {"body": {"encoding": "utf-8", "string": ""}, "headers": {"Accept": ["*/*"]}, "method": "GET", "uri": "https://api.example.com/users/1"},
              "response": {"body": {"encoding": "utf-8", "base64_string": "eyJpZCI6MSwibmFtZSI6IkFubiJ9"},
                           "headers": {"Content-Type": ["application/json"]}, "status": {"code": 200, "message": "OK"}, "url": "https://api.example.com/users/1"}}],
             "recorded_with": "betamax/0.8.1"}
            """),
    ]

    @Test("imports with nothing reported and replays the recorded body", arguments: flavours)
    func replays(_ flavour: Flavour) throws {
        let folder = try TemporaryFolder()
        let file = try folder.file(flavour.fileName, data: Data(flavour.content.utf8))
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([file], to: bundle)
        #expect(report.exitCode == 0, "\(report.notes)")
        #expect(report.files.first?.format == .vcr)
        try Replay.check([ExpectedExchange(source: flavour.name, method: "GET", url: "https://api.example.com/users/1", status: 200,
                                           responseBody: Data(#"{"id":1,"name":"Ann"}"#.utf8), contentType: "application/json")], bundle: bundle)
    }
}
#endif
