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
        let harFile = dir.appendingPathComponent("app.har")
        try JSONSerialization.data(withJSONObject: har, options: [.prettyPrinted, .sortedKeys]).write(to: harFile)
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
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
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

    @Test("cookie parameters are read from the Cookie header; '+' in a query value is a space, as servers read forms")
    func cookiesAndPlus() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("spec.yaml")
        try Data(Self.secretsSpec.utf8).write(to: spec)
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza+margherita","requestHeaders":{"Cookie":"theme=dark; region=eu"},"status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza%20margherita","requestHeaders":{"Cookie":"region=mars"},"status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza+margherita","status":200}"#,
        ]
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try Self.run(["--openapi", spec.path, journal.path])
        #expect(!out.stdout.contains("#1 GET"), "a conforming request was reported: \(out.stdout)")
        #expect(out.stdout.contains("#2 GET https://api.secrets.example/menu?dish=pizza%20margherita: cookie parameter 'region' is 'mars'"), "\(out.stdout)")
        // The app's own journal sees a request before the system adds its stored cookies: none is "missing".
        #expect(!out.stdout.contains("#3 GET"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("1 error, 0 warnings, 0 notes in 1 input (3 entries)\n"), "\(out.stdout)")
        // A browser's HAR holds every cookie sent.
        let har: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "browser", "version": "1"], "entries": [
            ["startedDateTime": "2026-11-27T08:00:00Z", "time": 1,
             "request": ["method": "GET", "url": "https://api.secrets.example/menu?dish=pizza+margherita", "headers": [["name": "Cookie", "value": "theme=dark"]]],
             "response": ["status": 0, "headers": [], "content": ["size": 0]]],
        ]]]
        let file = dir.appendingPathComponent("app.har")
        try JSONSerialization.data(withJSONObject: har, options: [.prettyPrinted, .sortedKeys]).write(to: file)
        let fromHAR = try Self.run(["--openapi", spec.path, file.path])
        #expect(fromHAR.stdout.contains("#1 GET https://api.secrets.example/menu?dish=pizza+margherita: required cookie parameter 'region' is missing"), "\(fromHAR.stdout)")
        // StubKit's own HAR export is the app's journal too: no stored cookie was ever in it.
        var stubkit = har
        var log = stubkit["log"] as! [String: Any]
        var entries = log["entries"] as! [[String: Any]]
        entries[0]["_stubkit"] = ["answered": true]
        log["entries"] = entries
        stubkit["log"] = log
        let exported = dir.appendingPathComponent("stubkit.har")
        try JSONSerialization.data(withJSONObject: stubkit, options: [.prettyPrinted, .sortedKeys]).write(to: exported)
        let fromExport = try Self.run(["--openapi", spec.path, exported.path])
        #expect(!fromExport.stdout.contains("cookie parameter"), "\(fromExport.stdout)")
    }

    @Test("readOnly properties are required in responses only, writeOnly ones in requests only", arguments: ["3.0.3", "3.1.0"])
    func readOnlyAndWriteOnly(_ version: String) throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("users.yaml")
        try Data("""
        openapi: \(version)
        info: { title: Users, version: 1.0.0 }
        servers: [ { url: 'https://api.users.example' } ]
        paths:
          /users:
            post:
              requestBody: { required: true, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } }
              responses:
                '201': { description: made, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } }
        components:
          schemas:
            User:
              type: object
              required: [id, name, password]
              properties:
                id: { type: integer, readOnly: true }
                name: { type: string }
                password: { type: string, writeOnly: true }
        """.utf8).write(to: spec)
        func entry(_ request: String, _ response: String) -> [String: Any] {
            ["startedDateTime": "2026-11-27T08:00:00Z", "time": 1,
             "request": ["method": "POST", "url": "https://api.users.example/users", "headers": [["name": "Content-Type", "value": "application/json"]],
                         "postData": ["mimeType": "application/json", "text": request]],
             "response": ["status": 201, "headers": [["name": "Content-Type", "value": "application/json"]], "content": ["size": response.utf8.count, "mimeType": "application/json", "text": response]]]
        }
        let har: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "browser", "version": "1"], "entries": [
            entry(#"{"name":"ann","password":"correct horse"}"#, #"{"id":1,"name":"ann"}"#),
            entry(#"{"name":"bob"}"#, #"{"name":"bob"}"#),
        ]]]
        let file = dir.appendingPathComponent("users.har")
        try JSONSerialization.data(withJSONObject: har, options: [.prettyPrinted, .sortedKeys]).write(to: file)
        let out = try Self.run(["--openapi", spec.path, file.path])
        #expect(!out.stdout.contains("#1 POST"), "a conforming exchange was reported: \(out.stdout)")
        #expect(out.stdout.contains("#2 POST https://api.users.example/users: the request body does not fit the schema: missing required property 'password' [SK212]"), "\(out.stdout)")
        #expect(out.stdout.contains("#2 POST https://api.users.example/users: the 201 response body does not fit the schema: missing required property 'id' [SK214]"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("2 errors, 0 warnings, 0 notes in 1 input (2 entries)\n"), "\(out.stdout)")
    }

    @Test("query parameters are read in their style: deepObject, form-exploded objects, pipe- and space-delimited arrays; 'content' ones are a note")
    func queryStyles() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("search.yaml")
        try Data("""
        openapi: 3.0.3
        info: { title: Search, version: 1.0.0 }
        servers: [ { url: 'https://api.search.example' } ]
        paths:
          /search:
            get:
              parameters:
                - { name: filter, in: query, required: true, style: deepObject, explode: true,
                    schema: { type: object, properties: { status: { type: string, enum: [open, closed] }, price: { type: object, properties: { max: { type: integer } } } } } }
                - { name: point, in: query, required: true, schema: { type: object, properties: { lat: { type: number }, lng: { type: number } } } }
                - { name: ids, in: query, style: pipeDelimited, explode: false, schema: { type: array, items: { type: integer } } }
                - { name: tags, in: query, style: spaceDelimited, explode: false, schema: { type: array, items: { type: string, enum: [vegan, spicy] } } }
                - { name: q, in: query, content: { application/json: { schema: { type: object } } } }
              responses:
                '200': { description: ok }
        """.utf8).write(to: spec)
        let api = "https://api.search.example/search"
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"\#(api)?filter%5Bstatus%5D=open&filter%5Bprice%5D%5Bmax%5D=20&lat=52.5&lng=13.4&ids=1%7C2%7C3&tags=vegan%20spicy","status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"GET","url":"\#(api)?filter%5Bstatus%5D=lost&lng=east&ids=1%7Cx&tags=vegan+salty&q=%7B%7D","status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"GET","url":"\#(api)?ids=1","status":200}"#,
            #"{"v":1,"kind":"request","id":4,"method":"GET","url":"\#(api)?filter%5Bprice%5D%5Bmax%5D=cheap&lat=1&lng=2","status":200}"#,
        ]
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try Self.run(["--openapi", spec.path, journal.path])
        #expect(!out.stdout.contains("#1 GET"), "a conforming request was reported: \(out.stdout)")
        for expected in [
            "#2 GET \(api)?filter%5Bstatus%5D=lost&lng=east&ids=1%7Cx&tags=vegan+salty&q=%7B%7D: query parameter 'filter' is 'filter[status]=lost', which does not fit its schema: /status: expected one of \"open\", \"closed\", got \"lost\" [SK211]",
            "query parameter 'point' is 'lng=east', which does not fit its schema: /lng: expected number, got string [SK211]",
            "query parameter 'ids' is '1|x', which does not fit its schema: /1: expected integer, got string [SK211]",
            "query parameter 'tags' is 'vegan salty', which does not fit its schema: /1: expected one of \"vegan\", \"spicy\", got \"salty\" [SK211]",
            "note: #2 GET \(api)?filter%5Bstatus%5D=lost&lng=east&ids=1%7Cx&tags=vegan+salty&q=%7B%7D: query parameter 'q' is described by 'content', not 'schema'; its value is not checked [SK215]",
            "#3 GET \(api)?ids=1: required query parameter 'filter' is missing [SK211]",
            "#3 GET \(api)?ids=1: required query parameter 'point' is missing [SK211]",
        ] { #expect(out.stdout.contains(expected), "\(expected)\n---\n\(out.stdout)") }
        #expect(out.stdout.contains("#4 GET \(api)?filter%5Bprice%5D%5Bmax%5D=cheap&lat=1&lng=2: query parameter 'filter' is 'filter[price][max]=cheap', which does not fit its schema: /price/max: expected integer, got string [SK211]"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("7 errors, 0 warnings, 1 note in 1 input (4 entries)\n"), "\(out.stdout)")
    }

    @Test("an object parameter's secret properties are not printed; a form-exploded object with additionalProperties takes the items no other parameter names")
    func styledSecretsAndOpenObjects() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("styles.yaml")
        try Data("""
        openapi: 3.0.3
        info: { title: Styles, version: 1.0.0 }
        servers: [ { url: 'https://api.styles.example' } ]
        paths:
          /login:
            get:
              parameters:
                - { name: creds, in: query, schema: { type: object, properties: { user: { type: string, minLength: 3 }, api_key: { type: string } } } }
                - { name: f, in: query, style: deepObject, schema: { type: object, properties: { status: { type: string, enum: [open] }, token: { type: string } } } }
              responses: { '200': { description: ok } }
          /paint:
            get:
              parameters:
                - { name: page, in: query, schema: { type: integer } }
                - { name: extra, in: query, required: true, schema: { type: object, additionalProperties: { type: string, enum: [red, blue] } } }
              responses: { '200': { description: ok } }
        """.utf8).write(to: spec)
        let base = "https://api.styles.example"
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"\#(base)/login?user=ab&api_key=LEAKED-1&f%5Bstatus%5D=x&f%5Btoken%5D=LEAKED-2","status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"GET","url":"\#(base)/paint?page=2&color=red","status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"GET","url":"\#(base)/paint?page=2&color=green","status":200}"#,
        ]
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try Self.run(["--openapi", spec.path, journal.path])
        #expect(!out.stdout.contains("LEAKED"), "\(out.stdout)")
        #expect(out.stdout.contains("query parameter 'creds' is 'user=ab,api_key=REDACTED', which does not fit its schema: /user: expected at least 3 characters, got 2 [SK211]"), "\(out.stdout)")
        #expect(out.stdout.contains("query parameter 'f' is 'f[status]=x,f[token]=REDACTED', which does not fit its schema: /status:"), "\(out.stdout)")
        #expect(!out.stdout.contains("#2 GET"), "\(out.stdout)")
        #expect(out.stdout.contains("#3 GET \(base)/paint?page=2&color=green: query parameter 'extra' is 'color=green', which does not fit its schema: /color:"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("3 errors, 0 warnings, 0 notes in 1 input (3 entries)\n"), "\(out.stdout)")
    }

    @Test("a schema pattern StubKit cannot run is a note, not a silent pass")
    func patternThatDoesNotCompile() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("pattern.yaml")
        try Data("""
        openapi: 3.0.3
        info: { title: Pattern, version: 1.0.0 }
        servers: [ { url: 'https://api.pattern.example' } ]
        paths:
          /codes:
            post:
              requestBody: { content: { application/json: { schema: { type: object, properties: { code: { type: string, pattern: '^[a-z]{2,1}$' } } } } } }
              responses: { '200': { description: ok } }
        """.utf8).write(to: spec)
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data(#"{"v":1,"kind":"request","id":1,"method":"POST","url":"https://api.pattern.example/codes","requestHeaders":{"Content-Type":"application/json"},"requestBody":"{\"code\":\"ab\"}","status":200}"#.utf8 + Data("\n".utf8)).write(to: journal)
        let out = try Self.run(["--openapi", spec.path, journal.path])
        #expect(out.status == 0, "\(out.stdout)")
        #expect(out.stdout.contains("the pattern /^[a-z]{2,1}$/ is not a regular expression StubKit can run; not checked against it"), "\(out.stdout)")
    }

    @Test("a server variable in the base path stands for each of its enum values")
    func serverVariablesInPath() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("versions.yaml")
        try Data("""
        openapi: 3.0.3
        info: { title: Versions, version: 1.0.0 }
        servers:
          - url: 'https://api.versions.example/{version}'
            variables: { version: { default: v1, enum: [v1, v2] } }
        paths:
          /items:
            get:
              parameters: [ { name: limit, in: query, schema: { type: integer } } ]
              responses: { '200': { description: ok } }
        """.utf8).write(to: spec)
        let base = "https://api.versions.example"
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"\#(base)/v1/items?limit=1","status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"GET","url":"\#(base)/v2/items?limit=x","status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"GET","url":"\#(base)/v3/items","status":200}"#,
        ]
        let journal = dir.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try Self.run(["--openapi", spec.path, journal.path])
        #expect(!out.stdout.contains("#1 GET"), "\(out.stdout)")
        #expect(out.stdout.contains("#2 GET \(base)/v2/items?limit=x: query parameter 'limit' is 'x'"), "\(out.stdout)")
        #expect(out.stdout.contains("#3 GET \(base)/v3/items: no path of the OpenAPI document matches /v3/items under /v1 or /v2"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("2 errors, 0 warnings, 0 notes in 1 input (3 entries)\n"), "\(out.stdout)")
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
        let file = dir.appendingPathComponent("app.har")
        try JSONSerialization.data(withJSONObject: har, options: [.prettyPrinted, .sortedKeys]).write(to: file)
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
