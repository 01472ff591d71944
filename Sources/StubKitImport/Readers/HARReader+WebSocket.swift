#if Tools
import Foundation
import StubKit

/// A HAR entry with `_webSocketMessages` (Chrome DevTools, mitmproxy and StubKit's own export write
/// them): the conversation, for the recorder to write as a `webSocket` rule.
extension HARReader {
    static func webSocket(_ entry: HAR.Entry, method: String, url text: String, messages: [HAR.WebSocketMessage], source: String,
                          dates: ExchangeBuilder.DateParser, into batch: inout ImportBatch) {
        // Browsers write the ws/wss URL; rules see the http/https one the upgrade request was.
        guard var components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              let mapped = ["ws": "http", "wss": "https", "http": "http", "https": "https"][scheme], components.host != nil else {
            batch.note(source, "the URL '\(text)' is not an absolute ws(s) or http(s) URL; entry not imported")
            return
        }
        components.scheme = mapped
        guard let url = components.url else {
            batch.note(source, "the URL '\(text)' is not an absolute ws(s) or http(s) URL; entry not imported")
            return
        }
        var recorded: [WebSocketRecording.Message] = []
        var skipped: [String] = []
        for (index, message) in messages.enumerated() {
            let direction: WebSocketRecording.Direction
            switch message.type {
            case "send": direction = .clientToServer
            case "receive": direction = .serverToClient
            default:
                skipped.append("_webSocketMessages[\(index)] has type '\(message.type)' (expected 'send' or 'receive')")
                continue
            }
            let kind: WebSocketRecording.Kind
            switch message.opcode {
            case 1:
                kind = .text(message.data)
            case 2:
                guard let data = Data(base64Encoded: message.data, options: .ignoreUnknownCharacters) else {
                    skipped.append("_webSocketMessages[\(index)] is a binary frame whose data is not base64")
                    continue
                }
                kind = .binary(data)
            case 8:
                kind = .close(code: message.closeCode.flatMap { UInt16(exactly: $0) }, reason: message.data)
            default:
                // Pings and pongs are keep-alives, not conversation.
                continue
            }
            recorded.append(.init(direction, kind, at: Date(timeIntervalSince1970: message.time)))
        }
        for problem in skipped { batch.note(source, "\(problem); that message is left out") }
        let headers = Dictionary(pairs(entry.request?.headers).filter { !$0.0.hasPrefix(":") }, uniquingKeysWith: { first, next in first + ", " + next })
        let subprotocol = pairs(entry.response?.headers).first { $0.0.lowercased() == "sec-websocket-protocol" }?.1
        // The first onConnect delay counts from the upgrade: the entry's start, unless a frame says otherwise.
        let first = recorded.map(\.time).min()
        let started = entry.startedDateTime.flatMap(dates.date)
        let openedAt = [started, first].compactMap { $0 }.min() ?? Date(timeIntervalSince1970: 0)
        let request = StubRequest(method: method.uppercased(), url: url, headers: headers)
        let recording = WebSocketRecording(request: request, subprotocol: subprotocol, openedAt: openedAt, messages: recorded)
        batch.entries.append(.webSocket(.init(source: source, recording: recording)))
    }
}
#endif
