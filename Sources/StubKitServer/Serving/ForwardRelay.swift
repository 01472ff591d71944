#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import StubKit

/// What no rule answers, sent to the real host through StubKit's one forwarder and relayed to the
/// client as it arrives (recorded through the engine's recorder when it records that host).
///
/// The forwarder calls on its own queue; every step hops to the connection's event loop, where all
/// of the relay's state lives.
///
/// Back-pressure on a relayed event stream: the forwarder cannot be paused (it takes what the real
/// server sends as it comes), and dropping events would hand the client a feed that silently skips.
/// So the bytes waiting for a client that does not read are counted, and past
/// ``maximumWaitingBytes`` the connection is closed, with a journal entry saying why: the server
/// holds a bounded amount per client, and the client sees a dropped feed it can reconnect to.
final class ForwardRelay: ForwardingReceiver, @unchecked Sendable {
    /// Far more than any live feed's events in flight: a client this far behind has stopped reading.
    static let maximumWaitingBytes = 1 << 20

    private let loop: any EventLoop
    private let connection: NIOLoopBound<ConnectionHandler>
    private let dispatcher: RequestDispatcher
    private let exchange: RequestDispatcher.Exchange
    // Touched only on `loop`.
    private var response: ForwardedResponse
    /// The client's copy of the headers (stubbed hosts' locations pointed back here), as journalled.
    private var headers: [String: String] = [:]
    /// Relayed event-stream bytes not yet handed to the socket.
    private var waitingBytes = 0
    /// The client stopped reading and its connection was closed: nothing more is relayed.
    private var droppedForNotReading = false
    private var journalled = false

    /// The client gets the upstream's redirects as they are (with stubbed hosts pointed back here).
    var followsRedirects: Bool { false }

    init(exchange: RequestDispatcher.Exchange, connection: ConnectionHandler, dispatcher: RequestDispatcher) {
        self.loop = connection.eventLoop
        self.connection = NIOLoopBound(connection, eventLoop: connection.eventLoop)
        self.dispatcher = dispatcher
        self.exchange = exchange
        let recorder = dispatcher.engine.recorder.flatMap { $0.records(exchange.stubRequest) ? $0 : nil }
        self.response = ForwardedResponse(request: exchange.stubRequest, recorder: recorder, keepsAtMost: dispatcher.engine.journal.limits.maximumBodySize)
    }

    /// The request as the real host gets it: same method, headers (less the hop-by-hop ones) and body.
    static func upstreamRequest(for stub: StubRequest) -> URLRequest {
        var request = URLRequest(url: stub.url)
        request.httpMethod = stub.method
        for (name, value) in stub.headers where !ForwardedResponse.hopByHop.contains(name.lowercased()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request.httpBody = stub.body
        return request
    }

    // MARK: ForwardingReceiver (on the forwarder's queue)

    func forwarder(didReceive response: HTTPURLResponse) {
        // Timed here, on the forwarder's queue: a busy event loop would make a recorded event's delay its own.
        let status = response.statusCode, headers = ForwardedResponse.fields(of: response), arrivedAt = EventStreamCapture.now()
        loop.execute { self.received(status: status, headers: headers, arrivedAt: arrivedAt) }
    }

    func forwarder(didReceive data: Data) {
        let arrivedAt = EventStreamCapture.now()
        loop.execute { self.received(data, arrivedAt: arrivedAt) }
    }

    func forwarder(didCompleteWithError error: (any Error)?) {
        let failure = error.map(ForwardedResponse.urlError)
        loop.execute { self.completed(failure) }
    }

    // MARK: On the event loop

    private func received(status: Int, headers upstream: [String: String], arrivedAt: UInt64) {
        // The recording keeps the upstream's own Location; only the client's copy points back here
        // (a recorded `http://127.0.0.1:PORT/…` would name a server that is gone by the replay).
        var headers = response.receive(status: status, upstream: upstream, framesItself: true, arrivedAt: arrivedAt)
        for name in headers.keys where name.lowercased() == "location" { headers[name] = exchange.rewriter.rewrite(location: headers[name]!) }
        self.headers = headers
        connection.value.sendHead(status: status, headers: dispatcher.ordered(headers, exchange))
    }

    private func received(_ data: Data, arrivedAt: UInt64) {
        response.receive(data, keepingOnFailure: false, arrivedAt: arrivedAt)
        guard !exchange.request.isHead else { return }
        // An event stream has no length to complete, and each event is due when it arrives.
        if response.isEventStream {
            relayEvents(data)
            return
        }
        // One chunk is held back until the next arrives or the exchange completes: with the upstream's
        // Content-Length the client has the whole body with its last byte, and by then the journal
        // entry (and the recording) must exist.
        if let previous = heldBack { _ = connection.value.sendChunk(ByteBuffer(bytes: previous)) }
        heldBack = data
    }

    private var heldBack: Data?

    private func releaseHeldBack() {
        if let last = heldBack { _ = connection.value.sendChunk(ByteBuffer(bytes: last)) }
        heldBack = nil
    }

    private func relayEvents(_ data: Data) {
        guard !droppedForNotReading else { return }
        guard waitingBytes + data.count <= Self.maximumWaitingBytes else {
            droppedForNotReading = true
            // The close cancels the forward and journals the exchange (`clientLeft`).
            connection.value.close()
            return
        }
        waitingBytes += data.count
        connection.value.sendChunk(ByteBuffer(bytes: data)).assumeIsolated().whenComplete { [self] _ in waitingBytes -= data.count }
    }

    /// The client left (or was dropped) while the upstream was still sending: the exchange is
    /// journalled as cancelled, and a recorded event stream keeps the events so far, as a feed that
    /// stays open (a live feed ends only when its client leaves).
    func clientLeft() {
        loop.execute { self.journalClientLeft() }
    }

    private func journalClientLeft() {
        guard !journalled else { return }
        journalled = true
        let recording = response.finishRecording(clientLeft: true)
        let what = "\(exchange.stubRequest.method) \(exchange.stubRequest.url.absoluteString)"
        let text = droppedForNotReading
            ? "StubKit server: the client stopped reading the forwarded event stream of \(what): more than \(Self.maximumWaitingBytes) bytes waited for it, so its connection was closed after \(response.count) bytes"
            : "StubKit server: the client left \(what) after \(response.count) bytes of the forwarded response"
        dispatcher.journal(exchange, status: response.status, headers: headers, body: response.kept, bodySize: response.count, truncated: response.truncated,
                           passThrough: true, error: URLError(.cancelled), description: text,
                           recordedAs: recording.recordedAs, recordingFailure: recording.recordingFailure)
    }

    private func completed(_ error: URLError?) {
        guard !journalled else { return }
        journalled = true
        let connection = connection.value
        connection.onClose[ObjectIdentifier(self)] = nil
        if let error {
            response.fail(error)
            let text = "StubKit server: forwarding \(exchange.stubRequest.method) \(exchange.stubRequest.url.absoluteString) failed: \(error.localizedDescription)"
            dispatcher.journal(exchange, status: response.status == nil ? 502 : response.status, passThrough: true, error: error, description: text)
            heldBack = nil
            if response.status == nil {
                dispatcher.sendText(502, text + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "forward-failed")])
            } else {
                connection.drop(.close)
            }
            return
        }
        let (recordedAs, recordingFailure) = response.finishRecording()
        dispatcher.journal(exchange, status: response.status, headers: headers, body: response.kept, bodySize: response.count, truncated: response.truncated,
                           passThrough: true, recordedAs: recordedAs, recordingFailure: recordingFailure)
        releaseHeldBack()
        connection.finish()
    }
}

extension RequestDispatcher {
    func forward(_ exchange: Exchange, on connection: ConnectionHandler) {
        guard exchange.routed.stubbedHost != nil else {
            let text = "StubKit server: no rule answers \(exchange.stubRequest.method) \(exchange.request.head.uri), and it names no host to forward it to (put the host first in the path: /api.example.com/…)"
            journal(exchange, status: 502, error: URLError(.unsupportedURL), description: text)
            sendText(502, text + "\n", exchange, on: connection, extra: [("X-StubKit-Miss", "no-host")])
            return
        }
        let relay = ForwardRelay(exchange: exchange, connection: connection, dispatcher: self)
        let cancel = Forwarder.shared.forward(ForwardRelay.upstreamRequest(for: exchange.stubRequest), to: relay)
        // The client went away: so does the upstream request.
        connection.onClose[ObjectIdentifier(relay)] = {
            cancel()
            relay.clientLeft()
        }
    }
}
#endif
