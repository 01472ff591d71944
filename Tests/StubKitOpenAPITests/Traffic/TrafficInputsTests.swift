#if Tools
import Foundation
import StubKit
import StubKitTestSupport
import Testing

/// `stublint traffic` on what real inputs hold and real apps send: a journal whose first line lists
/// every rule, recordings that keep only some of a request, bodies a journal or HAR did not keep,
/// traffic to other hosts, preflights and HEADs, secrets, and other tools' `_stubkit` marks.
struct TrafficInputsTests {
    static let spec = TrafficCheckTests.spec
    static let api = TrafficCheckTests.api

    /// A spec with a secret query parameter and a required header, for inputs that do not keep them.
    static let secretsSpec = """
    openapi: 3.0.3
    info: { title: Secrets, version: 1.0.0 }
    servers:
      - url: https://api.secrets.example
    paths:
      /search:
        get:
          parameters:
            - { name: api_key, in: query, required: true, schema: { type: string, pattern: '^k-[0-9]+$' } }
            - { name: q, in: query, required: true, schema: { type: string, maxLength: 10 } }
            - { name: X-Client, in: header, required: true, schema: { type: string } }
          responses:
            '200': { description: ok, content: { application/json: { schema: { type: object } } } }
      /menu:
        get:
          parameters:
            - { name: dish, in: query, required: true, schema: { type: string, enum: [pizza margherita] } }
            - { name: region, in: cookie, required: true, schema: { type: string, enum: [eu, us] } }
          responses:
            '200': { description: ok }
      /login:
        post:
          requestBody:
            required: true
            content:
              application/json:
                schema:
                  type: object
                  properties:
                    user: { type: string }
                    password: { type: string, minLength: 20, pattern: '^[a-z]+$' }
          responses:
            '200': { description: ok }
    """

    /// Journal lines written as a live journal file.
    static func write(_ lines: [String], to name: String, in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent(name)
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        return file
    }

    /// A HAR document written as a file.
    static func write(_ har: [String: Any], to name: String, in dir: URL) throws -> URL {
        let file = dir.appendingPathComponent(name)
        try JSONSerialization.data(withJSONObject: har, options: [.prettyPrinted, .sortedKeys]).write(to: file)
        return file
    }

    static func run(_ arguments: [String], input: Data? = nil) throws -> ChildProcess.Output {
        try ChildProcess.run(executableURL: ChildProcess.executable("stublint"), arguments: ["traffic"] + arguments, input: input)
    }

    @Test("a live journal whose first line lists thousands of rules (far past 64 KB) is read as a journal, as stubdemo writes it")
    func journalWithLongRulesLine() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bundle = dir.appendingPathComponent("many")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let rules = (0..<3000).map { #"{ "method": "GET", "path": "/v1/restaurants/\#($0)", "name": "restaurant number \#($0) of the long list", "json": {} }"# }
        try Data(#"{ "host": "api.takeaway.example", "rules": [ \#(rules.joined(separator: ",\n")), { "method": "GET", "path": "/v1/restaurant", "json": {} } ] }"#.utf8)
            .write(to: bundle.appendingPathComponent("stubsRules.json"))
        let journal = dir.appendingPathComponent("app.jsonl")
        let app = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_many", "STUB_KILL_NETWORK", "GET", "\(Self.api)/restaurants/7", "GET", "\(Self.api)/restaurant"],
                                       environment: ["STUB_BUNDLES_PATH": dir.path, "STUB_JOURNAL_LIVE": journal.path])
        #expect(app.status == 0, "\(app.stderr)")
        let firstLine = try Data(contentsOf: journal).prefix { $0 != UInt8(ascii: "\n") }
        try #require(firstLine.count > 256 * 1024, "the journal's first line is \(firstLine.count) bytes; the test needs one past the reader's first chunk")
        #expect(String(decoding: firstLine.prefix(80), as: UTF8.self).contains(#""kind":"rules""#))
        let out = try Self.run(["--openapi", Self.spec, journal.path])
        #expect(out.status == 1, "\(out.stderr)")
        #expect(out.stdout.contains("\(journal.path):3:1: error: #2 GET \(Self.api)/restaurant: no path of the OpenAPI document matches"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("1 error, 0 warnings, 0 notes in 1 input (2 entries)\n"), "\(out.stdout)")
    }

    @Test("a recorded bundle is not faulted for headers it does not keep or secret query items it keeps as 'present'; what it does keep is checked")
    func recordedBundleKeepsOnlySome() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("spec.yaml")
        try Data(Self.secretsSpec.utf8).write(to: spec)
        let bundle = dir.appendingPathComponent("recorded")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        try Data("""
        { "recordedAt": "2026-11-27T08:00:00Z", "host": "api.secrets.example", "rules": [
          { "method": "GET", "path": "/search", "query": { "api_key": { "present": true }, "q": "pizza" }, "json": {} },
          { "method": "GET", "path": "/search", "query": { "api_key": { "present": true }, "q": "a query far too long" }, "json": {} }
        ] }
        """.utf8).write(to: bundle.appendingPathComponent("stubsRules.json"))
        let out = try Self.run(["--openapi", spec.path, bundle.path])
        #expect(out.status == 1, "\(out.stderr)")
        #expect(!out.stdout.contains("X-Client"), "a header the recording does not keep was reported: \(out.stdout)")
        #expect(!out.stdout.contains("api_key"), "a secret kept as 'present' was reported: \(out.stdout)")
        #expect(out.stdout.contains("query parameter 'q' is 'a query far too long', which does not fit its schema: expected at most 10 characters, got 20 [SK211]"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("1 error, 0 warnings, 0 notes in 1 input (2 entries)\n"), "\(out.stdout)")
    }

    @Test("a body the journal or HAR says was sent but did not keep is a note, not 'no body'; a HAR body kept as form params is read")
    func bodiesNotKept() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("app.jsonl")
        let line = #"{"v":1,"kind":"request","id":1,"method":"POST","url":"\#(Self.api)/orders","requestHeaders":{"Idempotency-Key":"k"},"requestBodySize":-1,"status":200}"#
        try Data((line + "\n").utf8).write(to: journal)
        func harEntry(_ request: [String: Any]) -> [String: Any] {
            ["startedDateTime": "2026-11-27T08:00:00Z", "time": 1, "request": request, "response": ["status": 0, "headers": [], "content": ["size": 0]]]
        }
        let orders = "\(Self.api)/orders"
        let har: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "test", "version": "1"], "entries": [
            harEntry(["method": "POST", "url": orders, "headers": [["name": "Idempotency-Key", "value": " k "]], "bodySize": 120]),
            harEntry(["method": "POST", "url": orders, "headers": [["name": "Idempotency-Key", "value": "k"]], "bodySize": -1]),
            harEntry(["method": "POST", "url": orders, "headers": [["name": "Idempotency-Key", "value": "k"]], "bodySize": 20,
                      "postData": ["mimeType": "application/x-www-form-urlencoded", "params": [["name": "restaurantId", "value": "42"]]]]),
        ]]]
        let harFile = try Self.write(har, to: "app.har", in: dir)
        let out = try Self.run(["--openapi", Self.spec, journal.path, harFile.path])
        #expect(!out.stdout.contains("the request has no body"), "a body not kept was read as none: \(out.stdout)")
        #expect(out.stdout.contains("\(journal.path):1:1: note: #1 POST \(orders): the input does not say what request body was sent"), "\(out.stdout)")
        #expect(out.stdout.components(separatedBy: "note: log.entries[").count - 1 == 2, "\(out.stdout)")
        #expect(out.stdout.contains("#3 POST \(orders): the request body is application/x-www-form-urlencoded, which POST /orders does not document"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("1 error, 0 warnings, 3 notes in 2 inputs (4 entries)\n"), "\(out.stdout)")
    }

    @Test("traffic to other hosts and CORS preflights are notes; HEAD is checked as the GET it stands for")
    func otherHostsPreflightAndHead() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let journal = dir.appendingPathComponent("app.jsonl")
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"https://analytics.other.example/collect?e=open","status":204}"#,
            #"{"v":1,"kind":"request","id":2,"method":"OPTIONS","url":"\#(Self.api)/orders","requestHeaders":{"Access-Control-Request-Method":"POST","Origin":"https://app.example"},"status":204}"#,
            #"{"v":1,"kind":"request","id":3,"method":"HEAD","url":"\#(Self.api)/restaurants/42","status":200}"#,
            #"{"v":1,"kind":"request","id":4,"method":"HEAD","url":"\#(Self.api)/restaurants/pizza","status":200}"#,
            #"{"v":1,"kind":"request","id":5,"method":"OPTIONS","url":"\#(Self.api)/orders","status":204}"#,
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try Self.run(["--openapi", Self.spec, journal.path])
        #expect(out.stdout.contains("\(journal.path):1:1: note: #1 GET https://analytics.other.example/collect?e=open: host 'analytics.other.example' is not a server"), "\(out.stdout)")
        #expect(out.stdout.contains("\(journal.path):2:1: note: #2 OPTIONS \(Self.api)/orders: a CORS preflight"), "\(out.stdout)")
        #expect(out.stdout.contains("\(journal.path):4:1: error: #4 HEAD \(Self.api)/restaurants/pizza: path parameter 'id' is 'pizza'"), "\(out.stdout)")
        // An OPTIONS that is not a preflight is the app's own request, and the API has none.
        #expect(out.stdout.contains("\(journal.path):5:1: error: #5 OPTIONS \(Self.api)/orders: the OpenAPI document has no OPTIONS /orders"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("2 errors, 0 warnings, 2 notes in 1 input (5 entries)\n"), "\(out.stdout)")
    }

    @Test("findings print no secret: not a secret query item in the URL, a secret parameter's value, a password in a body; long values are cut")
    func secretsAreNotPrinted() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("spec.yaml")
        try Data(Self.secretsSpec.utf8).write(to: spec)
        let long = String(repeating: "x", count: 5000)
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"https://user:pa55@api.secrets.example/search?api_key=LEAKED-KEY-1&q=\#(long)","requestHeaders":{"X-Client":"ios"},"status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"POST","url":"https://api.secrets.example/login","requestHeaders":{"Content-Type":"application/json"},"requestBody":"{\"user\":\"ann\",\"password\":\"Hunter2-LEAKED\"}","status":200}"#,
        ]
        let journal = try Self.write(lines, to: "app.jsonl", in: dir)
        let out = try Self.run(["--openapi", spec.path, "--format", "json", journal.path])
        #expect(out.status == 1, "\(out.stderr)")
        #expect(!out.stdout.contains("LEAKED"), "a secret reached the report: \(out.stdout)")
        #expect(!out.stdout.contains("pa55"), "the URL's password reached the report: \(out.stdout)")
        #expect(out.stdout.contains("api_key=REDACTED"), "\(out.stdout)")
        #expect(out.stdout.contains("query parameter 'api_key' is a value not shown (api_key is a secret's name)"), "\(out.stdout)")
        #expect(out.stdout.contains("at /password: expected at least 20 characters, got 14"), "\(out.stdout)")
        #expect(out.stdout.contains("at /password: expected text matching /^[a-z]+$/, got a value not shown (password is a secret's name)"), "\(out.stdout)")
        #expect(!out.stdout.contains(String(repeating: "x", count: 200)), "a 5,000-character value was printed whole")
        #expect(out.stdout.contains("(5000 bytes)"), "\(out.stdout)")
    }

    @Test("a StubKit HAR entry whose '_stubkit' this version cannot read is not taken for the real backend's answer")
    func unreadableStubKitMarks() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let har: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "StubKit", "version": "9"], "entries": [
            ["startedDateTime": "2026-11-27T08:00:00Z", "time": 1, "_stubkit": ["answered": "by a newer format"],
             "request": ["method": "GET", "url": "\(Self.api)/restaurants/42", "headers": []],
             "response": ["status": 418, "headers": [], "content": ["size": 0, "mimeType": "text/plain"]]],
        ]]]
        let file = try Self.write(har, to: "app.har", in: dir)
        let out = try Self.run(["--openapi", Self.spec, file.path])
        #expect(out.status == 0, "\(out.stdout)")
        #expect(!out.stdout.contains("[SK213]"), "a response that may be a stub's was checked as the backend's: \(out.stdout)")
        #expect(out.stdout.contains("has a '_stubkit' object this version cannot read"), "\(out.stdout)")
    }

    @Test("a journal line of 40 MB is one finding at its line, and the line numbers after it stay right")
    func veryLongLine() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("app.jsonl")
        var data = Data((TrafficBadInputTests.journalLine(id: 1, path: "/restaurants") + "\n").utf8)
        data.append(Data(("{\"v\":1,\"kind\":\"request\",\"url\":\"" + String(repeating: "a", count: 40 << 20) + "\"}\n").utf8))
        data.append(Data((TrafficBadInputTests.journalLine(id: 2, path: "/restaurant") + "\n").utf8))
        try data.write(to: file)
        let out = try Self.run(["--openapi", Self.spec, file.path])
        #expect(out.stdout.components(separatedBy: "[SK216]").count - 1 == 1, "\(out.stdout)")
        #expect(out.stdout.contains("\(file.path):2:1: error: line 2 is longer than 16 MB; skipped [SK216]"), "\(out.stdout)")
        #expect(out.stdout.contains("\(file.path):3:1: error: #2 GET"), "\(out.stdout)")
    }

    @Test("an empty input exits 2 saying so; '-' reads a journal piped in; no input at all is a usage error")
    func emptyAndPiped() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let empty = dir.appendingPathComponent("empty.jsonl")
        try Data().write(to: empty)
        let out = try Self.run(["--openapi", Self.spec, empty.path])
        #expect(out.status == 2)
        #expect(out.stderr.contains("\(empty.path): empty; no traffic to check"), "\(out.stderr)")
        let journal = try Data(contentsOf: TrafficCheckTests.folder.appendingPathComponent("app.jsonl"))
        let piped = try Self.run(["--openapi", Self.spec, "-"], input: journal)
        #expect(piped.status == 1)
        #expect(piped.stdout.contains("-:2:1: error: #2 GET \(Self.api)/restaurants?limit=zero"), "\(piped.stdout)")
        let none = try Self.run(["--openapi", Self.spec])
        #expect(none.status == 64, "\(none.stderr)")
    }
}
#endif
