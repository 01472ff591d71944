#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// HAR entries with `_webSocketMessages` imported as rules with a `webSocket` script, through the
/// recorder that writes a relayed conversation.
@Suite("HAR import: WebSocket conversations")
struct HARWebSocketImportTests {
    /// What the imported script answers, as a replay would: the opening, then each client message's reply.
    static func replay(_ script: WebSocketScript, url: URL, _ messages: [WebSocketScript.Message]) -> [[WebSocketScript.Action]] {
        let conversation = WebSocketConversation(script: script, request: StubRequest(url: url), parameters: [:], hit: 0)
        var answers = [conversation.opening(now: Date()).map(\.action)]
        for message in messages {
            guard case .reply(_, let steps, _) = conversation.answer(to: message, now: Date()) else { answers.append([]); continue }
            answers.append(steps.map(\.action))
        }
        return answers
    }

    @Test("a conversation StubKit's journal exported as HAR imports back as the same script")
    func stubKitExportRoundTrip() throws {
        let start = Date(timeIntervalSince1970: 1_714_557_600)
        func frame(_ direction: WebSocketMessageRecord.Direction, _ seconds: Double, _ opcode: WebSocketMessageRecord.Opcode, _ data: Data,
                   code: UInt16? = nil) -> WebSocketMessageRecord {
            WebSocketMessageRecord(direction: direction, time: start.addingTimeInterval(seconds), opcode: opcode, data: data, closeCode: code)
        }
        let url = URL(string: "https://chat.test/rooms/7")!
        let journal = StubJournal()
        journal.record { id in
            var entry = JournalEntry(id: id, startedAt: start, duration: 1, request: StubRequest(url: url, headers: ["Sec-WebSocket-Protocol": "chat.v1"]),
                                     bundle: nil, rule: nil, status: 101, responseHeaders: ["Upgrade": "websocket", "Sec-WebSocket-Protocol": "chat.v1"],
                                     responseBody: nil, responseBodySize: 0, passedThrough: true, error: nil, nearMisses: [])
            entry.webSocketMessages = [
                frame(.sent, 0.25, .text, Data("welcome".utf8)),
                frame(.received, 1, .text, Data("hello".utf8)),
                frame(.sent, 1.5, .text, Data("hi".utf8)),
                frame(.received, 2, .ping, Data()),
                frame(.sent, 2, .pong, Data()),
                frame(.received, 3, .binary, Data([0, 1, 0xFF])),
                frame(.sent, 3, .binary, Data([0xFF, 1, 0])),
                frame(.received, 4, .text, Data("bye".utf8)),
                frame(.sent, 4.1, .close, Data("done".utf8), code: 4000),
                frame(.received, 4.2, .close, Data(), code: 4000),
            ]
            return entry
        }
        let folder = try TemporaryFolder()
        let har = try folder.file("journal.har", data: journal.harData())
        let report = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        #expect(report.exitCode == 0, "\(report.notes)")
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        let rule = try #require(rules.first)
        #expect(rules.count == 1)
        #expect(rule.request.host == "chat.test" && rule.request.path?.description == "/rooms/7", "\(rule.request)")
        let script = try #require(rule.webSocket)
        #expect(script.subprotocol == "chat.v1")
        #expect(script.onConnect.first?.delay == 0.25, "the first message's delay counts from the upgrade")
        let answers = Self.replay(script, url: url, [.text("hello"), .binary(Data([0, 1, 0xFF])), .text("bye")])
        #expect(answers == [[.send(.text("welcome"))], [.send(.text("hi"))], [.send(.binary(Data([0xFF, 1, 0])))],
                            [.close(code: 4000, reason: "done")]], "\(answers)")
    }

    @Test("Chrome's shape (send/receive, epoch times, opcode 1 text and 2 base64, a wss URL) becomes a webSocket rule")
    func chromeShape() throws {
        let folder = try TemporaryFolder()
        // As Chrome DevTools writes it ("Save all as HAR with content"), trimmed to what matters.
        let har = try folder.file("chrome.har", data: Data(#"""
        {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"}, "pages": [], "entries": [
          {"_resourceType": "websocket", "startedDateTime": "2024-05-01T10:00:00.000Z", "time": 2000,
           "request": {"method": "GET", "url": "wss://stream.test/feed?room=5", "httpVersion": "HTTP/1.1",
             "headers": [{"name": "Sec-WebSocket-Protocol", "value": "feed.v2"}, {"name": "Authorization", "value": "Bearer s3cr3t-token"}],
             "queryString": [{"name": "room", "value": "5"}], "cookies": [], "headersSize": -1, "bodySize": 0},
           "response": {"status": 101, "statusText": "Switching Protocols", "httpVersion": "HTTP/1.1",
             "headers": [{"name": "Sec-WebSocket-Protocol", "value": "feed.v2"}], "cookies": [],
             "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
           "cache": {}, "timings": {"blocked": -1, "dns": -1, "ssl": -1, "connect": -1, "send": 0, "wait": 0, "receive": 0},
           "_webSocketMessages": [
             {"type": "receive", "time": 1714557600.5, "opcode": 1, "data": "{\"type\":\"hello\",\"token\":\"s3cr3t-token\"}"},
             {"type": "send", "time": 1714557601.0, "opcode": 1, "data": "{\"subscribe\":\"prices\"}"},
             {"type": "receive", "time": 1714557601.25, "opcode": 1, "data": "{\"price\":1}"},
             {"type": "receive", "time": 1714557601.5, "opcode": 2, "data": "AAEC"},
             {"type": "send", "time": 1714557602.0, "opcode": 9, "data": ""},
             {"type": "sideways", "time": 1714557602.0, "opcode": 1, "data": "?"}
           ]}
        ]}}
        """#.utf8))
        let report = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        #expect(report.notes.map(\.description).contains { $0.contains("log.entries[0]") && $0.contains("type 'sideways'") }, "\(report.notes)")
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        let rule = try #require(rules.first)
        #expect(rule.request.host == "stream.test" && rule.request.path?.description == "/feed", "\(rule.request)")
        let script = try #require(rule.webSocket)
        #expect(script.subprotocol == "feed.v2")
        let url = URL(string: "https://stream.test/feed?room=5")!
        let answers = Self.replay(script, url: url, [.text(#"{"subscribe":"prices"}"#)])
        #expect(answers.count == 2 && answers[1] == [.send(.text(#"{"price":1}"#)), .send(.binary(Data([0, 1, 2])))], "\(answers)")
        // The token the app sent in its Authorization header is scrubbed from the server's message.
        guard case .send(.text(let hello))? = answers.first?.first else { Issue.record("no opening: \(answers)"); return }
        #expect(hello.contains(#""token" : "REDACTED""#) && !hello.contains("s3cr3t"), "\(hello)")
        #expect(script.onConnect.first?.delay == 0.5)
    }

    @Test("mitmproxy's WebSocket HAR (../shared/realworld) imports as webSocket rules",
          .enabled(if: PackagePaths.realworldTestsEnabled, "../shared/realworld is absent (CI requires it)"))
    func mitmproxyCapture() throws {
        let root = try #require(PackagePaths.realworld, "../shared/realworld is required when CI=true")
        let file = root.appendingPathComponent("har/mitmproxy+mitmproxy/test/mitmproxy/data/flows/websocket.har")
        let folder = try TemporaryFolder()
        let report = try importFiles([file], to: folder.url.appendingPathComponent("b"))
        #expect(!report.notes.contains { $0.message.contains("status 101") }, "\(report.notes)")
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        let scripts = rules.compactMap(\.webSocket)
        #expect(scripts.count == rules.count && !rules.isEmpty, "\(rules.map(\.displayName))")
        #expect(rules.allSatisfy { $0.request.host == "demo.piesocket.com" })
        let url = URL(string: "https://demo.piesocket.com/v3/channel_123")!
        let missingKey = try #require(rules.first { rule in rule.request.query.isEmpty }?.webSocket)
        #expect(Self.replay(missingKey, url: url, []) == [[.send(.text(#"{"error":"Missing apiKey"}"#))]])
    }
}
#endif
