import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Secrets in the parts of a stream the recorder writes besides a body: an event's `id` and `event`,
/// a WebSocket script's messages, a binary (non-UTF-8) server message; each scrubbed whether the secret
/// was known when it was written or learnt from a later request's header.
struct RecordingLateSecretsTests {
    let folder: TemporaryFolder
    let recorder: Recorder

    init() throws {
        folder = try TemporaryFolder()
        recorder = try Recorder(configuration: RecorderConfiguration(template: "late", folder: folder.url))
    }

    var rules: String {
        get throws { try String(contentsOf: folder.url.appendingPathComponent("late/stubsRules.json"), encoding: .utf8) }
    }

    /// A request that teaches the recorder `token` through its `Authorization` header.
    func learn(_ token: String) {
        _ = recorder.record(StubRequest(url: URL(string: "https://api.test/me")!, headers: ["Authorization": "Bearer \(token)"]),
                            status: 200, headers: [:], capture: nil)
    }

    func recordEvents(id: String, event: String) throws {
        let stream = EventStream(events: [EventStream.Event(event: event, data: "x", id: id)])
        _ = try recorder.record(StubRequest(url: URL(string: "https://api.test/feed")!), status: 200,
                                headers: ["Content-Type": "text/event-stream"], events: stream).get()
    }

    @Test("an event's id and event type holding a known secret are written redacted")
    func knownSecretInEventIDAndType() throws {
        learn("sekret-known-1")
        try recordEvents(id: "cursor-sekret-known-1", event: "sekret-known-1")
        let text = try rules
        #expect(!text.contains("sekret-known-1"), "\(text)")
        #expect(text.contains("cursor-REDACTED"), "\(text)")
    }

    @Test("a secret learnt later from a header is scrubbed from an earlier event's id and type")
    func lateSecretInEventID() throws {
        try recordEvents(id: "resume-sekret-late-2", event: "sekret-late-2")
        learn("sekret-late-2")
        let text = try rules
        #expect(!text.contains("sekret-late-2"), "\(text)")
        #expect(text.contains("resume-REDACTED"), "\(text)")
    }

    @Test("a secret learnt later from a header is scrubbed from an earlier WebSocket rule's messages, text and binary")
    func lateSecretInWebSocketScript() throws {
        let token = "sekret-late-3"
        let protobuf = Data([0x0A, 0xFF, 0xFE]) + Data(token.utf8) + Data([0x80])
        let conversation = WebSocketRecordingTests.conversation([
            (0.1, .serverToClient, .text("session \(token)")),
            (0.2, .serverToClient, .binary(protobuf)),
        ])
        _ = try recorder.record(conversation).get()
        learn(token)
        let text = try rules
        #expect(!text.contains(token), "\(text)")
        let rule = try #require(BundleLoader().load(folder: folder.url.appendingPathComponent("late")).bundle.rules.first { $0.webSocket != nil })
        let script = try #require(rule.webSocket)
        let sent = WebSocketConversation(script: script, request: conversation.request, parameters: [:], hit: 0).opening(now: Date()).map(\.action)
        #expect(sent == [.send(.text("session REDACTED")),
                         .send(.binary(Data([0x0A, 0xFF, 0xFE]) + Data("REDACTED".utf8) + Data([0x80])))])
    }

    @Test("a binary server message that is not UTF-8 has a known secret's bytes scrubbed")
    func knownSecretInBinaryMessage() throws {
        learn("sekret-known-4")
        let conversation = WebSocketRecordingTests.conversation([
            (0.1, .serverToClient, .binary(Data([0xFF]) + Data("sekret-known-4".utf8))),
        ])
        _ = try recorder.record(conversation).get()
        let rule = try #require(BundleLoader().load(folder: folder.url.appendingPathComponent("late")).bundle.rules.first { $0.webSocket != nil })
        let sent = WebSocketConversation(script: try #require(rule.webSocket), request: conversation.request, parameters: [:], hit: 0).opening(now: Date()).map(\.action)
        #expect(sent == [.send(.binary(Data([0xFF]) + Data("REDACTED".utf8)))])
    }
}
