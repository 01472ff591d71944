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
    /// How relays to `wss://` servers check certificates.
    private let upstreamTLS: UpstreamTLS?
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
        /// The engine's decision; `nil` when the upgrade was refused before the engine was asked.
        var decision: StubEngine.Decision?
        /// Why the real server refused a relayed upgrade, for the `502`.
        var relayFailure: String?
        /// Why the server refused the upgrade itself (its origin, its subprotocols), with the status to answer.
        var refusal: (status: Int, reason: String)?
    }

    /// What the upgrade request matched, handed from `shouldUpgrade` to the new pipeline.
    struct Accepted: Sendable {
        var request: ReceivedRequest
        var stubRequest: StubRequest
        var match: StubMatch
        var script: WebSocketScript
        var responseHeaders: [String: String]
    }

    init(dispatcher: RequestDispatcher, upstreamTLS: UpstreamTLS?) {
        self.dispatcher = dispatcher
        self.upstreamTLS = upstreamTLS
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
        if let reason = refusedOrigin(head) {
            state.withLockedValue { $0.declined = (head.uri, Declined(refusal: (403, reason))) }
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
        // A client that offers subprotocols fails the handshake when none is chosen (browsers: "Sent non-empty
        // 'Sec-WebSocket-Protocol' header but no response was received"): refused here, saying which.
        let offered = Self.offeredSubprotocols(head)
        if !offered.isEmpty, !offered.contains(where: { $0 == script.subprotocol }) {
            let accepts = script.subprotocol.map { "accepts only '\($0)'" } ?? "names no 'subprotocol'"
            let reason = "rule \(match.rule.displayName) in \(match.bundle) (\(match.rule.source.locationDescription)) \(accepts), and the client offered \(offered.map { "'\($0)'" }.joined(separator: ", ")); set the rule's webSocket 'subprotocol' to the one the app uses"
            state.withLockedValue { $0.declined = (head.uri, Declined(decision: decision, refusal: (400, reason))) }
            return channel.eventLoop.makeSucceededFuture(nil)
        }
        if let recorder = dispatcher.engine.recorder, recorder.records(exchange.stubRequest) { recorder.noteReplayed() }
        var headers = HTTPHeaders()
        if let subprotocol = script.subprotocol, offered.contains(subprotocol) {
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
        WebSocketRelay.open(request: request, stubRequest: stubRequest, on: channel, engine: dispatcher.engine, tls: upstreamTLS)
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

    /// Why an upgrade from a web page is refused: WebSockets are outside the browser's same-origin
    /// rules, so without this any site the developer visits could open `ws://127.0.0.1:PORT`, read the
    /// stubs and move the scenarios of a running test. Native clients send no `Origin` or a loopback one;
    /// pages on loopback (a test's own page) are accepted, and `--cors` accepts every origin.
    func refusedOrigin(_ head: HTTPRequestHead) -> String? {
        guard !dispatcher.configuration.cors, let origin = head.headers.first(name: "origin") else { return nil }
        if let host = URLComponents(string: origin)?.host, Self.isLoopback(host) { return nil }
        return "a WebSocket upgrade from the web page origin '\(origin)' is refused: only pages on this machine's loopback may open one, so that another site cannot reach the stubs; run stubkit serve with --cors to accept every origin"
    }

    static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host.hasPrefix("127.")
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
