#if Tools
import Foundation
import NIOCore
import NIOWebSocket
import StubKit

/// One accepted WebSocket, on its event loop: runs the rule's script (``WebSocketConversation`` makes
/// every decision), answers the protocol's own frames (pings, closes, errors) and writes one journal
/// entry with the conversation when the connection ends.
///
/// Back-pressure: each chain of steps (the opening, each periodic entry, each reply) has at most one
/// frame in flight and waits for it to be written; while the connection is not writable the chains
/// wait and the client is not read, so a client that never reads holds the server to NIO's write
/// buffer, never an unbounded queue.
final class WebSocketConnection: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// How long the server waits for the client's close after sending its own, before closing the TCP connection.
    static let closeWait: TimeInterval = 2

    private let accepted: WebSocketUpgrade.Accepted
    private let engine: StubEngine
    private let conversation: WebSocketConversation
    private var context: ChannelHandlerContext?
    private var transcript: WebSocketTranscript
    /// A message arriving in fragments: its opcode and the bytes so far.
    private var fragments: (opcode: WebSocketOpcode, data: ByteBuffer)?
    /// The script's pending delays and rounds, cancelled when the connection ends or closes.
    private var timers: [Int: Scheduled<Void>] = [:]
    private var nextTimer = 0
    /// Steps waiting for the connection to become writable again.
    private var waitingToWrite: [() -> Void] = []
    /// A read the pipeline asked for while the connection was not writable, made once it is.
    private var readPending = false
    /// A close frame went out: nothing else is sent, and the connection ends with the client's close.
    private var closeSent = false
    private var closeTimer: Scheduled<Void>?
    private var journaled = false

    init(accepted: WebSocketUpgrade.Accepted, dispatcher: RequestDispatcher) {
        self.accepted = accepted
        self.engine = dispatcher.engine
        self.conversation = WebSocketConversation(script: accepted.script, request: accepted.stubRequest,
                                                  parameters: accepted.match.parameters, hit: accepted.match.hit)
        self.transcript = WebSocketTranscript(maximumBytes: dispatcher.engine.journal.limits.maximumBodySize)
    }

    private var script: WebSocketScript { accepted.script }

    // MARK: Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard context.channel.isActive else { return }
        run(conversation.opening(now: engine.now))
        for index in script.periodic.indices { startRound(of: index, number: 0) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        end()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        end()
        context.fireChannelInactive()
    }

    /// Every timer cancelled, then the journal entry: an abrupt disconnect leaves nothing running.
    private func end() {
        cancelScript()
        closeTimer?.cancel()
        closeTimer = nil
        guard !journaled else { return }
        journaled = true
        let request = accepted.request, stubRequest = accepted.stubRequest, match = accepted.match
        let headers = accepted.responseHeaders, transcript = self.transcript
        let duration = Double(DispatchTime.now().uptimeNanoseconds - request.startTime.uptimeNanoseconds) / 1e9
        engine.journal.record { id in
            var entry = JournalEntry(id: id, startedAt: request.startedAt, duration: duration, request: stubRequest, bundle: match.bundle,
                                     rule: RequestDispatcher.ruleReference(match), status: 101, responseHeaders: headers,
                                     responseBody: nil, responseBodySize: 0, error: nil, nearMisses: [])
            entry.webSocketMessages = transcript.messages
            entry.webSocketMessagesDropped = transcript.dropped
            return entry
        }
    }

    private func cancelScript() {
        for timer in timers.values { timer.cancel() }
        timers = [:]
        waitingToWrite = []
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ServerShuttingDown {
            if !closeSent { sendClose(code: 1001, reason: "server shutting down") }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error as? NIOWebSocketError {
        case .invalidFrameLength?:
            fail(1009, "a frame larger than the rule's maxMessageSize (\(script.maximumMessageSize) bytes)")
        case .fragmentedControlFrame?:
            fail(1002, "a fragmented control frame")
        case .multiByteControlFrameLength?:
            fail(1002, "a control frame over 125 bytes")
        case nil:
            context.close(promise: nil)
        }
    }

    // MARK: Back-pressure

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            let waiting = waitingToWrite
            waitingToWrite = []
            for step in waiting { step() }
            if readPending {
                readPending = false
                context.read()
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        // Every client message may bring replies: while they cannot be written, the client waits.
        guard context.channel.isWritable else {
            readPending = true
            return
        }
        context.read()
    }

    // MARK: Client frames

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        // After its close the server reads only the client's close.
        guard !closeSent || frame.opcode == .connectionClose else { return }
        guard !(frame.rsv1 || frame.rsv2 || frame.rsv3) else { return fail(1002, "reserved bits set without an extension") }
        guard frame.maskKey != nil else { return fail(1002, "an unmasked client frame") }
        var payload = frame.unmaskedData
        switch frame.opcode {
        case .text, .binary:
            guard fragments == nil else { return fail(1002, "a new message before the fragmented one ended") }
            if frame.fin { receive(frame.opcode, payload) } else { fragments = (frame.opcode, payload) }
        case .continuation:
            guard var message = fragments else { return fail(1002, "a continuation frame with no message to continue") }
            guard message.data.readableBytes + payload.readableBytes <= script.maximumMessageSize else {
                return fail(1009, "a message larger than the rule's maxMessageSize (\(script.maximumMessageSize) bytes)")
            }
            message.data.writeBuffer(&payload)
            fragments = frame.fin ? nil : message
            if frame.fin { receive(message.opcode, message.data) }
        case .ping:
            let data = Data(payload.readableBytesView)
            transcript.append(.received, .ping, data)
            guard !closeSent else { return }
            transcript.append(.sent, .pong, data)
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: payload)), promise: nil)
        case .pong:
            transcript.append(.received, .pong, Data(payload.readableBytesView))
        case .connectionClose:
            receiveClose(payload)
        default:
            fail(1002, "reserved opcode \(frame.opcode)")
        }
    }

    private func receive(_ opcode: WebSocketOpcode, _ payload: ByteBuffer) {
        let data = Data(payload.readableBytesView)
        let message: WebSocketScript.Message
        if opcode == .text {
            let text = String(decoding: data, as: UTF8.self)
            guard text.utf8.elementsEqual(data) else { return fail(1007, "a text message that is not valid UTF-8") }
            message = .text(text)
        } else {
            message = .binary(data)
        }
        let kind: WebSocketMessageRecord.Opcode = opcode == .text ? .text : .binary
        switch conversation.answer(to: message, now: engine.now) {
        case .reply(_, let steps, let setState):
            transcript.append(.received, kind, data)
            if let setState, let scenario = accepted.match.rule.request.scenarioState?.scenario {
                engine.setScenarioState(scenario, to: setState)
            }
            run(steps)
        case .noMatch(let nearMisses):
            transcript.append(.received, kind, data, nearMisses: nearMisses)
        }
    }

    /// The client's close: answered with the same code (unless the server's went first), then the connection ends.
    private func receiveClose(_ payload: ByteBuffer) {
        var payload = payload
        let length = payload.readableBytes
        let code = payload.readInteger(as: UInt16.self)
        let reason = Data(payload.readableBytesView)
        transcript.append(.received, .close, reason, closeCode: code)
        guard let context else { return }
        if closeSent {
            context.close(promise: nil)
            return
        }
        if length == 1 || code.map({ !WebSocketScript.isSendableCloseCode(Int($0)) }) == true {
            return fail(1002, "a close frame with an invalid status code")
        }
        guard String(decoding: reason, as: UTF8.self).utf8.elementsEqual(reason) else {
            return fail(1007, "a close reason that is not valid UTF-8")
        }
        sendClose(code: code, reason: "")?.assumeIsolated().whenComplete { [weak self] _ in self?.context?.close(promise: nil) }
    }

    /// A protocol error: a close with its code, then the connection ends.
    private func fail(_ code: UInt16, _ reason: String) {
        fragments = nil
        guard !closeSent else { return }
        sendClose(code: code, reason: reason)
    }

    // MARK: Sending

    /// Runs steps in order from `index`: each after its delay, counted once the step before it was written.
    ///
    /// The next step goes through the event loop rather than being called from the write's callback:
    /// NIO completes a flushed write at once, so a long run of steps without delays would otherwise
    /// nest one call per step and overflow the loop thread's stack.
    private func run(_ steps: [WebSocketConversation.Outgoing], from index: Int = 0, then done: (() -> Void)? = nil) {
        guard !closeSent, let context else { return }
        guard index < steps.count else {
            done?()
            return
        }
        let step = steps[index], loop = context.eventLoop.assumeIsolated()
        after(step.delay) { [self] in
            whenWritable { [self] in
                send(step.action)?.assumeIsolated().whenSuccess { [self] in
                    loop.execute { [self] in run(steps, from: index + 1, then: done) }
                }
            }
        }
    }

    /// One round of a periodic entry, one interval after the last one's steps were written.
    private func startRound(of index: Int, number: Int) {
        let periodic = script.periodic[index]
        if let times = periodic.times, number >= times { return }
        after(periodic.interval) { [self] in
            run(conversation.periodic(index, now: engine.now)) { [self] in startRound(of: index, number: number + 1) }
        }
    }

    private func after(_ delay: TimeInterval, _ action: @escaping () -> Void) {
        guard delay > 0 else { return action() }
        guard let context else { return }
        let id = nextTimer
        nextTimer += 1
        timers[id] = context.eventLoop.assumeIsolated().scheduleTask(in: RequestDispatcher.duration(delay)) { [weak self] in
            guard let self, self.timers.removeValue(forKey: id) != nil else { return }
            action()
        }
    }

    private func whenWritable(_ action: @escaping () -> Void) {
        guard let context, !closeSent else { return }
        if context.channel.isWritable { action() } else { waitingToWrite.append(action) }
    }

    /// Writes the step's frame; `nil` when nothing more may be sent.
    @discardableResult
    private func send(_ action: WebSocketScript.Action) -> EventLoopFuture<Void>? {
        switch action {
        case .send(.text(let text)): return write(.text, .text, Data(text.utf8))
        case .send(.binary(let data)): return write(.binary, .binary, data)
        case .ping(let data): return write(.ping, .ping, data)
        case .close(let code, let reason): return sendClose(code: code, reason: reason)
        }
    }

    private func write(_ opcode: WebSocketOpcode, _ kind: WebSocketMessageRecord.Opcode, _ data: Data) -> EventLoopFuture<Void>? {
        guard let context, !closeSent else { return nil }
        transcript.append(.sent, kind, data)
        let frame = WebSocketFrame(fin: true, opcode: opcode, data: context.channel.allocator.buffer(bytes: data))
        return context.writeAndFlush(wrapOutboundOut(frame))
    }

    /// Sends a close (no code when `code` is nil), stops the script, and gives the client a while to answer.
    @discardableResult
    private func sendClose(code: UInt16?, reason: String) -> EventLoopFuture<Void>? {
        guard let context, !closeSent else { return nil }
        closeSent = true
        cancelScript()
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        if let code {
            payload.writeInteger(code)
            payload.writeString(reason)
        }
        transcript.append(.sent, .close, Data(reason.utf8), closeCode: code)
        closeTimer = context.eventLoop.assumeIsolated().scheduleTask(in: RequestDispatcher.duration(Self.closeWait)) { [weak self] in
            self?.context?.close(promise: nil)
        }
        return context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)))
    }
}
#endif
