import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// What templates put into bodies and headers, seen by an app through a real URLSession: JSON that
/// stays JSON whatever the request holds, typed values, and `{{hit}}` counted per rule.
@Suite(.serialized)
struct TemplateOutputTests {
    let folder: TemporaryFolder
    let engine: StubEngine
    let session: URLSession

    init() throws {
        folder = try TemporaryFolder()
        engine = StubEngine()
        try folder.activate(engine, bundle: "tpl", rules: #"""
        { "host": "tpl.test", "rules": [
          { "path": "/search", "template": true, "json": { "q": "{{query.q}}", "echo": "you said: {{query.q}}" } },
          { "path": "/file", "template": true, "response": "file.json" },
          { "method": "POST", "path": "/orders/{id}", "template": true,
            "json": { "restaurantId": "{{body.restaurantId | json}}", "items": "{{body.items | json}}",
                      "orderId": "{{path.id | number}}", "missing": "{{body.nothing | json}}",
                      "asText": "{{body.restaurantId}}" } },
          { "method": "POST", "path": "/echo", "template": true, "json": { "echo": "{{body}}", "value": "{{body | json}}" } },
          { "method": "POST", "path": "/echo-text", "template": true, "body": "you sent: {{body}}", "contentType": "text/plain" },
          { "path": "/counter", "template": true, "body": "hit {{hit}}", "contentType": "text/plain" },
          { "path": "/other-counter", "template": true, "body": "other {{hit}}", "contentType": "text/plain" },
          { "path": "/stateful", "responses": [ { "body": "one" }, { "body": "two" } ] },
          { "path": "/header", "template": true, "headers": { "X-Echo": "{{query.v}}" }, "body": "ok" },
          { "path": "/text", "template": true, "body": "raw {{query.q}} json {{query.q | json}}", "contentType": "text/plain" }
        ] }
        """#, files: ["file.json": #"{"title": "{{query.t}}", "n": {{query.n | number}}, "raw": {{query.n}}, "hit": {{hit}}}"#])
        session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
    }

    static func query(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// Values an app or a test really sends: quotes, backslashes, control characters, non-ASCII.
    static let awkwardValues = [#"a"b\"#, "line\nbreak\ttab", "süß 日本 🍕", #"\u0000 {"x":1}"#, "\u{1}\u{1f}", "</script>"]

    @Test("values with quotes, backslashes, newlines and non-ASCII keep a json body valid JSON", arguments: awkwardValues)
    func jsonBodyStaysJSON(value: String) async throws {
        let result = await session.result("GET", "https://tpl.test/search?q=\(Self.query(value))")
        let json = try #require(result.json, "not JSON: \(result.text ?? "nil")")
        #expect(json["q"] as? String == value)
        #expect(json["echo"] as? String == "you said: " + value)
    }

    @Test("a JSON response file is escaped the same way, and typed placeholders outside strings stay typed")
    func jsonFileStaysJSON() async throws {
        let value = #"say "hi"\ now"#
        let result = await session.result("GET", "https://tpl.test/file?t=\(Self.query(value))&n=42")
        let json = try #require(result.json, "not JSON: \(result.text ?? "nil")")
        #expect(json["title"] as? String == value)
        #expect(json["n"] as? Int == 42)
        // Unfiltered outside a string: written as it comes, as templates always did.
        #expect(json["raw"] as? Int == 42)
        #expect(json["hit"] as? Int == 0)
    }

    @Test("'| json' inserts the body field's own JSON value; '| number' turns text into a number")
    func typedInsertion() async throws {
        let result = await session.result("POST", "https://tpl.test/orders/9001", body: #"{"restaurantId": 1, "items": [{"id": 7}]}"#,
                                          headers: ["Content-Type": "application/json"])
        let json = try #require(result.json, "not JSON: \(result.text ?? "nil")")
        #expect(json["restaurantId"] as? Int == 1)
        #expect((json["items"] as? [[String: Any]])?.first?["id"] as? Int == 7)
        #expect(json["orderId"] as? Int == 9001)
        #expect(json["missing"] is NSNull)
        // Without a filter a value inside a string stays a string.
        #expect(json["asText"] as? String == "1")
    }

    @Test("{{body}} is the whole request body: as text (escaped inside a JSON string), or with '| json' as its JSON value")
    func wholeBodyEcho() async throws {
        let sent = #"{"note": "say \"hi\"\n", "n": 1}"#
        let result = await session.result("POST", "https://tpl.test/echo", body: sent, headers: ["Content-Type": "application/json"])
        let json = try #require(result.json, "not JSON: \(result.text ?? "nil")")
        #expect(json["echo"] as? String == sent, "the body's text, byte for byte")
        #expect((json["value"] as? [String: Any])?["note"] as? String == "say \"hi\"\n")
        let text = await session.result("POST", "https://tpl.test/echo-text", body: "plain ünïcode\n")
        #expect(text.text == "you sent: plain ünïcode\n")
        let notJSON = await session.result("POST", "https://tpl.test/echo", body: "not json")
        #expect(notJSON.json?["echo"] as? String == "not json")
        #expect(notJSON.json?["value"] is NSNull)
    }

    @Test("{{hit}} on a plain rule counts 0, 1, 2, per rule, beside a stateful rule")
    func hitCountsPerRule() async throws {
        var seen: [String] = []
        for path in ["/counter", "/other-counter", "/counter", "/stateful", "/counter", "/other-counter"] {
            seen.append(await session.result("GET", "https://tpl.test\(path)").text ?? "nil")
        }
        #expect(seen == ["hit 0", "other 0", "hit 1", "one", "hit 2", "other 1"])
    }

    @Test("a header template cannot start a new header: CR and LF become spaces")
    func headerInjection() async throws {
        let result = await session.result("GET", "https://tpl.test/header?v=\(Self.query("x\r\nSet-Cookie: stolen=1"))")
        #expect(result.response?.value(forHTTPHeaderField: "X-Echo") == "x Set-Cookie: stolen=1")
        #expect(result.response?.value(forHTTPHeaderField: "Set-Cookie") == nil)
    }

    @Test("text bodies take values as they are, unescaped; a filter writes the JSON form")
    func textBodyUnescaped() async throws {
        let result = await session.result("GET", "https://tpl.test/text?q=\(Self.query(#"a"b\"#))")
        #expect(result.text == #"raw a"b\ json "a\"b\\""#)
    }

    @Test("an unknown filter is a load-time error naming the rule and suggesting the closest filter")
    func unknownFilter() throws {
        let bundle = try folder.bundle("badfilter", ["stubsRules.json": #"""
        { "rules": [ { "path": "/x", "template": true, "json": { "n": "{{query.n | nubmer}}" } } ] }
        """#])
        let result = BundleLoader().load(folder: bundle)
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.code == .unknownTemplateField)
        #expect(error.keyPath == "rules[0].json")
        #expect(error.description.contains("unknown filter 'nubmer'"))
        #expect(error.description.contains("did you mean '| number'?"))
    }
}
}
