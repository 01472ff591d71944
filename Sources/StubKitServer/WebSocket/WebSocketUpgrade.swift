#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOWebSocket
import StubKit

/// One connection's WebSocket upgrade: accepted when the request, routed as every request is, matches
/// a rule with a `webSocket` script; then the HTTP handlers leave the pipeline and a
/// ``WebSocketConnection`` runs the script. An upgrade the engine passes through (`--forward`, `--record`)
/// is relayed to the real server by a ``WebSocketRelay``. Any other request goes on to the HTTP path,
/// which answers it as usual (a plain rule's answer, the near-miss `502`, the relay's refusal).
///
/// NIO consults the upgrader for a connection's first request only, on the connection's event loop.
final class WebSocketUpgrade: Sendable {
    private let dispatcher: RequestDispatcher
    private let state = NIOLockedValueBox(State())

    private struct State {
        var accepted: Accepted?
        var relay: NIOLoopBound<WebSocketRelay>?
        /// The engine's decision for an upgrade request the server declined, so the HTTP path answers
        /// with it instead of asking again (which would count a stateful rule's hit twice).
        var declined: (uri: String, declined: Declined)?
    }

    /// Why an upgrade went on to the HTTP path.
    struct Declined: Sendable {
        var decision: StubEngine.Decision
        /// Why the real server refused a relayed upgrade, for the `502`.
        var relayFailure: String?
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
            shouldUpgrade: { [self] channel, head in shouldUpgrade(head, on: channel) },
            upgradePipelineHandler: { [self] channel, _ in upgrade(channel) }
        )
        return (upgraders: [upgrader], completionHandler: { _ in })
    }

    /// The decision made for a declined upgrade of this request, once.
    func takeDeclined(for head: HTTPRequestHead) -> Declined? {
        state.withLockedValue { state in
            defer { state.declined = nil }
            return state.declined?.uri == head.uri ? state.declined?.declined : nil
        }
    }

    /// The extra headers of the `101` (the subprotocol), or `nil` to decline.
    private func shouldUpgrade(_ head: HTTPRequestHead, on channel: any Channel) -> EventLoopFuture<HTTPHeaders?> {
        var request = ReceivedRequest(head: head, body: ByteBuffer())
        request.head.uri = HostRouter.originForm(of: head.uri, serverAuthority: dispatcher.authority)
        guard !RequestDispatcher.isAdmin(request.head.uri), case .success(let exchange) = dispatcher.route(request) else {
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        let decision = dispatcher.engine.decision(for: exchange.stubRequest)
        if case .passThrough = decision, exchange.routed.stubbedHost != nil {
            return relay(request, exchange.stubRequest, uri: head.uri, on: channel)
        }
        guard case .answer(let match) = decision, let script = match.rule.webSocket else {
            state.withLockedValue { $0.declined = (head.uri, Declined(decision: decision)) }
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        if let recorder = dispatcher.engine.recorder, recorder.records(exchange.stubRequest) { recorder.noteReplayed() }
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
        return channel.eventLoop.makeSucceededFuture(headers)
    }

    /// Connects to the real server first, so the app's `101` carries the subprotocol it chose, and a
    /// refusal is answered on the HTTP path.
    private func relay(_ request: ReceivedRequest, _ stubRequest: StubRequest, uri: String, on channel: any Channel) -> EventLoopFuture<HTTPHeaders?> {
        WebSocketRelay.open(request: request, stubRequest: stubRequest, on: channel, engine: dispatcher.engine)
            .map { [self] relay in
                var headers = HTTPHeaders()
                if let subprotocol = relay.value.subprotocol { headers.add(name: "Sec-WebSocket-Protocol", value: subprotocol) }
                state.withLockedValue { $0.relay = relay }
                return headers
            }
            .recover { [self] error in
                let declined = Declined(decision: .passThrough, relayFailure: "\(error)")
                state.withLockedValue { $0.declined = (uri, declined) }
                return nil
            }
    }

    static func offeredSubprotocols(_ head: HTTPRequestHead) -> [String] {
        head.headers[canonicalForm: "sec-websocket-protocol"].map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// After the `101`: the HTTP handler leaves, the frame decoder takes the rule's message limit (the
    /// relay's, for a relayed upgrade), and the conversation starts.
    private func upgrade(_ channel: any Channel) -> EventLoopFuture<Void> {
        let (accepted, relay) = state.withLockedValue { state in
            defer { state.accepted = nil; state.relay = nil }
            return (state.accepted, state.relay)
        }
        guard accepted != nil || relay != nil else {
            return channel.eventLoop.makeFailedFuture(NIOWebSocketUpgradeError.unsupportedWebSocketTarget)
        }
        let dispatcher = self.dispatcher
        let sync = channel.pipeline.syncOperations
        do {
            let http = try sync.handler(type: ConnectionHandler.self)
            let decoder = try sync.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
            return sync.removeHandler(http).assumeIsolated().flatMap { sync.removeHandler(decoder) }.flatMapThrowing {
                // A frame may be as large as a whole message; a larger one is refused (1009) before it is buffered.
                let limit = accepted?.script.maximumMessageSize ?? WebSocketRelay.maximumMessageSize
                let maxFrameSize = Int(min(Int64(UInt32.max), Int64(max(125, limit))))
                try sync.addHandler(ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)))
                if let accepted {
                    try sync.addHandler(WebSocketConnection(accepted: accepted, dispatcher: dispatcher))
                } else if let relay {
                    // The relay passes whole messages on: fragments are joined here, within the same limit.
                    try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                                     maxAccumulatedFrameSize: maxFrameSize))
                    try sync.addHandler(relay.value)
                }
            }.nonisolated()
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
    }
}
#endif
