import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request on its way through ``StubURLProtocol``: asks the engine, waits out the delay, sends
/// headers and body, follows stubbed redirects, forwards what no rule answers after all, and writes
/// exactly one journal entry (per redirect hop) for it.
///
/// Every client call goes through the ``LoadExecutor``; everything that happens later than
/// `startLoading` runs on the executor's context. `stop()` may come from that context (Apple,
/// FoundationNetworking's work queue) or, in the fallback, from another thread: the executor makes
/// the calls and the stop exclusive.
///
/// Relaying a forwarded response is in `StubLoad+Relay.swift`; the members it shares are internal.
final class StubLoad: @unchecked Sendable {
    let executor: LoadExecutor
    let engine: StubEngine
    weak var task: URLSessionTask?
    private let isDownload: String?
    private let redirectMode: RedirectFollower.Mode
    private let startedAt = Date()
    private let startTime = DispatchTime.now()
    /// What the journal needs if the load is stopped half-way, and whether its entry is written.
    let progress = Locked(Progress())
    /// Touched only on the executor's context.
    private var streamer: BodyStreamer?
    /// The body of the request being decided still partly in its stream, as `handle` got it.
    private var unreadBody: RequestBodyStream?
    /// The forwarded response, once the request goes to the network. Touched only on the executor's context.
    var relay: Relay?

    struct Progress {
        var request: StubRequest?
        var match: StubMatch?
        var status: Int?
        var headers: [String: String] = [:]
        var journalled = false
        var passedThrough = false
        var cancelForward: (@Sendable () -> Void)?
        /// What the journal keeps of a body left partly in its stream (``StubRequest/bodyPending``).
        var unreadBodyStart: Data?
        /// The events an event stream has sent so far, which the journal keeps if the app leaves it.
        var streamed: BodyStreamer.Sent?
    }


    init(instance: StubURLProtocol, engine: StubEngine, task: URLSessionTask?, redirectMode: RedirectFollower.Mode = .platform) {
        self.executor = LoadExecutor(instance: instance, task: task)
        self.engine = engine
        self.task = task
        self.redirectMode = redirectMode
        self.isDownload = StubURLProtocol.unsupportedTaskReason(task)
    }

    /// Whether the load made its last client call (finished or failed), rather than being stopped.
    var hasFinished: Bool { executor.hasFinished }

    /// Ends the load before it starts, for a task that has already completed: no client call, and
    /// `StubURLProtocol.client` shows none, so FoundationNetworking makes none either. Journalled as cancelled.
    func abandon(_ request: URLRequest) {
        executor.abandon()
        record(StubRequest(request), match: nil, status: nil, headers: [:], body: nil, final: true,
               error: URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "cancelled by the app before loading started"]))
    }

    /// Called in `startLoading`, on its thread.
    func start(_ original: URLRequest) {
        var request = original
        var unread: RequestBodyStream?
        // Apple's URLSession hands most bodies over as a stream. The journal's share of it is read now
        // (its body limit + 1 bytes, none when it keeps no bodies), the whole body only when the answer
        // depends on it (see `handle`) or it is recorded: a large upload to a rule that ignores the body
        // is not held in memory for nothing. Copying a URLRequest is not free in FoundationNetworking:
        // only when there is a stream.
        if request.httpBody == nil, let stream = request.httpBodyStream {
            let body = RequestBodyStream(stream)
            let recorded = engine.recorder.map { $0.records(StubRequest(original)) } ?? false
            let journalLimit = min(engine.journal.limits.maximumBodySize, StubURLProtocol.maximumStreamedBodySize)
            guard readStreamedBody(body, of: original, whole: recorded, upTo: journalLimit) != nil else { return }
            if body.ended { request.httpBody = body.data } else { unread = body }
        }
        // Keyed by the request with its body read: canInit may have seen a body as `httpBody` that Apple
        // moved into a stream on the way; its lookup must be taken, or it stays in the memo holding the
        // body and an old index.
        handle(request, redirects: 0, found: engine.lookups.take(LookupMemo.Key(request)), unread: unread)
    }

    /// Reads `body` whole (up to ``StubURLProtocol/maximumStreamedBodySize``) or up to `limit` + 1 bytes
    /// (nothing for 0). `nil` after failing the load with a clear error when the stream fails or is
    /// over the cap.
    private func readStreamedBody(_ body: RequestBodyStream, of original: URLRequest, whole: Bool, upTo limit: Int = 0) -> Data? {
        do {
            if whole { return try body.whole() }
            if limit > 0 { try body.read(upTo: limit) }
            return body.data
        } catch {
            let stubRequest = StubRequest(original)
            progress.withLock { $0.request = stubRequest }
            let code: URLError.Code = error is StubURLProtocol.BodyTooLarge ? .dataLengthExceedsMaximum : .cannotDecodeRawData
            fail(URLError(code, userInfo: [
                NSLocalizedDescriptionKey: "StubKit could not read the request body stream of \(stubRequest.method) \(stubRequest.url.absoluteString): \(error.localizedDescription)",
                NSURLErrorFailingURLErrorKey: original.url as Any,
            ]), request: stubRequest)
            return nil
        }
    }

    /// Called in `stopLoading`. No client call follows; a load stopped half-way is journalled as cancelled.
    func stop() {
        let wasRunning = executor.stop()
        let cancelForward = progress.withLock { state -> (@Sendable () -> Void)? in
            defer { state.cancelForward = nil }
            return state.cancelForward
        }
        cancelForward?()
        let state = progress.withLock { $0 }
        let cancelled = { @Sendable [self] (recording: (recordedAs: String?, recordingFailure: String?)) in
            guard wasRunning, let request = state.request else { return }
            record(request, match: state.match, status: state.status, headers: state.headers, body: state.streamed?.kept,
                   bodySize: state.streamed?.count, truncated: state.streamed?.truncated ?? false, passThrough: state.passedThrough, final: true,
                   error: URLError(.cancelled, userInfo: [NSLocalizedDescriptionKey: "cancelled by the app before the response was complete"]),
                   recordedAs: recording.recordedAs, recordingFailure: recording.recordingFailure)
        }
        // A relayed event stream is recorded first, so its entry can say where.
        if state.passedThrough {
            executor.performEvenWhenOver { [self] in cancelled(finishRelayedEventStream()) }
        } else {
            cancelled((nil, nil))
        }
    }

    // MARK: Deciding

    /// `found` is what `canInit` found for this very request, when the engine kept it.
    /// `unread` is the body still in its stream: the request is decided with its body pending, and the
    /// body read whole and the request decided again when the answer depends on it.
    private func handle(_ request: URLRequest, redirects: Int, found: LookupMemo.Found? = nil, unread: RequestBodyStream? = nil) {
        let stubRequest = found?.request ?? StubRequest(request, bodyPending: unread != nil)
        unreadBody = unread
        progress.withLock {
            $0.request = stubRequest; $0.match = nil; $0.status = nil; $0.headers = [:]; $0.streamed = nil
            $0.unreadBodyStart = unread?.data
        }
        guard let decision = engine.decision(for: stubRequest, found: found, bodyOnDemand: unread != nil) else {
            guard let unread, let body = readStreamedBody(unread, of: request, whole: true) else { return }
            var read = request
            read.httpBody = body
            handle(read, redirects: redirects)
            return
        }
        switch decision {
        case .answer(let match):
            progress.withLock { $0.match = match }
            if let recorder = engine.recorder, recorder.records(stubRequest) { recorder.noteReplayed() }
            if let reason = isDownload {
                fail(URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: request.url as Any]),
                     request: stubRequest, match: match)
                return
            }
            if match.delay > 0 {
                executor.after(match.delay) { [self] in respond(match, to: request, stubRequest: stubRequest, redirects: redirects) }
            } else {
                respond(match, to: request, stubRequest: stubRequest, redirects: redirects)
            }
        case .refuse(let report):
            fail(URLError(.notConnectedToInternet, userInfo: [NSLocalizedDescriptionKey: report.description, NSURLErrorFailingURLErrorKey: request.url as Any]),
                 request: stubRequest, nearMisses: report.nearMisses)
        case .sequenceExhausted(let rule, let bundle, let used):
            let description = "StubKit: rule \(rule.displayName) in \(bundle) (\(rule.source.locationDescription)) has used all \(used) of its responses and its 'afterLast' is 'fail'; \(stubRequest.method) \(stubRequest.url.absoluteString) was not answered"
            fail(URLError(.resourceUnavailable, userInfo: [NSLocalizedDescriptionKey: description, NSURLErrorFailingURLErrorKey: request.url as Any]),
                 request: stubRequest, match: StubMatch(rule: rule, bundle: bundle, parameters: [:], response: rule.response, delay: 0, hit: used))
        case .passThrough:
            // No rule answers once the body is known (or a stubbed redirect left the stubs), and the
            // kill switch is off: the request goes to the network, relayed through the forwarder.
            forward(request, stubRequest: stubRequest)
        }
    }

    // MARK: Answering from a rule

    private func respond(_ match: StubMatch, to request: URLRequest, stubRequest: StubRequest, redirects: Int) {
        let response = match.response
        let url = request.url!
        let prepared: PreparedResponse
        switch PreparedResponse.render(match, for: stubRequest, now: engine.now) {
        case .failure(let error):
            fail(error, request: stubRequest, match: match)
            return
        case .success(let ready):
            prepared = ready
        }
        let headers = prepared.headers, reader = prepared.reader, renderedBody = prepared.rendered
        guard let httpResponse = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: headers) else {
            fail(URLError(.badServerResponse), request: stubRequest, match: match)
            return
        }
        progress.withLock { $0.status = response.status; $0.headers = headers }

        if response.redirectLocation != nil, let location = headers.first(where: { $0.key.lowercased() == "location" })?.value,
           let next = RedirectFollower.nextRequest(after: request, status: response.status, location: location) {
            switch redirectMode {
            case .followHere:
                follow(next, from: request, response: httpResponse, match: match, stubRequest: stubRequest, headers: headers, redirects: redirects)
                return
            case .tellLoadingSystem:
                // Then the 3xx goes on as any response (see RedirectFollower.Mode). The loading system
                // builds the next request itself from the original, stream included: `next` carries
                // no body here, and none is read for it.
                executor.withClient { client, instance in client.urlProtocol(instance, wasRedirectedTo: next, redirectResponse: httpResponse) }
            }
        }

        executor.withClient { client, instance in client.urlProtocol(instance, didReceive: httpResponse, cacheStoragePolicy: .notAllowed) }
        let isHead = request.httpMethod?.uppercased() == "HEAD"
        if let events = prepared.events, !isHead {
            sendEvents(events, match: match, stubRequest: stubRequest, headers: headers)
            return
        }
        if isHead || reader.length == 0 {
            record(stubRequest, match: match, status: response.status, headers: headers, body: Data(), bodySize: 0, final: true)
            executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
            return
        }
        // Small bodies go in one piece everywhere; only large or throttled ones are worth streaming.
        let chunkSize = reader.length > StubURLProtocol.streamingThreshold || response.throttle != nil
            ? StubURLProtocol.chunkSize(for: task) : Int.max
        if chunkSize == Int.max && response.throttle == nil {
            sendWhole(reader, rendered: renderedBody, match: match, stubRequest: stubRequest, headers: headers, url: url)
            return
        }
        let streamer = BodyStreamer(
            reader: reader, rendered: renderedBody, chunkSize: chunkSize,
            throttle: chunkSize == Int.max ? nil : response.throttle, executor: executor, task: task,
            delegateQueue: chunkSize == Int.max ? nil : StubURLProtocol.delegateQueue(of: task),
            keepLimit: engine.journal.limits.maximumBodySize,
            deliver: { [executor] chunk in executor.withClient { client, instance in client.urlProtocol(instance, didLoad: chunk) } },
            end: { [weak self] result in
                guard let self else { return }
                self.streamer = nil
                switch result {
                case .success(let sent):
                    self.record(stubRequest, match: match, status: response.status, headers: headers, body: sent.kept, bodySize: sent.count,
                           truncated: sent.truncated, final: true)
                    self.executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
                case .failure(let error):
                    self.fail(PreparedResponse.unreadable(match, url: url, error), request: stubRequest, match: match)
                }
            })
        self.streamer = streamer
        if let throttle = response.throttle, chunkSize == Int.max {
            // This task takes the body in one piece (see StubURLProtocol.chunkSize(for:)): it arrives
            // whole when length / bandwidth seconds have passed.
            executor.after(Double(reader.length) / Double(throttle)) { streamer.start() }
        } else {
            streamer.start()
        }
    }

    /// The body in one piece, now: what nearly every stubbed request takes (a small body, no throttle),
    /// so it costs no streamer and no closures. The same client calls and journal entry as
    /// ``BodyStreamer``'s one-piece delivery.
    private func sendWhole(_ reader: ResponseBodyReader, rendered: Data?, match: StubMatch, stubRequest: StubRequest,
                           headers: [String: String], url: URL) {
        let whole: Data
        do {
            whole = try rendered ?? reader.whole()
        } catch {
            fail(PreparedResponse.unreadable(match, url: url, error), request: stubRequest, match: match)
            return
        }
        if !whole.isEmpty { executor.withClient { client, instance in client.urlProtocol(instance, didLoad: whole) } }
        // The journal shares a small body; a larger one may be a mapped file, which the journal must
        // not keep mapped (a file cut short under the mapping would crash a later read): it gets a copy.
        let keepLimit = engine.journal.limits.maximumBodySize
        let truncated = whole.count > keepLimit
        let kept = whole.count <= ResponseBodyReader.mapThreshold && !truncated ? whole : Data(whole.prefix(keepLimit))
        record(stubRequest, match: match, status: match.response.status, headers: headers, body: kept,
               bodySize: whole.count, truncated: truncated, final: true)
        executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
    }

    /// Follows a stubbed redirect inside this load (FoundationNetworking traps on `wasRedirectedTo`
    /// from a custom protocol): the next request is matched against the stubs, or passed through.
    /// A 307 or 308 keeps the body: one still partly in its stream (the rule did not look at it) is read
    /// whole now, up to the cap, so that the next hop is matched on it or forwarded with it.
    private func follow(_ next: URLRequest, from request: URLRequest, response: HTTPURLResponse, match: StubMatch, stubRequest: StubRequest,
                        headers: [String: String], redirects: Int) {
        record(stubRequest, match: match, status: response.statusCode, headers: headers, body: Data(), final: false)
        guard redirects < RedirectFollower.maximumRedirects else {
            fail(RedirectFollower.tooMany(last: next.url), request: stubRequest)
            return
        }
        var next = next
        if RedirectFollower.keepsBody(status: response.statusCode), let unread = unreadBody {
            guard let body = readStreamedBody(unread, of: request, whole: true) else { return }
            next.httpBody = body
        }
        handle(next, redirects: redirects + 1)
    }

    // MARK: Passing through

    private func forward(_ original: URLRequest, stubRequest: StubRequest) {
        // The network gets the body bytes: a stream left unread for the rules is read now. Only the
        // first request carries a stream; a 307/308 hop gets the body as `httpBody` (see `follow`).
        var request = original
        if request.httpBody == nil, let stream = request.httpBodyStream {
            guard let body = readStreamedBody(RequestBodyStream(stream), of: original, whole: true) else { return }
            request.httpBody = body
        }
        let recorder = engine.recorder.flatMap { $0.records(stubRequest) ? $0 : nil }
        if let recorder, let reason = Recorder.unrecordableTaskReason(task, hasBody: request.httpBody != nil) {
            let error = URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: request.url as Any])
            recorder.noteFailed(error)
            fail(error, request: stubRequest)
            return
        }
        if let reason = isDownload {
            fail(URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: request.url as Any]),
                 request: stubRequest)
            return
        }
        relay = Relay(response: ForwardedResponse(request: stubRequest, recorder: recorder, keepsAtMost: engine.journal.limits.maximumBodySize),
                      onePiece: StubURLProtocol.chunkSize(for: task) == Int.max)
        progress.withLock { $0.passedThrough = true }
        // The forwarder answers on its own queue: find this load's context now, on it.
        executor.prepareContext()
        let cancel = Forwarder.shared.forward(request, to: self)
        let stoppedMeanwhile = progress.withLock { state -> Bool in
            state.cancelForward = cancel
            return executor.isOver
        }
        if stoppedMeanwhile { cancel() }
    }

    // MARK: Ending

    private func fail(_ error: URLError, request: StubRequest, match: StubMatch? = nil, nearMisses: [NearMiss] = []) {
        record(request, match: match, status: nil, headers: [:], body: nil, final: true, error: error, nearMisses: nearMisses)
        executor.withClient(ends: true) { client, instance in client.urlProtocol(instance, didFailWithError: error) }
    }

    /// Writes a journal entry; `final` entries are written once per load (the stop writes one only if
    /// nothing else did).
    func record(_ request: StubRequest, match: StubMatch?, status: Int?, headers: [String: String], body: Data?,
                        bodySize: Int? = nil, truncated: Bool = false, passThrough: Bool = false, final: Bool,
                        error: URLError? = nil, nearMisses: [NearMiss] = [], recordedAs: String? = nil, recordingFailure: String? = nil) {
        if final {
            let first = progress.withLock { state -> Bool in
                defer { state.journalled = true }
                return !state.journalled
            }
            guard first else { return }
        }
        // A body left partly in its stream: the journal gets the part read, marked as cut, of a size
        // known only from Content-Length.
        var request = request, unreadBodySize: Int?
        if request.bodyPending, let start = progress.withLock({ $0.unreadBodyStart }) {
            request.body = start
            request.bodyPending = false
            unreadBodySize = request.headers["content-length"].flatMap { Int($0) }.flatMap { $0 >= start.count ? $0 : nil } ?? -1
        }
        let duration = Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
        let rule = match.map { JournalEntry.RuleReference($0.rule) }
        let errorInfo = error.map { JournalEntry.ErrorInfo(code: $0.errorCode, description: $0.localizedDescription) }
        engine.journal.record { id in
            var entry = JournalEntry(id: id, startedAt: startedAt, duration: duration, request: request, bundle: match?.bundle,
                                     rule: rule, status: status, responseHeaders: headers, responseBody: body,
                                     responseBodySize: bodySize ?? body?.count ?? 0, responseBodyTruncated: truncated, passedThrough: passThrough,
                                     error: errorInfo, nearMisses: nearMisses, recordedAs: recordedAs, recordingFailure: recordingFailure)
            if let unreadBodySize {
                entry.requestBodySize = unreadBodySize
                entry.requestBodyTruncated = true
            }
            return entry
        }
    }
}
