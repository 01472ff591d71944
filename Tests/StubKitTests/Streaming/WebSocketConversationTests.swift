import Foundation
import Testing
@testable import StubKit

/// The decisions a WebSocket script makes, without a socket: what it sends on connect, which reply a
/// client message gets (the first that matches), templates over the message, and why nothing matched.
@Suite
struct WebSocketConversationTests {
    static func conversation(_ script: String, path: String = "/chat/42") throws -> WebSocketConversation {
        let (rule, diagnostics) = BundleLoader().decodeRule(script, file: "rule.json")
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let found = try #require(rule)
        let request = StubRequest(url: URL(string: "https://chat.test\(path)?room=blue")!, headers: ["Upgrade": "websocket"])
        return WebSocketConversation(script: try #require(found.webSocket), request: request, parameters: ["id": "42"], hit: 3)
    }

    static let chat = #"""
    {"path": "/chat/{id}", "template": true, "scenario": "chat", "webSocket": {
      "onConnect": [{"text": "hello {{path.id}} in {{query.room}} (#{{hit}})"}, {"binary": "AAE=", "delay": 1}],
      "replies": [
        {"when": {"equals": "ping"}, "send": {"text": "pong"}},
        {"when": {"containsJSON": {"type": "order"}}, "send": {"json": {"ack": "{{body.id | json}}", "echo": "{{body.note}}"}}},
        {"when": {"matches": "^bye( now)?$"}, "send": [{"text": "bye"}, {"close": {"code": 1000, "reason": "done"}, "delay": 0.5}], "setState": "closed"},
        {"when": {"contains": "help"}, "send": {"text": "first help"}},
        {"when": {"contains": "help me"}, "send": {"text": "second help"}}
      ]}}
    """#

    @Test("the connect steps are rendered with the upgrade request's path, query and the rule's hit count")
    func opening() throws {
        let steps = try Self.conversation(Self.chat).opening(now: Date(timeIntervalSince1970: 0))
        #expect(steps == [
            .init(delay: 0, action: .send(.text("hello 42 in blue (#3)"))),
            .init(delay: 1, action: .send(.binary(Data([0, 1])))),
        ])
    }

    @Test("each condition kind picks its reply; JSON replies fill in the client's message as JSON")
    func replies() throws {
        let conversation = try Self.conversation(Self.chat)
        let now = Date()
        guard case .reply(0, let pong, nil) = conversation.answer(to: .text("ping"), now: now) else { Issue.record("ping"); return }
        #expect(pong.map(\.action) == [.send(.text("pong"))])
        guard case .reply(1, let ack, _) = conversation.answer(to: .text(#"{"type": "order", "id": 9, "note": "say \"hi\""}"#), now: now) else {
            Issue.record("order"); return
        }
        let json = try #require(ack.first.flatMap { if case .send(.text(let text)) = $0.action { text } else { nil } })
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["ack"] as? Int == 9)
        #expect(object?["echo"] as? String == #"say "hi""#)
        guard case .reply(2, let bye, "closed") = conversation.answer(to: .text("bye now"), now: now) else { Issue.record("bye"); return }
        #expect(bye == [.init(delay: 0, action: .send(.text("bye"))), .init(delay: 0.5, action: .close(code: 1000, reason: "done"))])
        // The first reply that matches wins, even when a later one matches more closely.
        guard case .reply(3, let help, _) = conversation.answer(to: .text("help me"), now: now) else { Issue.record("help"); return }
        #expect(help.map(\.action) == [.send(.text("first help"))])
        // A binary message is matched on its bytes as text.
        guard case .reply(0, _, _) = conversation.answer(to: .binary(Data("ping".utf8)), now: now) else { Issue.record("binary ping"); return }
    }

    @Test("{{body}} in a reply is the client's whole message, escaped inside a JSON string")
    func wholeMessage() throws {
        let conversation = try Self.conversation(#"""
        {"path": "/chat/{id}", "template": true, "webSocket": {"replies": [
          {"send": [{"text": "you said: {{body}}"}, {"json": {"said": "{{body}}"}}]}
        ]}}
        """#)
        guard case .reply(0, let echo, _) = conversation.answer(to: .text(#"echo "x""#), now: Date()) else { Issue.record("echo"); return }
        #expect(echo.map(\.action) == [.send(.text(#"you said: echo "x""#)), .send(.text(#"{"said":"echo \"x\""}"#))])
    }

    @Test("a message no reply matches gets each reply's first failed condition, for the journal")
    func nearMisses() throws {
        guard case .noMatch(let misses) = try Self.conversation(Self.chat).answer(to: .text("pin"), now: Date()) else {
            Issue.record("expected no match"); return
        }
        #expect(misses.count == 5)
        #expect(misses.first == "rule.webSocket.replies[0]: expected a message equal to 'ping' (the body differs)")
        #expect(misses[2].hasPrefix("rule.webSocket.replies[2]: expected a message matching /^bye( now)?$/"))
    }

    @Test("a reply without conditions answers every message; a script without replies answers none")
    func catchAll() throws {
        let all = try Self.conversation(#"{"path": "/chat/{id}", "webSocket": {"replies": [{"send": {"text": "ok"}}]}}"#)
        guard case .reply(0, _, _) = all.answer(to: .text("anything"), now: Date()) else { Issue.record("catch-all"); return }
        let none = try Self.conversation(#"{"path": "/chat/{id}", "webSocket": {"onConnect": {"text": "hi"}}}"#)
        guard case .noMatch(let misses) = none.answer(to: .text("anything"), now: Date()) else { Issue.record("no replies"); return }
        #expect(misses.isEmpty)
    }
}
