#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StubKit

/// A rule's Server-Sent Events sent on one connection, on its event loop: the head at once (chunked on
/// HTTP/1.1, ended by the close on HTTP/1.0), then each event as one flushed chunk once its delay has
/// passed, then the end of the answer, or nothing more until the client leaves (`keepOpen`).
///
/// An event's delay starts once the event before it was handed to the socket, so a client that does
/// not read holds the stream back: at most one event waits in the server at a time, whatever the
/// stream's length. One journal entry per stream, written when it ends, with the bytes sent.
final class EventStreamWriter {
    /// Why a stream ended.
    enum Ending {
        case finished
        case clientLeft
        case serverShutdown
    }

    private let events: PreparedEvents
    private let status: Int
    private let headers: [String: String]
    private let match: StubMatch
    private let exchange: RequestDispatcher.Exchange
    private let dispatcher: RequestDispatcher
    private weak var connection: ConnectionHandler?
    /// Events handed to the socket so far.
    private var sent = 0
    /// The bytes sent, up to the journal's body limit, and their whole size.
    private var journalBody = Data()
    private var sentBytes = 0
    /// Events written but not yet handed to the socket (the client is not reading).
    private var queued = 0
    private var timer: Scheduled<Void>?
    private var ended = false

    init(_ events: PreparedEvents, status: Int, headers: [String: String], match: StubMatch, exchange: RequestDispatcher.Exchange,
         dispatcher: RequestDispatcher, connection: ConnectionHandler) {
        self.events = events
        self.status = status
        self.headers = headers
        self.match = match
        self.exchange = exchange
        self.dispatcher = dispatcher
        self.connection = connection
    }

    /// Sends the head and starts the events.
    func start() {
        guard let connection else { return }
        dispatcher.eventStreams.opened()
        let version = exchange.request.head.version
        // Without chunked encoding the body ends only when the connection does.
        if version.major == 1 && version.minor == 0 { connection.closeAfterAnswer() }
        connection.sendHead(status: status, headers: dispatcher.ordered(headers, exchange))
        if exchange.request.isHead || ConnectionHandler.isBodyless(status) {
            end(.finished)
            return
        }
        // The head now: a client (EventSource's `open`) learns the stream is up before the first event is due.
        connection.flush()
        let key = ObjectIdentifier(self)
        connection.onClose[key] = { [self] in end(.clientLeft) }
        connection.answerAtShutdown = { [self] in end(.serverShutdown) }
        if connection.shuttingDown {
            end(.serverShutdown)
            return
        }
        schedule(0)
    }

    private func schedule(_ index: Int) {
        guard !ended, let connection else { return }
        guard index < events.count else {
            // A live feed stays open; `onClose` or the shutdown ends it.
            if !events.keepsOpen { end(.finished) }
            return
        }
        let delay = events.delay(before: index)
        let loop = connection.eventLoop.assumeIsolated()
        if delay > 0 {
            timer = loop.scheduleTask(in: RequestDispatcher.duration(delay)) { [self] in write(index) }
        } else {
            // Through the loop rather than a direct call: a long run of events without delays would
            // otherwise nest one call per event (a completed write calls back at once).
            loop.execute { [self] in write(index) }
        }
    }

    private func write(_ index: Int) {
        timer = nil
        guard !ended, let connection, connection.isActive else { return }
        let bytes = events.bytes(of: index, now: dispatcher.engine.now)
        // Before the write: a client that reacts to the event by asking another endpoint (on another
        // connection, another thread) must find the state the event announces.
        if let move = events.newState(after: index) { dispatcher.engine.setScenarioState(move.scenario, to: move.state) }
        queued += 1
        dispatcher.eventStreams.queued(1, streamHolds: queued)
        connection.sendChunk(ByteBuffer(bytes: bytes)).assumeIsolated().whenComplete { [self] result in
            queued -= 1
            dispatcher.eventStreams.queued(-1, streamHolds: queued)
            guard case .success = result, !ended else { return }
            record(bytes)
            schedule(index + 1)
        }
    }

    private func record(_ bytes: Data) {
        sent += 1
        sentBytes += bytes.count
        dispatcher.eventStreams.sentEvent()
        let room = dispatcher.engine.journal.limits.maximumBodySize - journalBody.count
        if room > 0 { journalBody.append(bytes.prefix(room)) }
    }

    /// Ends the stream once: cancels what is scheduled, journals what was sent, and ends the answer.
    private func end(_ ending: Ending) {
        guard !ended else { return }
        ended = true
        timer?.cancel()
        timer = nil
        dispatcher.eventStreams.closed()
        journal(ending)
        guard let connection else { return }
        connection.onClose[ObjectIdentifier(self)] = nil
        connection.answerAtShutdown = nil
        switch ending {
        case .finished:
            connection.finish()
        case .serverShutdown:
            // An event the client is not reading would hold the end of the answer back: closed instead.
            if queued > 0 { connection.close() } else { connection.finish() }
        case .clientLeft:
            break
        }
    }

    private func journal(_ ending: Ending) {
        let error: URLError?, description: String?
        let count = "\(sent) of \(events.count) event\(events.count == 1 ? "" : "s")"
        switch ending {
        case .finished:
            (error, description) = (nil, nil)
        case .clientLeft:
            (error, description) = (URLError(.networkConnectionLost), "the client disconnected after \(count) of the event stream")
        case .serverShutdown:
            (error, description) = (URLError(.networkConnectionLost), "the server shut down after \(count) of the event stream")
        }
        dispatcher.journal(exchange, match: match, status: status, headers: headers, body: journalBody, bodySize: sentBytes,
                           truncated: sentBytes > journalBody.count, error: error, description: description)
    }
}

/// Counts over the server's event streams, for tests and the benchmark to see that streams end and
/// that a stream never holds more than one event back.
package struct EventStreamCounts: Sendable, Equatable {
    /// Streams open now.
    package var open = 0
    /// Events handed to sockets, over all streams.
    package var eventsSent = 0
    /// Events written but not yet handed to sockets, now (over all streams).
    package var queued = 0
    /// The most events one stream had written but not yet handed to its socket.
    package var mostQueued = 0
}

/// ``EventStreamCounts`` shared by the event loops.
final class EventStreamGauge: Sendable {
    private let counts = NIOLockedValueBox(EventStreamCounts())

    var value: EventStreamCounts { counts.withLockedValue { $0 } }

    func opened() { counts.withLockedValue { $0.open += 1 } }
    func closed() { counts.withLockedValue { $0.open -= 1 } }
    func sentEvent() { counts.withLockedValue { $0.eventsSent += 1 } }
    func queued(_ change: Int, streamHolds held: Int) {
        counts.withLockedValue {
            $0.queued += change
            $0.mostQueued = max($0.mostQueued, held)
        }
    }
}
#endif
