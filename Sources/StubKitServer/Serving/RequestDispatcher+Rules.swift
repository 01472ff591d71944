#if Tools
import Foundation
import NIOCore
import NIOHTTP1
import StubKit

/// Answering from a rule: its delay, its simulated network error as what a client of a real server
/// would see, a redirect as a real 3xx, URLs of stubbed hosts pointed back here, a throttled or
/// streamed body, and one journal entry.
extension RequestDispatcher {
    /// Bodies up to this size are read whole (and rewritten when textual); larger ones are streamed as they are.
    static let wholeBodyLimit = 8 << 20
    /// The chunk size for streaming a large body.
    static let streamChunk = 256 << 10

    func answer(_ match: StubMatch, _ exchange: Exchange, on connection: ConnectionHandler) {
        guard match.delay > 0 else {
            respond(match, exchange, on: connection)
            return
        }
        connection.eventLoop.assumeIsolated().scheduleTask(in: Self.duration(match.delay)) { [weak connection] in
            guard let connection, connection.isActive else { return }
            self.respond(match, exchange, on: connection)
        }
    }

    private func respond(_ match: StubMatch, _ exchange: Exchange, on connection: ConnectionHandler) {
        if let simulated = match.response.error {
            journal(exchange, match: match, status: nil, error: URLError(simulated.code),
                    description: "StubKit simulated \(simulated.rawValue) for \(exchange.stubRequest.method) \(exchange.stubRequest.url.absoluteString) (rule \(match.rule.displayName) in \(match.bundle))")
            guard let drop = Self.drop(for: simulated, hold: configuration.timedOutHold) else {
                sendText(503, "StubKit simulated \(simulated.rawValue) (rule \(match.rule.displayName) in \(match.bundle))\n", exchange, on: connection)
                return
            }
            connection.drop(drop)
            return
        }
        // Per request: a static answer made ready before is sent as it is (one `stat` for a file).
        let cacheKey = AnswerCache.key(for: match, rewriteBase: exchange.rewriter.base)
        if let cacheKey, let kept = exchange.answers.answer(for: cacheKey, response: match.response) {
            deliver(kept, match, exchange, on: connection)
            return
        }
        // Taken before the body is read: a file changing while it is read fails the next check.
        let cacheSource = cacheKey.flatMap { _ in AnswerCache.source(of: match.response) }
        let prepared: PreparedResponse
        switch PreparedResponse.render(match, for: exchange.stubRequest, now: engine.now) {
        case .failure(let error):
            journal(exchange, match: match, status: 500, error: error)
            sendText(500, error.localizedDescription + "\n", exchange, on: connection)
            return
        case .success(let ready):
            prepared = ready
        }
        var headers = prepared.headers
        if let name = headers.keys.first(where: { $0.lowercased() == "location" }) {
            headers[name] = exchange.rewriter.rewrite(location: headers[name]!)
        }
        if let events = prepared.events {
            EventStreamWriter(events, status: prepared.status, headers: headers, match: match, exchange: exchange, dispatcher: self,
                              connection: connection).start()
            return
        }
        let contentType = headers.first { $0.key.lowercased() == "content-type" }?.value

        guard prepared.reader.length <= Self.wholeBodyLimit else {
            stream(prepared, headers: headers, match: match, exchange, on: connection)
            return
        }
        var body: Data
        do {
            body = try prepared.rendered ?? prepared.reader.whole()
        } catch {
            let failure = PreparedResponse.unreadable(match, url: exchange.stubRequest.url, error)
            journal(exchange, match: match, status: 500, error: failure)
            sendText(500, failure.localizedDescription + "\n", exchange, on: connection)
            return
        }
        if MediaType.isText(contentType), let rewritten = exchange.rewriter.rewrite(body) {
            body = rewritten
        }
        Self.setLength(body.count, in: &headers)
        let entry = AnswerCache.Entry(source: cacheSource ?? .empty, sourceHeaders: match.response.headerFields, rule: Self.ruleReference(match),
                                      status: prepared.status,
                                      headers: headers, fields: HTTPHeaders(ordered(headers)), body: body, buffer: ByteBuffer(bytes: body))
        if let cacheKey, cacheSource != nil, body.count <= AnswerCache.maximumBodySize {
            exchange.answers.keep(entry, for: cacheKey)
        }
        deliver(entry, match, exchange, on: connection)
    }

    /// Journals and sends an answer whose head and body are ready.
    private func deliver(_ answer: AnswerCache.Entry, _ match: StubMatch, _ exchange: Exchange, on connection: ConnectionHandler) {
        let keepLimit = engine.journal.limits.maximumBodySize
        let body = answer.body
        journal(exchange, match: match, rule: answer.rule, status: answer.status, headers: answer.headers, body: body.count > keepLimit ? body.prefix(keepLimit) : body,
                bodySize: body.count, truncated: body.count > keepLimit)
        var fields = answer.fields
        if configuration.cors { fields.add(contentsOf: corsHeaders(for: exchange.request)) }
        guard let throttle = match.response.throttle, !exchange.request.isHead, !ConnectionHandler.isBodyless(answer.status), !body.isEmpty else {
            connection.send(status: answer.status, fields: fields, body: answer.buffer, headOnly: exchange.request.isHead)
            return
        }
        // A quarter-second's bytes at a time, as the in-process throttle does.
        connection.sendHead(status: answer.status, fields: fields)
        sendThrottled(answer.buffer, chunk: max(256, throttle / 4), every: Double(max(256, throttle / 4)) / Double(throttle), on: connection)
    }

    private func sendThrottled(_ body: ByteBuffer, chunk: Int, every interval: Double, on connection: ConnectionHandler) {
        var rest = body
        guard let piece = rest.readSlice(length: min(chunk, rest.readableBytes)) else { return }
        let remaining = rest
        connection.sendChunk(piece).assumeIsolated().whenComplete { [weak connection] result in
            guard let connection, connection.isActive, case .success = result else { return }
            guard remaining.readableBytes > 0 else {
                connection.finish()
                return
            }
            connection.eventLoop.assumeIsolated().scheduleTask(in: Self.duration(interval)) { [weak connection] in
                guard let connection, connection.isActive else { return }
                self.sendThrottled(remaining, chunk: chunk, every: interval, on: connection)
            }
        }
    }

    /// A body too large to hold: read and sent a chunk at a time, the next once the last was written.
    private func stream(_ prepared: PreparedResponse, headers: [String: String], match: StubMatch, _ exchange: Exchange,
                        on connection: ConnectionHandler) {
        let source: ChunkSource
        do {
            source = try ChunkSource(prepared.reader.body, rendered: prepared.rendered)
        } catch {
            let failure = PreparedResponse.unreadable(match, url: exchange.stubRequest.url, error)
            journal(exchange, match: match, status: 500, error: failure)
            sendText(500, failure.localizedDescription + "\n", exchange, on: connection)
            return
        }
        journal(exchange, match: match, status: prepared.status, headers: headers, body: Data(), bodySize: prepared.reader.length,
                truncated: true)
        connection.sendHead(status: prepared.status, headers: ordered(headers, exchange))
        if exchange.request.isHead || ConnectionHandler.isBodyless(prepared.status) {
            connection.finish()
            return
        }
        sendNext(from: source, throttle: match.response.throttle, on: connection)
    }

    private func sendNext(from source: ChunkSource, throttle: Int?, on connection: ConnectionHandler) {
        let size = throttle.map { max(256, $0 / 4) } ?? Self.streamChunk
        let next: Data?
        do {
            next = try source.next(size)
        } catch {
            // The file went away half-way: the client sees the connection end early.
            connection.drop(.close)
            return
        }
        guard let data = next else {
            connection.finish()
            return
        }
        connection.sendChunk(ByteBuffer(bytes: data)).assumeIsolated().whenComplete { [weak connection] result in
            guard let connection, connection.isActive, case .success = result else { return }
            if let throttle {
                connection.eventLoop.assumeIsolated().scheduleTask(in: Self.duration(Double(size) / Double(throttle))) { [weak connection] in
                    guard let connection, connection.isActive else { return }
                    self.sendNext(from: source, throttle: throttle, on: connection)
                }
            } else {
                self.sendNext(from: source, throttle: nil, on: connection)
            }
        }
    }

    /// What a client of a real server sees for each simulated error (docs: LocalServer.md).
    static func drop(for error: SimulatedNetworkError, hold: TimeInterval) -> ConnectionDrop? {
        switch error {
        case .timedOut: return .hold(hold)
        case .networkConnectionLost: return .close
        case .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .secureConnectionFailed, .cancelled:
            return .reset
        case .badServerResponse: return .garbage
        case .resourceUnavailable: return nil
        }
    }

    /// The rule's headers in a stable order, with CORS headers when asked for.
    func ordered(_ headers: [String: String], _ exchange: Exchange) -> [(String, String)] {
        var fields = ordered(headers)
        if configuration.cors { fields += corsHeaders(for: exchange.request) }
        return fields
    }

    /// The rule's headers in a stable order, without the framing ones.
    func ordered(_ headers: [String: String]) -> [(String, String)] {
        // Framing is the server's: a rule's Transfer-Encoding or Connection would contradict it.
        headers.filter { !Self.framing.contains($0.key.lowercased()) }
            .sorted { $0.key.lowercased() < $1.key.lowercased() }.map { ($0.key, $0.value) }
    }

    static let framing: Set<String> = ["connection", "transfer-encoding", "keep-alive", "upgrade", "trailer"]

    static func setLength(_ count: Int, in headers: inout [String: String]) {
        for name in headers.keys where name.lowercased() == "content-length" { headers[name] = nil }
        headers["Content-Length"] = String(count)
    }

    /// Saturating: a huge or infinite limit (`--header-timeout 1e10`) means "practically never", not a crash.
    static func duration(_ seconds: Double) -> TimeAmount {
        let nanoseconds = max(0, seconds) * 1e9
        return .nanoseconds(nanoseconds < Double(Int64.max / 2) ? Int64(nanoseconds) : Int64.max / 2)
    }
}
#endif
