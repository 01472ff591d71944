#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket
import StubKit

/// The relay's end of an open WebSocket to the real server: whole messages out through `onMessage`,
/// pings answered, the close handshake, and reads held while the app's side cannot take more.
final class WebSocketUpstreamHandler: ChannelDuplexHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    private let onMessage: @Sendable (WebSocketScript.Message) -> Void
    private let onClose: @Sendable (WebSocketUpstream.Close) -> Void
    private var context: ChannelHandlerContext?
    private var paused = false
    /// A read the channel asked for while paused, issued on resume.
    private var readPending = false
    /// Messages read after the pause began (one read's worth at most, since no read follows it).
    private var held: [WebSocketScript.Message] = []
    private var closeSent = false
    private var closeReported = false

    init(onMessage: @escaping @Sendable (WebSocketScript.Message) -> Void, onClose: @escaping @Sendable (WebSocketUpstream.Close) -> Void) {
        self.onMessage = onMessage
        self.onClose = onClose
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            var data = frame.unmaskedData
            deliver(.text(data.readString(length: data.readableBytes) ?? ""))
        case .binary:
            var data = frame.unmaskedData
            deliver(.binary(Data(data.readBytes(length: data.readableBytes) ?? [])))
        case .ping:
            guard !closeSent else { return }
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
        case .connectionClose:
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self) ?? 1005
            let reason = data.readString(length: data.readableBytes) ?? ""
            report(WebSocketUpstream.Close(code: code, reason: reason))
            if closeSent {
                context.close(promise: nil)
            } else {
                // Echo the code (RFC 6455 section 5.5.1), then close once it is written.
                closeSent = true
                var echo = context.channel.allocator.buffer(capacity: 2)
                if code != 1005 { echo.writeInteger(code) }
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: echo)))
                    .assumeIsolated().whenComplete { _ in context.close(promise: nil) }
            }
        default:
            break
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        report(WebSocketUpstream.Close(code: 1006, reason: "the connection ended without a close frame"))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func read(context: ChannelHandlerContext) {
        if paused { readPending = true } else { context.read() }
    }

    func pause() { paused = true }

    func resume() {
        guard paused, let context else { return }
        paused = false
        let messages = held
        held = []
        messages.forEach(onMessage)
        if readPending {
            readPending = false
            context.read()
        }
    }

    /// Sends a close frame; the real server's answer closes the connection.
    func startClosing(code: UInt16, reason: String) -> EventLoopFuture<Void>? {
        guard let context, !closeSent else { return nil }
        closeSent = true
        var data = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        data.writeInteger(code)
        data.writeString(reason)
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: data)))
    }

    private func deliver(_ message: WebSocketScript.Message) {
        if paused { held.append(message) } else { onMessage(message) }
    }

    private func report(_ close: WebSocketUpstream.Close) {
        guard !closeReported else { return }
        closeReported = true
        // Messages held by a pause come first: the close is the last thing the app hears.
        let messages = held
        held = []
        messages.forEach(onMessage)
        onClose(close)
    }
}

/// Sends the upgrade request once connected, and turns a refusal (any answer but 101, or a connection
/// that ends first) into a ``WebSocketUpstream/Failure`` that names the URL and the answer.
final class WebSocketUpgradeRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let head: HTTPRequestHead
    private let url: URL
    private let upgraded: EventLoopPromise<String?>
    private var failed = false

    init(head: HTTPRequestHead, url: URL, upgraded: EventLoopPromise<String?>) {
        self.head = head
        self.url = url
        self.upgraded = upgraded
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let response) = unwrapInboundIn(data) {
            fail(context: context, "the server at \(url.absoluteString) answered \(response.status.code) \(response.status.reasonPhrase) instead of switching to WebSocket (101)")
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(context: context, UpstreamTLS.explain(error, url: url) ?? "the WebSocket upgrade with \(url.absoluteString) failed: \(error)")
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(context: context, "the server at \(url.absoluteString) closed the connection before accepting the WebSocket upgrade")
        context.fireChannelInactive()
    }

    private func fail(context: ChannelHandlerContext, _ reason: String) {
        guard !failed else { return }
        failed = true
        upgraded.fail(WebSocketUpstream.Failure(description: reason))
        context.close(promise: nil)
    }
}
#endif
