#if Tools
import Foundation
import StubKit
import StubKitTestSupport
import Testing

/// `stublint traffic`: recorded traffic (live journal, HAR, recorded bundle) checked against the
/// takeaway spec with its requests' side (`traffic/takeaway-traffic.yaml`), through the real binary.
struct TrafficCheckTests {
    static let folder = PackagePaths.fixtures.appendingPathComponent("openapi/traffic")
    static let spec = "Tests/Fixtures/openapi/traffic/takeaway-traffic.yaml"
    static let inputs = ["app.jsonl", "browser.har", "stubkit-export.har", "recorded"].map { "Tests/Fixtures/openapi/traffic/\($0)" }
    static let api = "https://api.takeaway.example/v1"

    @Test("each format prints its golden output, and findings exit 1", arguments: ["text", "json", "github", "junit"])
    func golden(_ format: String) throws {
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec] + Self.inputs + ["--format", format])
        try GoldenFile.expect(out.stdout, matches: Self.folder.appendingPathComponent("stublint-traffic.\(format == "text" ? "txt" : format == "junit" ? "xml" : format == "json" ? "json" : "github.txt")"))
        #expect(out.status == 1, "\(out.stderr)")
        #expect(out.stderr.isEmpty)
    }

    @Test("each finding names the input, the entry, a JSON pointer into the body and the spec's line")
    func findings() throws {
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec] + Self.inputs).stdout
        let lines = out.split(separator: "\n").map(String.init)
        func finding(_ start: String) -> (String, String)? {
            guard let i = lines.firstIndex(where: { $0.hasPrefix(start) }), i + 1 < lines.count else { return nil }
            return (lines[i], lines[i + 1])
        }
        // A string where the API wants an integer, and a missing required field, with pointers.
        let body = try #require(finding("Tests/Fixtures/openapi/traffic/app.jsonl:4:1: error: #4 POST \(Self.api)/orders: the request body does not fit the schema at /restaurantId"))
        #expect(body.0.hasSuffix("expected integer, got string [SK212]"))
        #expect(body.1.hasPrefix("Tests/Fixtures/openapi/traffic/takeaway-traffic.yaml:81:15: note: paths./orders.post.requestBody.content.application/json.schema"))
        #expect(out.contains("app.jsonl:4:1: error: #4 POST \(Self.api)/orders: the request body does not fit the schema at /items/0: missing required property 'quantity' [SK212]"))
        #expect(out.contains("app.jsonl:4:1: error: #4 POST \(Self.api)/orders: required header parameter 'Idempotency-Key' is missing [SK211]"))
        // An endpoint that does not exist, with the spec's nearest path.
        #expect(out.contains("app.jsonl:5:1: error: #5 GET \(Self.api)/restaurant: no path of the OpenAPI document matches /v1/restaurant under /v1; did you mean '/restaurants'? [SK210]"))
        // Bad query values: an integer's text, an array's items from repeated names.
        #expect(out.contains("#2 GET \(Self.api)/restaurants?limit=zero&cuisine=burger: query parameter 'limit' is 'zero', which does not fit its schema: expected integer, got string [SK211]"))
        #expect(out.contains("query parameter 'cuisine' is 'burger', which does not fit its schema: /0: expected one of \"pizza\", \"sushi\", \"thai\", got \"burger\" [SK211]"))
        // Conforming requests give nothing.
        #expect(!out.contains("app.jsonl:1:1:"))
        #expect(!out.contains("app.jsonl:3:1:"))
        // The backend's undocumented status, from a browser's HAR and from StubKit's pass-through; a stub's own 500 is not the backend's.
        #expect(out.contains("browser.har:50:7: error: log.entries[1]: #2 GET \(Self.api)/restaurants/7: the backend answered 500, which GET /restaurants/{id} does not document (documented: 200, 404)"))
        #expect(out.contains("stubkit-export.har:55:7: error: log.entries[1]: #2 GET \(Self.api)/restaurants/8: the backend answered 503"))
        #expect(!out.contains("stubkit-export.har:10:7"), "a stubbed answer was checked as the backend's")
        // A recorded bundle's real response, with the pointer into its response file's value.
        #expect(out.contains("recorded/stubsRules.json:5:5: error: rules[0]: #1 GET \(Self.api)/restaurants?limit=5: the 200 response body does not fit the schema at /restaurants/1/deliveryMinutes: expected integer, got string [SK214]"))
        // A cut-off body is a note, never a finding.
        #expect(out.contains("app.jsonl:8:1: note: #8 POST \(Self.api)/orders: the request body was cut off when it was recorded (41 bytes kept); not checked against the schema [SK215]"))
    }

    @Test("the same traffic, really sent by stubdemo, gives the same findings from its live journal and its HAR export")
    func genuineTraffic() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-traffic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("app.jsonl"), har = dir.appendingPathComponent("app.har")
        let app = try ChildProcess.run("stubdemo", arguments: [
            "STUB_API_CALLS_clean", "STUB_KILL_NETWORK",
            "GET", "\(Self.api)/restaurants?limit=5&cuisine=pizza&cuisine=sushi",
            "GET", "\(Self.api)/restaurants?limit=zero&cuisine=burger",
            "POST", "\(Self.api)/orders", "--header", "Idempotency-Key: k1", "--header", "Content-Type: application/json",
            "--data", #"{"restaurantId":42,"items":[{"name":"Margherita","quantity":1}]}"#,
            "POST", "\(Self.api)/orders", "--header", "Content-Type: application/json", "--data", #"{"restaurantId":"42","items":[{"name":"Margherita"}]}"#,
            "GET", "\(Self.api)/restaurant",
            "GET", "\(Self.api)/restaurants/pizza-roma",
            "POST", "\(Self.api)/orders", "--header", "Idempotency-Key: k2",
        ], environment: ["STUB_BUNDLES_PATH": PackagePaths.fixtures.appendingPathComponent("openapi/bundles").path,
                         "STUB_JOURNAL_LIVE": journal.path, "STUB_JOURNAL_HAR": har.path])
        #expect(app.status == 0, "\(app.stderr)")
        let fromJournal = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, journal.path])
        let fromHAR = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, har.path])
        #expect(fromJournal.status == 1 && fromHAR.status == 1, "\(fromJournal.stderr)\(fromHAR.stderr)")
        // Each input's findings without its location: "#N METHOD URL: message [code]".
        func findings(_ text: String) -> [String] {
            text.split(separator: "\n").compactMap { line in line.firstRange(of: ": #").map { String(line[line.index($0.lowerBound, offsetBy: 2)...]) } }
        }
        let expected = try String(contentsOf: Self.folder.appendingPathComponent("stublint-traffic.txt"), encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("Tests/Fixtures/openapi/traffic/app.jsonl") && $0.contains(": error: #") }
            .joined(separator: "\n")
        #expect(findings(fromJournal.stdout) == findings(fromHAR.stdout))
        #expect(findings(fromJournal.stdout) == findings(expected), "\(fromJournal.stdout)")
        #expect(findings(fromJournal.stdout).count == 8)
    }
}
#endif
