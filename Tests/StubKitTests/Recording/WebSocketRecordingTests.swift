import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// A recorded WebSocket conversation written as a rule, read back by the real loader and played by the
/// real conversation: the client's messages, sent again, get the server's recorded messages in order.
struct WebSocketRecordingTests {
    typealias Kind = WebSocketRecording.Kind

    /// A conversation from a list of (seconds after opening, direction, message).
    static func conversation(_ messages: [(TimeInterval, WebSocketRecording.Direction, Kind)],
                             url: String = "https://chat.test/rooms/7?since=1",
                             headers: [String: String] = [:]) -> WebSocketRecording {
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let request = StubRequest(url: URL(string: url)!, headers: ["Upgrade": "websocket", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="].merging(headers) { $1 })
        return WebSocketRecording(request: request, subprotocol: "chat.v1", openedAt: start,
                                  messages: messages.map { .init($0.1, $0.2, at: start.addingTimeInterval($0.0)) })
    }

    static let chat = conversation([
        (0.2, .serverToClient, .text(#"{"from":"server","text":"welcome"}"#)),
        (0.5, .serverToClient, .binary(Data([0, 1, 2]))),
        (1.0, .clientToServer, .text("ping")),
        (1.1, .serverToClient, .text("pong")),
        (2.0, .clientToServer, .text(#"{ "type": "order", "id": 9 }"#)),
        (2.25, .serverToClient, .text(#"{"ack": 9}"#)),
        (3.0, .serverToClient, .text("preparing")),
        (4.0, .clientToServer, .binary(Data([0xFF, 0x00, 0x41]))),
        (4.5, .serverToClient, .binary(Data([0xCA, 0xFE]))),
        (5.0, .clientToServer, .text("bye")),
        (5.0, .serverToClient, .text("see you")),
        (5.125, .serverToClient, .close(code: 4000, reason: "chat over")),
    ])

    struct Recorded {
        var folder: TemporaryFolder
        var bundle: URL
        var rules: String
        var outcome: Recorder.WebSocketOutcome
    }

    static func record(_ conversations: [WebSocketRecording], extraHTTP: Bool = false, ignored: [RecorderConfiguration.VolatileField] = [],
                       sourceLocation: SourceLocation = #_sourceLocation) throws -> Recorded {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "ws", folder: folder.url, ignored: ignored))
        var outcome = Recorder.WebSocketOutcome(written: false, notes: [])
        for conversation in conversations {
            outcome = try recorder.record(conversation).get()
        }
        if extraHTTP {
            // A plain GET of the same URL is another rule: the WebSocket one answers upgrades only.
            _ = recorder.record(StubRequest(url: URL(string: "https://chat.test/rooms/7?since=1")!), status: 200, headers: [:], capture: nil)
        }
        let bundle = folder.url.appendingPathComponent("ws")
        let rules = try String(contentsOf: bundle.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        return Recorded(folder: folder, bundle: bundle, rules: rules, outcome: outcome)
    }

    /// The written bundle loaded with the linter's checks: no diagnostic, and its one WebSocket rule.
    static func script(of recorded: Recorded, sourceLocation: SourceLocation = #_sourceLocation) throws -> (StubRule, WebSocketScript) {
        let result = BundleLoader(options: .lint).load(folder: recorded.bundle)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)\n\(recorded.rules)", sourceLocation: sourceLocation)
        let rule = try #require(result.bundle.rules.first { $0.webSocket != nil }, "\(recorded.rules)", sourceLocation: sourceLocation)
        return (rule, try #require(rule.webSocket, sourceLocation: sourceLocation))
    }

    static func replay(_ script: WebSocketScript, _ kind: Kind) -> [WebSocketConversation.Outgoing]? {
        let request = StubRequest(url: URL(string: "https://chat.test/rooms/7?since=1")!, headers: ["Upgrade": "websocket"])
        let message: WebSocketScript.Message
        switch kind {
        case .text(let text): message = .text(text)
        case .binary(let data): message = .binary(data)
        case .close: return nil
        }
        let conversation = WebSocketConversation(script: script, request: request, parameters: [:], hit: 0)
        guard case .reply(_, let steps, _) = conversation.answer(to: message, now: Date()) else { return nil }
        return steps
    }

    /// What the recording's server messages look like as the conversation plays them.
    static func outgoing(_ messages: [WebSocketRecording.TimedMessage]) -> [WebSocketConversation.Outgoing] {
        messages.map { message in
            switch message.kind {
            case .text(let text): return .init(delay: message.delay, action: .send(.text(text)))
            case .binary(let data): return .init(delay: message.delay, action: .send(.binary(data)))
            case .close(let code, let reason): return .init(delay: message.delay, action: .close(code: code ?? 1000, reason: reason))
            }
        }
    }

    @Test("round trip: replaying the client's messages against the written rule yields the server's messages in order, with their delays")
    func roundTrip() throws {
        let recorded = try Self.record([Self.chat], extraHTTP: true)
        let (rule, script) = try Self.script(of: recorded)
        #expect(rule.request.host == "chat.test")
        #expect(script.subprotocol == "chat.v1")
        let (opening, turns) = Self.chat.turns
        #expect(opening.count == 2 && turns.count == 4)
        let conversation = WebSocketConversation(script: script, request: Self.chat.request, parameters: [:], hit: 0)
        #expect(conversation.opening(now: Date()) == Self.outgoing(opening))
        for turn in turns {
            #expect(Self.replay(script, turn.message) == Self.outgoing(turn.answer), "\(turn.message)\n\(recorded.rules)")
        }
        // The plain GET recorded beside it stays its own rule.
        let all = BundleLoader(options: .lint).load(folder: recorded.bundle).bundle.rules
        #expect(all.count == 2)
        #expect(all.filter { $0.webSocket == nil }.count == 1)
    }

    @Test("a JSON client message is matched as JSON: another key order and whitespace get the same reply; JSON server messages stay readable")
    func jsonEquality() throws {
        let recorded = try Self.record([Self.chat])
        let (_, script) = try Self.script(of: recorded)
        #expect(Self.replay(script, .text(#"{"id":9,"type":"order"}"#))?.first?.action == .send(.text(#"{"ack": 9}"#)))
        #expect(Self.replay(script, .text(#"{"id":10,"type":"order"}"#)) == nil, "another id is another message")
        #expect(recorded.rules.contains(#""equalsJSON": {"#), "\(recorded.rules)")
        #expect(recorded.rules.contains(#""json": { "from": "server", "text": "welcome" }"#), "\(recorded.rules)")
    }

    @Test("secrets in the upgrade request and in messages reach no file; a message with a secret field matches on the rest")
    func redaction() throws {
        let conversation = Self.conversation([
            (0.1, .serverToClient, .text("hello, your key is sekret-header-2")),
            (0.2, .clientToServer, .text(#"{"type":"auth","password":"sekret-field-3"}"#)),
            (0.3, .serverToClient, .text(#"{"ok":true,"token":"sekret-token-4"}"#)),
            (0.4, .serverToClient, .text("echo: sekret-field-3")),
            (0.5, .clientToServer, .text("user=ann&password=sekret-form-5")),
            (0.6, .serverToClient, .close(code: 1000, reason: "")),
        ], url: "https://chat.test/rooms/7?access_token=sekret-query-1", headers: ["Authorization": "Bearer sekret-header-2"])
        let recorded = try Self.record([conversation])
        let (_, script) = try Self.script(of: recorded)
        for secret in ["sekret-query-1", "sekret-header-2", "sekret-field-3", "sekret-token-4", "sekret-form-5"] {
            #expect(!recorded.rules.contains(secret), "\(secret) in\n\(recorded.rules)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: recorded.bundle.path).filter { !$0.hasPrefix(".") } == ["stubsRules.json"])
        // The auth message matches on its other fields: a replay with the app's own password gets the answer.
        let answer = try #require(Self.replay(script, .text(#"{"password":"another","type":"auth"}"#)), "\(recorded.rules)")
        #expect(answer.count == 2)
        guard case .send(.text(let redactedJSON))? = answer.first?.action else { Issue.record("\(answer)"); return }
        #expect(JSONValue(parsing: Data(redactedJSON.utf8)) == JSONValue(parsing: Data(#"{"ok":true,"token":"REDACTED"}"#.utf8)))
        #expect(answer.last?.action == .send(.text("echo: REDACTED")))
        let other: [WebSocketScript.Action]? = Self.replay(script, .text(#"{"type":"other"}"#))?.map(\.action)
        #expect(other == [.close(code: 1000, reason: "")],
                "a message whose condition would hold a secret answers as the last, catch-all reply")
        #expect(recorded.outcome.written)
    }

    @Test("a repeated client message that got another answer keeps the first, and the outcome says so; a second conversation on the URL is not written")
    func repeats() throws {
        let first = Self.conversation([
            (0.1, .clientToServer, .text("status?")), (0.2, .serverToClient, .text("preparing")),
            (0.3, .clientToServer, .text("status?")), (0.4, .serverToClient, .text("on its way")),
            (0.5, .clientToServer, .text("status?")), (0.6, .serverToClient, .text("preparing")),
        ])
        let recorded = try Self.record([first])
        let (_, script) = try Self.script(of: recorded)
        #expect(script.replies.count == 1)
        #expect(Self.replay(script, .text("status?"))?.map(\.action) == [.send(.text("preparing"))])
        #expect(recorded.outcome.notes == ["client message 2 repeats an earlier one that got another answer; the rule answers it with the first"])
        let twice = try Self.record([first, Self.conversation([(0.1, .clientToServer, .text("status?")), (0.2, .serverToClient, .text("late"))])])
        #expect(!twice.outcome.written)
        #expect(twice.outcome.notes.first?.contains("recorded earlier in this run") == true)
        #expect(try Self.script(of: twice).1.replies.count == 1)
    }

    @Test("the written rules file validates against the JSON Schema")
    func schema() throws {
        guard ChildProcessRunner.pythonJSONSchemaAvailable else {
            Issue.record("python-jsonschema is not installed (.ci/test-deps installs it)")
            return
        }
        let recorded = try Self.record([Self.chat], extraHTTP: true)
        let file = recorded.bundle.appendingPathComponent("stubsRules.json")
        let out = try ChildProcessRunner.python(["Tests/schema_check.py", JSONSchemaTests.schema.path, file.path])
        let verdicts = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: [String]])
        #expect(verdicts[file.path] == [], "\(verdicts)\n\(recorded.rules)")
    }
}
