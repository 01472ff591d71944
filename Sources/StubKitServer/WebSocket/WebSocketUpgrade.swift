#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket
import StubKit

/// One connection's WebSocket upgrade: accepted when the request, routed as every request is, matches
/// a rule with a `webSocket` script; then the HTTP handlers leave the pipeline and a
/// ``WebSocketConnection`` runs the script. Any other request goes on to the HTTP path, which answers it
/// as usual (a plain rule's answer, the near-miss `502`).
///
/// NIO consults the upgrader for a connection's first request only, on the connection's event loop.
final class WebSocketUpgrade: Sendable {
    private let dispatcher: RequestDispatcher
    private let state = NIOLockedValueBox(State())

    private struct State {
        var accepted: Accepted?
        /// The engine's decision for an upgrade request the server declined, so the HTTP path answers
        /// with it instead of asking again (which would count a stateful rule's hit twice).
        var declined: (uri: String, decision: StubEngine.Decision)?
    }

    /// What the upgrade request matched, handed from `shouldUpgrade` to the new pipeline.
    struct Accepted: Sendable {
        var request: ReceivedRequest
        var stubRequest: StubRequest
        var match: StubMatch
        var script: WebSocketScript
        var responseHeaders: [String: String]
    }

    init(dispatcher: RequestDispatcher) {
        self.dispatcher = dispatcher
    }

    var configuration: NIOHTTPServerUpgradeConfiguration {
        let upgrader = NIOWebSocketServerUpgrader(
            // Replaced once the rule (and its maxMessageSize) is known: see `upgrade(_:)`.
            maxFrameSize: 1 << 14,
            // Protocol errors are answered by the connection, which journals the close it sends.
            automaticErrorHandling: false,
            shouldUpgrade: { [self] channel, head in channel.eventLoop.makeSucceededFuture(shouldUpgrade(head)) },
            upgradePipelineHandler: { [self] channel, _ in upgrade(channel) }
        )
        return (upgraders: [upgrader], completionHandler: { _ in })
    }

    /// The decision made for a declined upgrade of this request, once.
    func takeDeclinedDecision(for head: HTTPRequestHead) -> StubEngine.Decision? {
        state.withLockedValue { state in
            defer { state.declined = nil }
            return state.declined?.uri == head.uri ? state.declined?.decision : nil
        }
    }

    /// The extra headers of the `101` (the subprotocol), or `nil` to decline.
    private func shouldUpgrade(_ head: HTTPRequestHead) -> HTTPHeaders? {
        var request = ReceivedRequest(head: head, body: ByteBuffer())
        request.head.uri = HostRouter.originForm(of: head.uri, serverAuthority: dispatcher.authority)
        guard !RequestDispatcher.isAdmin(request.head.uri), case .success(let exchange) = dispatcher.route(request) else { return nil }
        let decision = dispatcher.engine.decision(for: exchange.stubRequest)
        guard case .answer(let match) = decision, let script = match.rule.webSocket else {
            state.withLockedValue { $0.declined = (head.uri, decision) }
            return nil
        }
        // Browsers send `Origin` on every WebSocket: accepted from any origin, like `--cors` answers.
        var headers = HTTPHeaders()
        if let subprotocol = script.subprotocol, Self.offeredSubprotocols(head).contains(subprotocol) {
            headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol)
        }
        var responseHeaders = ["Upgrade": "websocket", "Connection": "Upgrade"]
        for (name, value) in headers { responseHeaders[name] = value }
        state.withLockedValue {
            $0.accepted = Accepted(request: request, stubRequest: exchange.stubRequest, match: match, script: script,
                                   responseHeaders: responseHeaders)
        }
        return headers
    }

    static func offeredSubprotocols(_ head: HTTPRequestHead) -> [String] {
        head.headers[canonicalForm: "sec-websocket-protocol"].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// After the `101`: the HTTP handler leaves, the frame decoder takes the rule's message limit, and
    /// the conversation starts.
    private func upgrade(_ channel: any Channel) -> EventLoopFuture<Void> {
        guard let accepted = state.withLockedValue({ state in defer { state.accepted = nil }; return state.accepted }) else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        let dispatcher = self.dispatcher
        let sync = channel.pipeline.syncOperations
        do {
            let http = try sync.handler(type: ConnectionHandler.self)
            let decoder = try sync.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            return sync.removeHandler(http).assumeIsolated().flatMap { sync.removeHandler(decoder) }.flatMapThrowing {
                // A frame may be as large as a whole message; a larger one is refused (1009) before it is buffered.
                let maxFrameSize = Int(min(Int64(UInt32.max), Int64(max(125, accepted.script.maximumMessageSize))))
                try sync.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
                try sync.addHandler(WebSocketConnection(accepted: accepted, dispatcher: dispatcher))
            }.nonisolated()
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }
}
#endif
