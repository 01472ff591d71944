#if Tools
import Foundation
import StubKit
import StubKitTestSupport
import Testing

/// `stublint traffic` reading what a spec says the way servers do: parameter styles and cookies,
/// `readOnly` and `writeOnly`, server variables, and `pattern`s it cannot run.
struct TrafficSpecReadingTests {
    static let api = TrafficCheckTests.api

    @Test("cookie parameters are read from the Cookie header; '+' in a query value is a space, as servers read forms")
    func cookiesAndPlus() throws {
        let dir = try TrafficBadInputTests.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let spec = dir.appendingPathComponent("spec.yaml")
        try Data(TrafficInputsTests.secretsSpec.utf8).write(to: spec)
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza+margherita","requestHeaders":{"Cookie":"theme=dark; region=eu"},"status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza%20margherita","requestHeaders":{"Cookie":"region=mars"},"status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"GET","url":"https://api.secrets.example/menu?dish=pizza+margherita","status":200}"#,
        ]
        let journal = try TrafficInputsTests.write(lines, to: "app.jsonl", in: dir)
        let out = try TrafficInputsTests.run(["--openapi", spec.path, journal.path])
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
        let file = try TrafficInputsTests.write(har, to: "app.har", in: dir)
        let fromHAR = try TrafficInputsTests.run(["--openapi", spec.path, file.path])
        #expect(fromHAR.stdout.contains("#1 GET https://api.secrets.example/menu?dish=pizza+margherita: required cookie parameter 'region' is missing"), "\(fromHAR.stdout)")
        // StubKit's own HAR export is the app's journal too: no stored cookie was ever in it.
        var stubkit = har
        var log = stubkit["log"] as! [String: Any]
        var entries = log["entries"] as! [[String: Any]]
        entries[0]["_stubkit"] = ["answered": true]
        log["entries"] = entries
        stubkit["log"] = log
        let exported = try TrafficInputsTests.write(stubkit, to: "stubkit.har", in: dir)
        let fromExport = try TrafficInputsTests.run(["--openapi", spec.path, exported.path])
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
        let file = try TrafficInputsTests.write(har, to: "users.har", in: dir)
        let out = try TrafficInputsTests.run(["--openapi", spec.path, file.path])
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
        let journal = try TrafficInputsTests.write(lines, to: "app.jsonl", in: dir)
        let out = try TrafficInputsTests.run(["--openapi", spec.path, journal.path])
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
        let journal = try TrafficInputsTests.write(lines, to: "app.jsonl", in: dir)
        let out = try TrafficInputsTests.run(["--openapi", spec.path, journal.path])
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
        let out = try TrafficInputsTests.run(["--openapi", spec.path, journal.path])
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
        let journal = try TrafficInputsTests.write(lines, to: "app.jsonl", in: dir)
        let out = try TrafficInputsTests.run(["--openapi", spec.path, journal.path])
        #expect(!out.stdout.contains("#1 GET"), "\(out.stdout)")
        #expect(out.stdout.contains("#2 GET \(base)/v2/items?limit=x: query parameter 'limit' is 'x'"), "\(out.stdout)")
        #expect(out.stdout.contains("#3 GET \(base)/v3/items: no path of the OpenAPI document matches /v3/items under /v1 or /v2"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("2 errors, 0 warnings, 0 notes in 1 input (3 entries)\n"), "\(out.stdout)")
    }
}
#endif
