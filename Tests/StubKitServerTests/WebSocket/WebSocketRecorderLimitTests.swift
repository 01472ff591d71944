#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// A relayed WebSocket that never ends (a live feed) is recorded up to a limit: the rule keeps what came
/// before, and the recording's summary says where it was cut, instead of the server's memory growing.
@Suite
struct WebSocketRecorderLimitTests {
    static let url = URL(string: "ws://feed.test/prices")!

    static func record(limits: (messages: Int, bytes: Int), _ feed: (WebSocketRecorder) -> Void) throws -> (script: WebSocketScript?, problems: [String]) {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "feed", folder: folder.url))
        let webSocket = WebSocketRecorder(recorder: recorder, request: StubRequest(url: url), subprotocol: nil, limits: limits)
        feed(webSocket)
        _ = webSocket.finish()
        let loaded = BundleLoader(options: .lint).load(folder: folder.url.appendingPathComponent("feed"))
        #expect(loaded.diagnostics.isEmpty, "\(loaded.diagnostics)")
        return (loaded.bundle.rules.first?.webSocket, recorder.summary.problems)
    }

    @Test("past the message limit nothing more is kept; the rule holds the first messages and the summary says so")
    func messageLimit() throws {
        let (script, problems) = try Self.record(limits: (messages: 3, bytes: 1 << 20)) { recorder in
            for n in 1...50 { recorder.note(.serverToClient, .text("price \(n)")) }
        }
        #expect(script?.onConnect.map(\.action) == [.send(.text("price 1")), .send(.text("price 2")), .send(.text("price 3"))])
        #expect(problems.count == 1)
        #expect(problems.first?.contains("passed 3 messages") == true, "\(problems)")
    }

    @Test("past the byte limit nothing more is kept, even small messages after it")
    func byteLimit() throws {
        let (script, problems) = try Self.record(limits: (messages: 100, bytes: 10)) { recorder in
            recorder.note(.serverToClient, .text("12345"))
            recorder.note(.serverToClient, .text("678901"))
            recorder.note(.serverToClient, .text("x"))
        }
        #expect(script?.onConnect.map(\.action) == [.send(.text("12345"))])
        #expect(problems.count == 1)
    }
}
#endif
