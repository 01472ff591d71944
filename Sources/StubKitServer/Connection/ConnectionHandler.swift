#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// A request as it arrived: head and whole body.
struct ReceivedRequest {
    var head: HTTPRequestHead
    var body: ByteBuffer
    var startedAt = Date()
    var startTime = DispatchTime.now()

    var method: String { head.method.rawValue }
    var isHead: Bool { head.method == .HEAD }
}

/// Fired through each connection's pipeline when the server begins to shut down.
struct ServerShuttingDown: Sendable {}

/// How a connection ends without an answer, for simulated network errors.
enum ConnectionDrop {
    /// Closed: the client sees the connection closed before any response.
    case close
    /// Reset (`SO_LINGER` 0): the client sees the connection reset.
    case reset
    /// Held open with no answer until the client gives up or the hold limit passes.
    case hold(TimeInterval)
    /// A line that is not HTTP, then closed: the client sees a response it cannot parse.
    case garbage
}

/// One HTTP/1.1 connection, on its event loop. The engine's handlers before it (request decoder,
/// response encoder, pipelining and protocol-error handling) deal with keep-alive, pipelined requests
/// and malformed HTTP; this handler collects each request (refusing bodies over the limit), closes
/// connections that send no request head in time, and writes what the dispatcher answers.
final class ConnectionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let dispatcher: RequestDispatcher
    private var context: ChannelHandlerContext?
    private var head: HTTPRequestHead?
    private var body = ByteBuffer()
    /// The request's body was refused: the rest of it is read and dropped.
    private var discarding = false
    /// Fires at or before ``headDeadline``; moved lazily (checked when it fires) rather than
    /// cancelled and scheduled again for every request.
    private var headTimer: Scheduled<Void>?
    /// When the connection must have sent a whole request head (and body); `nil` while answering.
    private var headDeadline: NIODeadline?
    private var holdTimer: Scheduled<Void>?
    private var responding = false
    private var keepAlive = true
    private var version = HTTPVersion.http1_1
    private(set) var shuttingDown = false
    /// Answers a long poll (an admin wait) or ends an event stream at once when the server shuts down,
    /// rather than holding the shutdown for its grace period and then dropping the connection.
    var answerAtShutdown: (() -> Void)?

    /// The connection's WebSocket upgrade, which keeps the engine's decision for an upgrade it declined.
    private let webSocketUpgrade: WebSocketUpgrade?

    init(dispatcher: RequestDispatcher, webSocketUpgrade: WebSocketUpgrade? = nil) {
        self.dispatcher = dispatcher
        self.webSocketUpgrade = webSocketUpgrade
    }

    var eventLoop: any EventLoop { context!.eventLoop }
    var isActive: Bool { context?.channel.isActive ?? false }
    var allocator: ByteBufferAllocator { context?.channel.allocator ?? ByteBufferAllocator() }

    // MARK: Events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { armHeadTimer() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimers()
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        armHeadTimer()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimers()
        let actions = onClose.values
        onClose = [:]
        actions.forEach { $0() }
        context.fireChannelInactive()
    }

    /// Run once when the connection closes (a forward in flight is cancelled then); removed by the
    /// key when no longer needed.
    var onClose: [ObjectIdentifier: () -> Void] = [:]

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ServerShuttingDown {
            shuttingDown = true
            if let answer = answerAtShutdown {
                answerAtShutdown = nil
                answer()
                return
            }
            // A held connection (simulated time-out) ends now; an answer in flight finishes first.
            if holdTimer != nil { close() }
            if !responding { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // The body has as long as the head had: a client trickling a body cannot hold the connection either.
            armHeadTimer()
            self.head = head
            body.clear()
            discarding = false
            keepAlive = head.isKeepAlive
            version = head.version
            let limit = dispatcher.configuration.maximumRequestBodySize
            if let declared = head.headers.first(name: "content-length").flatMap(Int.init), declared > limit {
                refuseBody(declared: declared)
            } else if head.headers.first(name: "expect")?.lowercased() == "100-continue" {
                // The client waits for this before sending a large body (curl: bodies over 1 MB).
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
        case .body(var chunk):
            guard !discarding else { return }
            let limit = dispatcher.configuration.maximumRequestBodySize
            if body.readableBytes + chunk.readableBytes > limit {
                refuseBody(declared: nil)
                return
            }
            body.writeBuffer(&chunk)
        case .end:
            guard let head, !discarding else {
                if discarding { close() }
                return
            }
            self.head = nil
            headDeadline = nil
            responding = true
            let declined = body.readableBytes == 0 ? webSocketUpgrade?.takeDeclined(for: head) : nil
            dispatcher.dispatch(ReceivedRequest(head: head, body: body), on: self, decided: declined?.decision, relayFailure: declined?.relayFailure,
                                refusal: declined?.refusal)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A WebSocket upgrade declined (no WebSocket rule, a bad handshake): the request goes on as plain HTTP.
        if error is NIOWebSocketUpgradeError { return }
        context.close(promise: nil)
    }

    // MARK: Writing (for the dispatcher, on the event loop)

    /// A whole answer; `headOnly` leaves the body out (HEAD) but keeps its `Content-Length`.
    func send(status: Int, headers: [(String, String)], body: ByteBuffer?, headOnly: Bool = false) {
        send(status: status, fields: HTTPHeaders(headers), body: body, headOnly: headOnly)
    }

    /// A whole answer whose head fields are ready.
    func send(status: Int, fields: HTTPHeaders, body: ByteBuffer?, headOnly: Bool = false) {
        sendHead(status: status, fields: fields)
        if let body, !headOnly, !Self.isBodyless(status), body.readableBytes > 0 {
            context?.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        finish()
    }

    /// A status whose answer ends with its head (RFC 9110): a body written after it would be read as the next answer.
    static func isBodyless(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    func sendHead(status: Int, headers: [(String, String)]) {
        sendHead(status: status, fields: HTTPHeaders(headers))
    }

    func sendHead(status: Int, fields: HTTPHeaders) {
        guard let context else { return }
        var fields = fields
        if !keepAlive || shuttingDown {
            fields.replaceOrAdd(name: "Connection", value: "close")
        } else if version.major == 1 && version.minor == 0 {
            // An HTTP/1.0 client keeps the connection only when the answer says so.
            fields.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(version: version, status: HTTPResponseStatus(statusCode: status), headers: fields)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
    }

    /// Writes and flushes a chunk; the future completes when it was handed to the socket.
    func sendChunk(_ chunk: ByteBuffer) -> EventLoopFuture<Void> {
        guard let context else { return dispatcherLoopFailure() }
        return context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(chunk))))
    }

    /// Sends what was written so far (a streamed answer's head, before its first part is due).
    func flush() {
        context?.flush()
    }

    /// The connection closes once this answer ends: an answer without a length (an event stream to an
    /// HTTP/1.0 client) ends only when the connection does.
    func closeAfterAnswer() {
        keepAlive = false
    }

    func finish() {
        guard let context else { return }
        let closes = !keepAlive || shuttingDown
        // Before the write: writing `.end` hands a pipelined request waiting behind this one to
        // `channelRead` at once, and its answer (delayed, say) must not find this one's state reset after it.
        responding = false
        if !closes { armHeadTimer() }
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { [weak self] _ in
            guard let self else { return }
            if closes { self.close() }
        }
    }

    /// Ends the connection without an answer (a simulated network error).
    func drop(_ how: ConnectionDrop) {
        guard let context else { return }
        responding = false
        switch how {
        case .close:
            close()
        case .reset:
            // SO_LINGER 0: the close sends RST instead of FIN.
            guard let socket = context.channel as? any SocketOptionProvider else {
                close()
                return
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).hop(to: context.eventLoop)
                .assumeIsolated().whenComplete { [weak self] _ in self?.close() }
        case .hold(let limit):
            holdTimer = context.eventLoop.assumeIsolated().scheduleTask(in: RequestDispatcher.duration(limit)) { [weak self] in
                self?.close()
            }
            if shuttingDown { close() }
        case .garbage:
            var buffer = context.channel.allocator.buffer(capacity: 32)
            buffer.writeString("NOT-HTTP garbage\r\n\r\n")
            // Written from the response encoder's place, so the raw bytes go to the socket as they are.
            guard let encoder = try? context.pipeline.syncOperations.context(handlerType: HTTPResponseEncoder.self) else {
                close()
                return
            }
            encoder.writeAndFlush(NIOAny(buffer)).assumeIsolated().whenComplete { [weak self] _ in self?.close() }
        }
    }

    func close() {
        cancelTimers()
        context?.close(promise: nil)
    }

    // MARK: Limits

    private func refuseBody(declared: Int?) {
        discarding = true
        let limit = dispatcher.configuration.maximumRequestBodySize
        let size = declared.map { "\($0) bytes" } ?? "more than \(limit) bytes"
        keepAlive = false
        responding = true
        dispatcher.refuse(status: 413, reason: "the request body (\(size)) is over the server's limit of \(limit) bytes (--max-body)", on: self)
    }

    private func armHeadTimer() {
        guard context != nil, !responding else { return }
        let timeout = dispatcher.configuration.requestHeadTimeout
        let deadline = NIODeadline.now() + RequestDispatcher.duration(timeout)
        headDeadline = deadline
        // Per request: a timer already set fires earlier and moves itself to the new deadline then.
        if headTimer == nil { scheduleHeadTimer(at: deadline) }
    }

    private func scheduleHeadTimer(at deadline: NIODeadline) {
        guard let context else { return }
        headTimer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [weak self] in
            guard let self else { return }
            self.headTimer = nil
            guard let deadline = self.headDeadline, !self.responding else { return }
            if deadline > .now() {
                self.scheduleHeadTimer(at: deadline)
                return
            }
            self.headDeadline = nil
            let timeout = self.dispatcher.configuration.requestHeadTimeout
            // A request half sent (or none at all) this long: the connection is freed for others.
            if self.head != nil {
                self.keepAlive = false
                self.responding = true
                self.discarding = true
                self.dispatcher.refuse(status: 408, reason: "the request was not complete within \(timeout) s (--header-timeout)", on: self)
            } else {
                self.close()
            }
        }
    }

    private func cancelTimers() {
        headTimer?.cancel()
        headTimer = nil
        headDeadline = nil
        holdTimer?.cancel()
        holdTimer = nil
    }

    private func dispatcherLoopFailure() -> EventLoopFuture<Void> {
        dispatcher.group.next().makeFailedFuture(ChannelError.ioOnClosedChannel)
    }
}
#endif
