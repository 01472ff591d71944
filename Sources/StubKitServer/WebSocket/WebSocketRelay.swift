#if Tools
import Foundation
import NIOCore
import NIOWebSocket
import StubKit

/// An accepted WebSocket that no rule scripts, relayed to the real server (`--forward`, `--record`):
/// whole messages both ways, each side's close passed on with its code and reason, one journal entry
/// when both sides are done, and the conversation recorded as a rule when the engine records its host.
///
/// The real server is connected before the app's upgrade completes, so the app's `101` carries the
/// subprotocol the real server chose, and a refusal can still be answered with a `502`. Everything runs
/// on the app's event loop, the real server's connection included.
///
/// Back-pressure: while the app's side is not writable the real server is not read; while the real
/// server's side is not writable the app is not read.
final class WebSocketRelay: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// The largest message relayed either way.
    static let maximumMessageSize = WebSocketScript.defaultMaximumMessageSize

    private let request: ReceivedRequest
    private let stubRequest: StubRequest
    private let engine: StubEngine
    private var upstream: WebSocketUpstream?
    private var recorder: WebSocketRecorder?
    private var context: ChannelHandlerContext?
    private var transcript: WebSocketTranscript
    /// What the real server sent before the app's side was ready (it may speak right behind its `101`).
    private var early: [WebSocketScript.Message] = []
    /// How the real server's side ended, once it has.
    private var upstreamClose: WebSocketUpstream.Close?
    private var closeSentToApp = false
    private var closeFromApp = false
    private var appGone = false
    private var readPending = false
    private var closeTimer: Scheduled<Void>?
    private var recording: (recordedAs: String?, failure: String?) = (nil, nil)
    private var journaled = false

    private init(request: ReceivedRequest, stubRequest: StubRequest, engine: StubEngine) {
        self.request = request
        self.stubRequest = stubRequest
        self.engine = engine
        self.transcript = WebSocketTranscript(maximumBytes: engine.journal.limits.maximumBodySize)
    }

    /// The real server's URL for a routed request: `http` becomes `ws`, `https` `wss`.
    static func upstreamURL(for url: URL) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.scheme = url.scheme?.lowercased() == "https" ? "wss" : "ws"
        return components?.url ?? url
    }

    /// Connects to the real server for the app's upgrade on `channel`: the relay, ready to join the
    /// app's pipeline, or a failed future with a ``WebSocketUpstream/Failure``.
    static func open(request: ReceivedRequest, stubRequest: StubRequest, on channel: any Channel,
                     engine: StubEngine, tls: UpstreamTLS?) -> EventLoopFuture<NIOLoopBound<WebSocketRelay>> {
        let relay = NIOLoopBound(WebSocketRelay(request: request, stubRequest: stubRequest, engine: engine), eventLoop: channel.eventLoop)
        let url = upstreamURL(for: stubRequest.url)
        return WebSocketUpstream.connect(to: url, request: stubRequest, group: channel.eventLoop, tls: tls, maximumMessageSize: maximumMessageSize,
                                         onMessage: { relay.value.upstreamSent($0) },
                                         onClose: { relay.value.upstreamClosed($0) })
            .map { upstream in
                relay.value.connected(upstream, url: url)
                // Whether or not the app's side completes its upgrade, its end is the real server's.
                channel.closeFuture.whenComplete { _ in relay.value.appEnded() }
                return relay
            }
    }

    /// The `101`'s extra fields: the subprotocol the real server accepted.
    var subprotocol: String? { upstream?.subprotocol }

    private func connected(_ upstream: WebSocketUpstream, url: URL) {
        self.upstream = upstream
        if let recorder = engine.recorder, recorder.records(stubRequest) {
            var recorded = stubRequest
            recorded.url = url
            self.recorder = WebSocketRecorder(recorder: recorder, request: recorded, subprotocol: upstream.subprotocol)
        }
    }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let early = self.early
        self.early = []
        for message in early { write(message) }
        if let upstreamClose { closeApp(like: upstreamClose) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        self.context = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ServerShuttingDown else { return context.fireUserInboundEventTriggered(event) }
        closeApp(like: .init(code: 1001, reason: "server shutting down"))
        upstream?.close(code: 1001, reason: "server shutting down")
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let (code, reason): (UInt16, String)
        switch error {
        case NIOWebSocketError.invalidFrameLength, NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge:
            (code, reason) = (1009, "a message larger than \(Self.maximumMessageSize) bytes")
        case is NIOWebSocketError, is NIOWebSocketFrameAggregator.Error:
            (code, reason) = (1002, "a protocol error: \(error)")
        default:
            return context.close(promise: nil)
        }
        closeApp(like: .init(code: code, reason: reason))
        upstream?.close(code: 1001, reason: "the app's connection failed")
    }

    /// The app's connection is gone: so is the real server's, and the entry is written once both are.
    private func appEnded() {
        appGone = true
        if upstreamClose == nil, let upstream {
            upstream.close(code: 1001, reason: "the app went away")
            // A real server that does not answer the close is not waited for forever.
            let channel = upstream.channel
            channel.eventLoop.scheduleTask(in: RequestDispatcher.duration(WebSocketConnection.closeWait)) { channel.close(promise: nil) }
        }
        journalIfDone()
    }

    // MARK: Real server → app

    private func upstreamSent(_ message: WebSocketScript.Message) {
        recorder?.note(.serverToClient, message)
        guard context != nil else { return early.append(message) }
        write(message)
    }

    private func write(_ message: WebSocketScript.Message) {
        guard let context, !closeSentToApp else { return }
        let frame: WebSocketFrame
        switch message {
        case .text(let text):
            transcript.append(.sent, .text, Data(text.utf8))
            frame = WebSocketFrame(fin: true, opcode: .text, data: context.channel.allocator.buffer(string: text))
        case .binary(let data):
            transcript.append(.sent, .binary, data)
            frame = WebSocketFrame(fin: true, opcode: .binary, data: context.channel.allocator.buffer(bytes: data))
        }
        context.writeAndFlush(wrapOutboundOut(frame), promise: nil)
        if !context.channel.isWritable { upstream?.pauseReading() }
    }

    private func upstreamClosed(_ close: WebSocketUpstream.Close) {
        upstreamClose = close
        recorder?.noteClose(.serverToClient, code: close.code, reason: close.reason)
        finishRecording()
        if context != nil { closeApp(like: close) }
        journalIfDone()
    }

    private func finishRecording() {
        switch recorder?.finish() {
        case .success(let outcome)?:
            let notes = outcome.notes.joined(separator: "; ")
            if outcome.written {
                recording.recordedAs = notes.isEmpty ? "(webSocket)" : "(webSocket; \(notes))"
            } else {
                recording.failure = notes
            }
        case .failure(let error)?:
            recording.failure = "\(error.path): \(error.reason)"
        case nil:
            break
        }
    }

    /// Passes the real server's close on (the same code and reason); a connection that ended without
    /// one (1006) ends the app's the same way.
    private func closeApp(like close: WebSocketUpstream.Close) {
        guard let context, !closeSentToApp else { return }
        closeSentToApp = true
        guard close.code != 1006 else { return context.close(promise: nil) }
        var payload = context.channel.allocator.buffer(capacity: 2 + close.reason.utf8.count)
        // 1005 means the frame had no code: sent again without one.
        if close.code != 1005 {
            payload.writeInteger(close.code)
            payload.writeString(close.reason)
        }
        transcript.append(.sent, .close, Data(close.reason.utf8), closeCode: close.code == 1005 ? nil : close.code)
        let written = context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
        if closeFromApp {
            written.assumeIsolated().whenComplete { [weak self] _ in self?.context?.close(promise: nil) }
        } else {
            closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: RequestDispatcher.duration(WebSocketConnection.closeWait)) { [weak self] in
                self?.context?.close(promise: nil)
            }
        }
    }

    // MARK: App → real server

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard frame.maskKey != nil else {
            closeApp(like: .init(code: 1002, reason: "an unmasked client frame"))
            upstream?.close(code: 1001, reason: "the app's connection failed")
            return
        }
        let payload = Data(frame.unmaskedData.readableBytesView)
        switch frame.opcode {
        case .text:
            transcript.append(.received, .text, payload)
            relay(.text(String(decoding: payload, as: UTF8.self)))
        case .binary:
            transcript.append(.received, .binary, payload)
            relay(.binary(payload))
        case .ping:
            transcript.append(.received, .ping, payload)
            guard !closeSentToApp else { return }
            transcript.append(.sent, .pong, payload)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)), promise: nil)
        case .pong:
            transcript.append(.received, .pong, payload)
        case .connectionClose:
            var reader = frame.unmaskedData
            let code = reader.readInteger(as: UInt16.self)
            let reason = reader.readString(length: reader.readableBytes) ?? ""
            transcript.append(.received, .close, Data(reason.utf8), closeCode: code)
            closeFromApp = true
            recorder?.noteClose(.clientToServer, code: code ?? 1005, reason: reason)
            if closeSentToApp {
                context.close(promise: nil)
            } else if upstreamClose != nil {
                closeApp(like: .init(code: code ?? 1005, reason: ""))
            } else {
                // The real server's answer comes back through `upstreamClosed` and is passed on.
                let sendable = code.map { WebSocketScript.isSendableCloseCode(Int($0)) } ?? false
                upstream?.close(code: sendable ? code! : 1000, reason: sendable ? reason : "")
            }
        default:
            break
        }
    }

    private func relay(_ message: WebSocketScript.Message) {
        guard let upstream, upstreamClose == nil, !closeFromApp else { return }
        recorder?.note(.clientToServer, message)
        upstream.send(message).assumeIsolated().whenComplete { [weak self] _ in self?.readIfWaiting() }
    }

    // MARK: Back-pressure

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { upstream?.resumeReading() } else { upstream?.pauseReading() }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        // Every app message goes to the real server: while it cannot take more, the app waits.
        guard upstream?.isWritable ?? true else {
            readPending = true
            return
        }
        context.read()
    }

    /// A send completed: the real server's side may take more again.
    private func readIfWaiting() {
        guard readPending, let context, upstream?.isWritable ?? true else { return }
        readPending = false
        context.read()
    }

    // MARK: Journal

    private func journalIfDone() {
        guard appGone, upstreamClose != nil, !journaled else { return }
        journaled = true
        var headers = ["Upgrade": "websocket", "Connection": "Upgrade"]
        if let subprotocol { headers["Sec-WebSocket-Protocol"] = subprotocol }
        let request = request, stubRequest = stubRequest, transcript = transcript, recording = recording
        let duration = Double(DispatchTime.now().uptimeNanoseconds - request.startTime.uptimeNanoseconds) / 1e9
        engine.journal.record { id in
            var entry = JournalEntry(id: id, startedAt: request.startedAt, duration: duration, request: stubRequest, bundle: nil, rule: nil,
                                     status: 101, responseHeaders: headers, responseBody: nil, responseBodySize: 0, passedThrough: true,
                                     error: nil, nearMisses: [], recordedAs: recording.recordedAs, recordingFailure: recording.failure)
            entry.webSocketMessages = transcript.messages
            entry.webSocketMessagesDropped = transcript.dropped
            return entry
        }
    }
}

extension RequestDispatcher {
    /// The real server refused the relayed upgrade (not reachable, not a WebSocket server, `wss`): the
    /// app gets a `502` that says why.
    func refuseRelay(_ exchange: Exchange, reason: String, on connection: ConnectionHandler) {
        let text = "StubKit server: relaying the WebSocket \(exchange.stubRequest.url.absoluteString) failed: \(reason)"
        journal(exchange, status: 502, passThrough: true, error: URLError(.cannotConnectToHost), description: text)
        sendText(502, text + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "forward-failed")])
    }
}
#endif
