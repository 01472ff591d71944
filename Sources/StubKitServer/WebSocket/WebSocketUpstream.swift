#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import StubKit

/// A WebSocket connection from the local server to the real server, for `--forward` and `--record`: it
/// opens the upgrade with the app's headers, then relays whole messages both ways.
///
/// Messages from the real server arrive whole (fragments reassembled, up to the largest message size)
/// through `onMessage`, on the connection's event loop; its pings are answered here. The close, the
/// real server's or an abnormal end (1006), arrives once through `onClose`. Back-pressure: while
/// ``pauseReading()`` holds (the app's side is not writable), nothing more is read from the real
/// server, and the few messages already read wait here until ``resumeReading()``.
///
/// `wss://` opens TLS first (``UpstreamTLS``): the system's trust roots and any extra certificate
/// authorities, the certificate verified against the URL's host.
package final class WebSocketUpstream: Sendable {
    /// How a connection ended.
    package struct Close: Sendable, Hashable {
        /// The real server's close code; 1005 when its close frame had none, 1006 when the connection
        /// ended without a close frame.
        package var code: UInt16
        package var reason: String

        package init(code: UInt16, reason: String) {
            self.code = code
            self.reason = reason
        }
    }

    /// Why the connection could not be opened, in words for the app's developer.
    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Request headers that belong to this hop's handshake, never copied to the real server's.
    /// Extensions are dropped because the relay speaks none (no permessage-deflate).
    static let handshakeHeaders: Set<String> = ["host", "connection", "upgrade", "sec-websocket-key", "sec-websocket-version",
                                                "sec-websocket-extensions", "sec-websocket-accept", "content-length",
                                                "transfer-encoding", "keep-alive", "proxy-connection", "te", "trailer"]

    package let channel: any Channel
    /// The subprotocol the real server accepted (`Sec-WebSocket-Protocol` of its answer).
    package let subprotocol: String?

    private init(channel: any Channel, subprotocol: String?) {
        self.channel = channel
        self.subprotocol = subprotocol
    }

    /// Opens a WebSocket to `url` (`ws://`, `wss://`, or `http://`, `https://` for the same) with the headers of the app's upgrade `request`
    /// that matter to the real server (subprotocols, cookies, authorization, origin and the rest, less
    /// this hop's handshake).
    ///
    /// - Parameters:
    ///   - tls: how a `wss://` server's certificate is checked; `nil` trusts the system's roots alone.
    ///   - maximumMessageSize: the largest message reassembled from the real server; a larger one closes
    ///     the connection with 1009.
    ///   - onMessage: each whole text or binary message, in order, on the connection's event loop.
    ///   - onClose: once, when the connection ends.
    /// - Returns: the open connection, or a failed future with a ``Failure`` that says what went wrong
    ///   (refused, not a WebSocket server, a certificate that is not trusted).
    package static func connect(to url: URL, request: StubRequest, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
                                tls: UpstreamTLS? = nil,
                                maximumMessageSize: Int = WebSocketScript.defaultMaximumMessageSize,
                                onMessage: @escaping @Sendable (WebSocketScript.Message) -> Void,
                                onClose: @escaping @Sendable (Close) -> Void) -> EventLoopFuture<WebSocketUpstream> {
        let eventLoop = group.next()
        let scheme = url.scheme?.lowercased() ?? ""
        let secure = scheme == "wss" || scheme == "https"
        guard secure || scheme == "ws" || scheme == "http" else {
            return eventLoop.makeFailedFuture(Failure(description: "\(url.absoluteString): not a ws:// or wss:// URL"))
        }
        guard let host = url.host, !host.isEmpty else {
            return eventLoop.makeFailedFuture(Failure(description: "\(url.absoluteString): the URL names no host"))
        }
        let port = url.port ?? (secure ? 443 : 80)
        let trust: UpstreamTLS?
        do {
            trust = secure ? try tls ?? UpstreamTLS() : nil
        } catch {
            return eventLoop.makeFailedFuture(Failure(description: "\(error)"))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) where !handshakeHeaders.contains(name.lowercased()) {
            headers.add(name: name, value: value)
        }
        var target = url.path(percentEncoded: true)
        if target.isEmpty { target = "/" }
        if let query = url.query(percentEncoded: true) { target += "?" + query }
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: target, headers: headers)
        let upgraded = eventLoop.makePromise(of: String?.self)
        let size = max(maximumMessageSize, 125)

        let bootstrap = ClientBootstrap(group: eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connectTimeout(.seconds(10))
            .channelInitializer { channel in
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: size, automaticErrorHandling: true) { channel, response in
                    channel.eventLoop.makeCompletedFuture {
                        let sync = channel.pipeline.syncOperations
                        try sync.addHandler(NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1 << 16,
                                                                         maxAccumulatedFrameSize: size))
                        try sync.addHandler(WebSocketUpstreamHandler(onMessage: onMessage, onClose: onClose))
                    }.map {
                        upgraded.succeed(response.headers.first(name: "Sec-WebSocket-Protocol"))
                    }
                }
                return channel.eventLoop.makeCompletedFuture {
                    if let trust { try channel.pipeline.syncOperations.addHandler(trust.handler(host: host)) }
                    let requestHandler = WebSocketUpgradeRequestHandler(head: head, url: url, upgraded: upgraded)
                    // Frames the real server sends right behind its 101 can arrive in the same read: forwarded
                    // to the WebSocket decoder, not dropped with the HTTP decoder.
                    try channel.pipeline.syncOperations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes, withClientUpgrade: (upgraders: [upgrader], completionHandler: { context in
                        context.pipeline.syncOperations.removeHandler(requestHandler, promise: nil)
                    }))
                    try channel.pipeline.syncOperations.addHandler(requestHandler)
                }
            }
        return bootstrap.connect(host: host, port: port)
            .flatMapError { error in
                upgraded.fail(error)
                return eventLoop.makeFailedFuture(Failure(description: "cannot connect to the real WebSocket server at \(url.absoluteString): \(error)"))
            }
            .flatMap { channel in
                upgraded.futureResult.map { WebSocketUpstream(channel: channel, subprotocol: $0) }
                    .flatMapErrorThrowing { error in
                        channel.close(promise: nil)
                        throw error
                    }
            }
    }

    /// Sends one whole message to the real server.
    @discardableResult
    package func send(_ message: WebSocketScript.Message) -> EventLoopFuture<Void> {
        let frame: WebSocketFrame
        switch message {
        case .text(let text): frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: ByteBuffer(string: text))
        case .binary(let data): frame = WebSocketFrame(fin: true, opcode: .binary, maskKey: .random(), data: ByteBuffer(bytes: data))
        }
        return channel.writeAndFlush(frame)
    }

    /// Starts the closing handshake (the app closed); `onClose` follows with the real server's answer.
    @discardableResult
    package func close(code: UInt16 = 1000, reason: String = "") -> EventLoopFuture<Void> {
        let channel = self.channel
        return channel.eventLoop.flatSubmit {
            let handler = try? channel.pipeline.syncOperations.handler(type: WebSocketUpstreamHandler.self)
            return handler?.startClosing(code: code, reason: reason) ?? channel.eventLoop.makeSucceededVoidFuture()
        }
    }

    /// Stops reading from the real server (the app's side is not writable): messages already read are
    /// held until ``resumeReading()``.
    @discardableResult
    package func pauseReading() -> EventLoopFuture<Void> { setPaused(true) }

    /// Reads again, delivering the held messages first, in order.
    @discardableResult
    package func resumeReading() -> EventLoopFuture<Void> { setPaused(false) }

    /// Whether the real server's side takes more now; when not, stop reading the app's messages until
    /// the channel's writability changes back.
    package var isWritable: Bool { channel.isWritable }

    private func setPaused(_ paused: Bool) -> EventLoopFuture<Void> {
        let channel = self.channel
        return channel.eventLoop.submit {
            guard let handler = try? channel.pipeline.syncOperations.handler(type: WebSocketUpstreamHandler.self) else { return }
            if paused { handler.pause() } else { handler.resume() }
        }
    }
}
#endif
