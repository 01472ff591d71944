import Foundation
import Testing
@testable import StubKit

/// The streaming keys as QA engineers write them: what `events` and `webSocket` decode to, the bytes an
/// event is sent as, and the diagnostics a broken rule gets (file, line, key and a fix).
@Suite
struct StreamingFormatTests {
    static func rule(_ text: String) -> (rule: StubRule?, diagnostics: [Diagnostic]) {
        BundleLoader().decodeRule(text, file: "rule.json")
    }

    @Test("events decode with their fields, JSON data as compact JSON, and the stream's headers")
    func eventsDecode() throws {
        let (rule, diagnostics) = Self.rule(#"""
        {"path": "/orders/{id}/events", "keepOpen": true, "events": [
          {"comment": "hello"},
          {"event": "status", "id": 7, "retry": 3000, "data": {"status": "placed", "n": 1}},
          {"delay": 0.25, "data": "line one\nline two"}
        ]}
        """#)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let stream = try #require(rule?.response.events)
        #expect(stream.keepsOpen)
        #expect(stream.events.map(\.delay) == [0, 0, 0.25])
        #expect(stream.events[1].id == "7")
        #expect(stream.events[1].data == #"{"n":1,"status":"placed"}"# || stream.events[1].data == #"{"status":"placed","n":1}"#)
        let headers = try #require(rule?.response.headerFields)
        #expect(headers["Content-Type"] == "text/event-stream")
        #expect(headers["Cache-Control"] == "no-cache")
        #expect(headers["Content-Length"] == nil)
        #expect(rule?.request.webSocketUpgrade == false)
    }

    @Test("an event is sent in the event stream format: fields, one data line per line, a blank line")
    func wireForm() {
        let bytes = EventStream.Event.encoded(comment: "keep\nalive", event: "status", data: "a\r\nb\rc\n", id: "1\n2", retry: 500)
        #expect(String(decoding: bytes, as: UTF8.self) == ": keep\n: alive\nevent: status\nid: 1 2\nretry: 500\ndata: a\ndata: b\ndata: c\ndata:\n\n")
        // A comment alone dispatches nothing: no blank line after it.
        #expect(String(decoding: EventStream.Event(comment: "ping").encoded, as: UTF8.self) == ": ping\n")
        #expect(String(decoding: EventStream.Event(data: "").encoded, as: UTF8.self) == "data:\n\n")
    }

    @Test("events in a sequence: each connection gets its own stream, keepOpen inherited from the rule")
    func eventsInSequence() throws {
        let (rule, diagnostics) = Self.rule(#"""
        {"path": "/feed", "keepOpen": true, "events": [{"data": "first"}],
         "responses": [{}, {"events": [{"data": "second"}]}, {"body": "plain"}, {"body": "again", "keepOpen": false}]}
        """#)
        #expect(diagnostics.filter { $0.severity == .error }.map(\.keyPath) == ["rule.responses[3].keepOpen"])
        #expect(rule == nil)
        let (good, goodDiagnostics) = Self.rule(#"""
        {"path": "/feed", "keepOpen": true, "events": [{"data": "first"}], "responses": [{}, {"events": [{"data": "second"}]}, {"body": "plain"}]}
        """#)
        #expect(goodDiagnostics.isEmpty, "\(goodDiagnostics)")
        let responses = try #require(good?.sequence?.responses)
        #expect(responses.map { $0.events?.events.first?.data } == ["first", "second", nil])
        #expect(responses.map { $0.events?.keepsOpen } == [true, true, nil])
        #expect(responses[2].headerFields["Content-Length"] == "5", "an item's body replaces the rule's stream")
    }

    @Test("a WebSocket script decodes: steps with delays, replies with the requestBody conditions, periodic steps")
    func webSocketDecodes() throws {
        let (rule, diagnostics) = Self.rule(#"""
        {"path": "/chat", "scenario": "chat", "webSocket": {
          "subprotocol": "chat.v1", "maxMessageSize": 4096,
          "onConnect": [{"text": "hi"}, {"binary": "AAEC", "delay": 0.5}, {"json": {"a": [1]}}],
          "replies": [{"when": {"contains": "ping"}, "send": {"ping": "p"}},
                      {"when": {"matches": "^bye"}, "send": [{"close": {"code": 4000, "reason": "done"}}], "setState": "over"}],
          "every": [{"interval": 2, "times": 3, "send": {"text": "tick"}}]
        }}
        """#)
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let script = try #require(rule?.webSocket)
        #expect(rule?.request.webSocketUpgrade == true)
        #expect(rule?.request.methods == ["GET"])
        #expect(script.subprotocol == "chat.v1")
        #expect(script.maximumMessageSize == 4096)
        #expect(script.onConnect.map(\.action) == [.send(.text("hi")), .send(.binary(Data([0, 1, 2]))), .send(.text(#"{"a":[1]}"#))])
        #expect(script.onConnect.map(\.delay) == [0, 0.5, 0])
        #expect(script.replies.map(\.steps.first?.action) == [.ping(Data("p".utf8)), .close(code: 4000, reason: "done")])
        #expect(script.replies[1].setState == "over")
        #expect(script.periodic.first?.interval == 2)
        #expect(script.periodic.first?.times == 3)
    }

    @Test("broken streaming rules get errors naming the line, the key path and a fix")
    func brokenRules() {
        let text = """
        [
         {"path": "/e", "events": [{"dta": "x"}, {"data": "y", "setState": "s"}], "keepOpen": "yes", "body": "z"},
         {"path": "/w", "method": "POST", "status": 200, "webSocket": {"onConnect": [{"text": "a", "ping": "b"}, {"close": {"code": 1005}}], "replies": [{"when": {"equalz": "x"}}], "every": [{"send": []}]}},
         {"path": "/k", "keepOpen": true},
         {"path": "/t", "throttle": 100, "events": [{"data": "x"}]}
        ]
        """
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("streaming-format-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try? Data(text.utf8).write(to: folder.appendingPathComponent("stubsRules.json"))
        let result = BundleLoader(options: .lint).load(folder: folder)
        let lines = result.diagnostics.map { "\($0.position?.line ?? 0) \($0.keyPath): \($0.message)" }
        let expected = [
            "2 [0].events[0]: the event sends nothing",
            "2 [0].events[0].dta: unknown key 'dta'",
            "2 [0].events[1].setState: 'setState' needs the rule's 'scenario' to belong to",
            "2 [0].keepOpen: expected true or false, found a string",
            "2 [0].body: 'events' and 'body' both give the response body",
            "3 [1].method: a WebSocket opens with a GET request",
            "3 [1].status: 'webSocket' answers with a conversation, so 'status' would never be used",
            "3 [1].webSocket.onConnect[0].ping: 'text' and 'ping' in one step",
            "3 [1].webSocket.onConnect[1].close.code: close code 1005 cannot be sent (RFC 6455 section 7.4)",
            "3 [1].webSocket.replies[0]: the reply does nothing",
            "3 [1].webSocket.replies[0].when.equalz: unknown key 'equalz'",
            "3 [1].webSocket.every[0]: the periodic message has no 'interval'",
            "4 [2].keepOpen: 'keepOpen' applies to 'events', which the response does not have",
            "5 [3].throttle: 'throttle' cannot pace an event stream; each event's 'delay' does",
        ]
        #expect(lines.sorted() == expected.sorted())
        #expect(result.diagnostics.allSatisfy { $0.file.hasSuffix("stubsRules.json") && $0.severity == .error })
        #expect(result.bundle.rules.isEmpty, "a rule with an error is left out")
    }

    @Test("event templates are parsed at load time: an unknown field is an error there, not when served")
    func eventTemplateErrors() {
        let (_, diagnostics) = Self.rule(#"""
        {"path": "/e/{id}", "template": true, "events": [{"data": {"id": "{{path.idd}}"}}]}
        """#)
        #expect(diagnostics.map(\.keyPath) == ["rule.events[0].data"])
        #expect(diagnostics.first?.message.contains("{{path.idd}}") == true)
    }

    @Test("the example bundle order_tracking loads without a diagnostic")
    func exampleBundle() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../../StubBundles/order_tracking").standardizedFileURL
        let result = BundleLoader(options: .lint).load(folder: folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
        #expect(result.bundle.rules.count == 4)
        #expect(result.bundle.rules.filter { $0.webSocket != nil }.count == 1)
        #expect(result.bundle.rules.filter { $0.response.events != nil }.count == 1)
    }
}
