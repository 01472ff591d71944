import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from the active ``StubEngine``.
///
/// It stays thin: ask the engine, deliver the response, record it in the journal, cancel pending work
/// in `stopLoading`. One engine serves per process (the one set by ``StubEngine/register()`` or
/// ``StubEngine/install(into:)``), because the URL loading system creates protocol instances itself
/// and gives them no way to be told which engine to ask.
public final class StubURLProtocol: URLProtocol {
    // The protocol's own state: set in startLoading, read in stopLoading, possibly on other threads.
    private let pending = Locked<Delivery?>(nil)

    /// The engine that answers requests, process-wide.
    static let servingEngine = Locked<StubEngine?>(nil)

    /// The engine currently answering requests, if any.
    public static var currentEngine: StubEngine? {
        servingEngine.withLock { $0 }
    }

    /// Bytes handed to the client at a time when the body is streamed.
    static let streamingChunkSize = 64 * 1024

    /// Bodies up to this size are always handed over in one piece.
    static let streamingThreshold = 256 * 1024

    /// How the body of a task's response is handed over: in chunks, or in one piece.
    ///
    /// On Linux, FoundationNetworking keeps only the last `didLoad` chunk for tasks answered through a
    /// completion handler or `data(for:)` (seen with Swift 6.3.1), so the body goes in one piece there,
    /// memory-mapped from a response file rather than read. Tasks whose session delegate receives the
    /// data are told each chunk, so they get it streamed and a large file never sits in memory whole.
    /// Apple platforms always stream.
    static func chunkSize(for task: URLSessionTask?) -> Int {
        #if canImport(FoundationNetworking)
        return FoundationNetworkingInspection.deliversChunksToDelegate(task) ? streamingChunkSize : Int.max
        #else
        return streamingChunkSize
        #endif
    }

    /// Redirects followed inside the protocol on Linux before giving up.
    static let maximumRedirects = 10

    // MARK: URLProtocol

    public override class func canInit(with request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return false }
        guard let engine = currentEngine else { return false }
        return engine.handles(StubRequest(request))
    }

    public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    public override func startLoading() {
        guard let engine = Self.currentEngine else {
            client?.urlProtocol(self, didFailWithError: URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: "StubKit: no stub engine is active"]))
            return
        }
        let delivery = Delivery(protocolInstance: self, engine: engine, request: request, task: task)
        pending.withLock { $0 = delivery }
        delivery.start()
    }

    public override func stopLoading() {
        let delivery = pending.withLock { current -> Delivery? in
            defer { current = nil }
            return current
        }
        delivery?.cancel()
    }

    // MARK: Request bodies

    /// The request body from `httpBody`, else read from `httpBodyStream` (what Apple's URLSession hands
    /// a protocol for most requests). `nil` when the loading system gave neither (upload tasks on Linux).
    static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        var data = Data()
        stream.open()
        defer { stream.close() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            if count <= 0 { break }
            data.append(buffer, count: count)
        }
        return data
    }

    /// Why a task cannot be served here, or `nil` when it can.
    static func unsupportedTaskReason(_ task: URLSessionTask?) -> String? {
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            return "StubKit cannot answer download tasks on Linux: FoundationNetworking gives a custom URLProtocol no way to produce the downloaded file (the completion handler would get a nil file URL). Use a data task (dataTask(with:) or data(for:)) and write the data to a file yourself."
        }
        #endif
        return nil
    }
}

extension StubURLProtocol {
    /// Keeps a streamed body from running ahead of a slow delegate: after every few chunks, when the
    /// session's delegate queue holds more than a few undelivered chunks, waits until it drains. The
    /// wait is on the queue's own completion, never a timer. Only where the queue can be found (Linux).
    final class BackPressure: @unchecked Sendable {
        // Used by the one thread that delivers the body.
        static let chunksBetweenChecks = 8
        static let queuedChunksAllowed = 8
        private let queue: OperationQueue?
        private var delivered = 0

        init(task: URLSessionTask?) {
            #if canImport(FoundationNetworking)
            queue = FoundationNetworkingInspection.delegateQueue(of: task)
            #else
            queue = nil
            #endif
        }

        func chunkDelivered() {
            delivered += 1
            guard let queue, delivered % Self.chunksBetweenChecks == 0, queue.operationCount > Self.queuedChunksAllowed else { return }
            queue.waitUntilAllOperationsAreFinished()
        }
    }

    /// One request on its way through: asks the engine, waits out the delay, streams headers and body
    /// (throttled if the rule says so), follows stubbed redirects, and writes the journal entry.
    final class Delivery: @unchecked Sendable {
        private weak var protocolInstance: StubURLProtocol?
        private let engine: StubEngine
        private let originalRequest: URLRequest
        private let isDownload: String?
        /// The task, asked how it takes data only when that matters (a large or throttled body).
        private let task: URLSessionTask?
        private let startedAt = Date()
        private let startTime = DispatchTime.now()
        private let cancelled = Locked(false)
        private let workItem = Locked<DispatchWorkItem?>(nil)
        /// Delayed and throttled responses wait here; one queue for all, not one per request.
        private static let delayQueue = DispatchQueue(label: "StubKit.delivery", attributes: .concurrent)

        init(protocolInstance: StubURLProtocol, engine: StubEngine, request: URLRequest, task: URLSessionTask?) {
            self.protocolInstance = protocolInstance
            self.engine = engine
            self.originalRequest = request
            self.isDownload = StubURLProtocol.unsupportedTaskReason(task)
            self.task = task
        }

        private var isCancelled: Bool { cancelled.withLock { $0 } }

        func cancel() {
            cancelled.withLock { $0 = true }
            workItem.withLock { $0 }?.cancel()
        }

        func start() {
            var request = originalRequest
            // Copying a URLRequest to set its body is not free in FoundationNetworking: only when the
            // body came as a stream, so the matcher and any redirect see it as data.
            if request.httpBody == nil, request.httpBodyStream != nil {
                request.httpBody = StubURLProtocol.body(of: originalRequest)
            }
            handle(request, redirects: 0)
        }

        /// Runs `body` after `delay` seconds on the delivery queue (or at once), unless cancelled first.
        private func after(_ delay: TimeInterval, _ body: @escaping @Sendable () -> Void) {
            guard delay > 0 else {
                body()
                return
            }
            let item = DispatchWorkItem { [self] in
                guard !isCancelled else { return }
                body()
            }
            workItem.withLock { $0 = item }
            Self.delayQueue.asyncAfter(deadline: .now() + delay, execute: item)
        }

        private func handle(_ request: URLRequest, redirects: Int) {
            let stubRequest = StubRequest(request)
            switch engine.decision(for: stubRequest) {
            case .answer(let match):
                if let reason = isDownload {
                    fail(URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: request.url as Any]),
                         request: stubRequest, match: match)
                    return
                }
                after(match.delay) { [self] in respond(match, to: request, stubRequest: stubRequest, redirects: redirects) }
            case .refuse(let report):
                fail(URLError(.notConnectedToInternet, userInfo: [NSLocalizedDescriptionKey: report.description, NSURLErrorFailingURLErrorKey: request.url as Any]),
                     request: stubRequest, nearMisses: report.nearMisses)
            case .sequenceExhausted(let rule, let bundle, let used):
                let description = "StubKit: rule \(rule.displayName) in \(bundle) (\(rule.source.locationDescription)) has used all \(used) of its responses and its 'afterLast' is 'fail'; \(stubRequest.method) \(stubRequest.url.absoluteString) was not answered"
                fail(URLError(.resourceUnavailable, userInfo: [NSLocalizedDescriptionKey: description, NSURLErrorFailingURLErrorKey: request.url as Any]),
                     request: stubRequest, match: StubMatch(rule: rule, bundle: bundle, parameters: [:], response: rule.response, delay: 0, hit: used))
            case .passThrough:
                // The bundles changed between canInit and startLoading (or a redirect left the stubs).
                fail(URLError(.cannotLoadFromNetwork, userInfo: [
                    NSLocalizedDescriptionKey: "StubKit: no rule answers \(stubRequest.method) \(stubRequest.url.absoluteString) any more, and the kill switch is off; StubKit does not forward requests itself",
                    NSURLErrorFailingURLErrorKey: request.url as Any,
                ]), request: stubRequest)
            }
        }

        private func respond(_ match: StubMatch, to request: URLRequest, stubRequest: StubRequest, redirects: Int) {
            guard !isCancelled, let instance = protocolInstance, let client = instance.client else { return }
            let response = match.response
            let url = request.url!
            if let error = response.error {
                fail(URLError(error.code, userInfo: [
                    NSLocalizedDescriptionKey: "StubKit simulated \(error.rawValue) for \(stubRequest.method) \(url.absoluteString) (rule \(match.rule.displayName) in \(match.bundle))",
                    NSURLErrorFailingURLErrorKey: url,
                ]), request: stubRequest, match: match)
                return
            }

            // Templates are filled in per request; everything else was prepared at load time.
            var headers = response.headerFields
            var renderedBody: Data? = nil
            if let templates = response.template {
                var context = ResponseTemplate.Context(request: stubRequest, parameters: match.parameters, now: engine.now, hit: match.hit)
                for (name, template) in templates.headers { headers[name] = template.render(&context) }
                if let body = templates.body { renderedBody = Data(body.render(&context).utf8) }
            }
            let body = renderedBody.map { ResponseBodyReader(.inline($0)) } ?? ResponseBodyReader(response.body)
            let length = String(body.length)
            if headers["Content-Length"] != length { headers["Content-Length"] = length }
            guard let httpResponse = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                fail(URLError(.badServerResponse), request: stubRequest, match: match)
                return
            }

            if let location = headers.first(where: { $0.key.lowercased() == "location" })?.value, response.redirectLocation != nil,
               let target = URL(string: location, relativeTo: url)?.absoluteURL {
                var next = URLRequest(url: target)
                next.allHTTPHeaderFields = request.allHTTPHeaderFields
                // 301, 302 and 303 turn into GET without a body, as browsers and URLSession do; 307 and 308 keep both.
                if [307, 308].contains(response.status) {
                    next.httpMethod = request.httpMethod
                    next.httpBody = request.httpBody
                } else {
                    next.httpMethod = request.httpMethod?.uppercased() == "HEAD" ? "HEAD" : "GET"
                }
                record(stubRequest, match: match, status: response.status, headers: headers, body: Data())
                #if canImport(FoundationNetworking)
                // FoundationNetworking does not implement wasRedirectedTo for custom protocols (it traps),
                // so the redirect is followed here, through the same stubs.
                guard redirects < StubURLProtocol.maximumRedirects else {
                    fail(URLError(.httpTooManyRedirects, userInfo: [NSLocalizedDescriptionKey: "StubKit: more than \(StubURLProtocol.maximumRedirects) redirects, last to \(target.absoluteString)"]),
                         request: stubRequest)
                    return
                }
                handle(next, redirects: redirects + 1)
                #else
                // The loading system starts a new load for `next`; this one is ended with the
                // user-cancelled error it ignores (as Apple's CustomHTTPProtocol sample does).
                client.urlProtocol(instance, wasRedirectedTo: next, redirectResponse: httpResponse)
                client.urlProtocol(instance, didFailWithError: NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError))
                #endif
                return
            }

            client.urlProtocol(instance, didReceive: httpResponse, cacheStoragePolicy: .notAllowed)
            let isHead = request.httpMethod?.uppercased() == "HEAD"
            let sentHeaders = headers
            // Small bodies go in one piece everywhere; only large or throttled ones are worth streaming.
            let chunkSize = body.length > StubURLProtocol.streamingThreshold || response.throttle != nil
                ? StubURLProtocol.chunkSize(for: task) : Int.max
            let backPressure = chunkSize == Int.max ? nil : StubURLProtocol.BackPressure(task: task)
            let deliverBody: @Sendable () -> Void = { [self] in
                guard let instance = protocolInstance, let client = instance.client else { return }
                var kept = Data()
                do {
                    if !isHead {
                        try body.forEachChunk(size: chunkSize) { chunk in
                            guard !isCancelled else { return false }
                            if kept.count + chunk.count <= JournalEntry.maximumBodySize { kept.append(chunk) }
                            client.urlProtocol(instance, didLoad: chunk)
                            backPressure?.chunkDelivered()
                            return true
                        }
                    }
                } catch {
                    fail(URLError(.cannotOpenFile, userInfo: [
                        NSLocalizedDescriptionKey: "StubKit could not read the response file for rule \(match.rule.displayName): \(error.localizedDescription)",
                        NSURLErrorFailingURLErrorKey: url,
                    ]), request: stubRequest, match: match)
                    return
                }
                guard !isCancelled else { return }
                record(stubRequest, match: match, status: response.status, headers: sentHeaders, body: body.length <= JournalEntry.maximumBodySize ? kept : nil,
                       bodySize: isHead ? 0 : body.length)
                client.urlProtocolDidFinishLoading(instance)
            }
            if let throttle = response.throttle, !isHead, body.length > 0 {
                if chunkSize == Int.max {
                    // This task must get the body in one piece (see chunkSize(for:)): it arrives whole
                    // when length / bandwidth seconds have passed.
                    after(Double(body.length) / Double(throttle), deliverBody)
                } else {
                    drip(response, renderedBody: renderedBody, throttle: throttle, match: match, request: stubRequest, headers: sentHeaders)
                }
            } else {
                deliverBody()
            }
        }

        /// Delivers the body in quarter-second chunks at `throttle` bytes per second, as a slow line would.
        private func drip(_ response: StubResponse, renderedBody: Data?, throttle: Int, match: StubMatch, request: StubRequest, headers: [String: String]) {
            let source: ChunkSource
            do {
                source = try ChunkSource(response.body, rendered: renderedBody)
            } catch {
                fail(URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "StubKit could not read the response file for rule \(match.rule.displayName): \(error.localizedDescription)"]),
                     request: request, match: match)
                return
            }
            let size = max(256, throttle / 4)
            let kept = Locked((data: Data(), count: 0))
            @Sendable func step() {
                guard !isCancelled, let instance = protocolInstance, let client = instance.client else { return }
                do {
                    if let chunk = try source.next(size) {
                        kept.withLock { state in
                            state.count += chunk.count
                            if state.count <= JournalEntry.maximumBodySize { state.data.append(chunk) }
                        }
                        client.urlProtocol(instance, didLoad: chunk)
                        after(Double(chunk.count) / Double(throttle), step)
                        return
                    }
                } catch {
                    fail(URLError(.cannotOpenFile, userInfo: [NSLocalizedDescriptionKey: "StubKit could not read the response file for rule \(match.rule.displayName): \(error.localizedDescription)"]),
                         request: request, match: match)
                    return
                }
                let (data, count) = kept.withLock { ($0.data, $0.count) }
                record(request, match: match, status: response.status, headers: headers, body: count <= JournalEntry.maximumBodySize ? data : nil, bodySize: count)
                client.urlProtocolDidFinishLoading(instance)
            }
            step()
        }

        private func fail(_ error: URLError, request: StubRequest, match: StubMatch? = nil, nearMisses: [NearMiss] = []) {
            engine.journal.record { id in
                JournalEntry(id: id, startedAt: startedAt, duration: elapsed, request: request, bundle: match?.bundle,
                             rule: match.map(Self.reference), status: nil, responseHeaders: [:], responseBody: nil, responseBodySize: 0,
                             error: .init(code: error.errorCode, description: error.localizedDescription), nearMisses: nearMisses)
            }
            guard let instance = protocolInstance else { return }
            instance.client?.urlProtocol(instance, didFailWithError: error)
        }

        private func record(_ request: StubRequest, match: StubMatch, status: Int, headers: [String: String], body: Data?, bodySize: Int? = nil) {
            engine.journal.record { id in
                JournalEntry(id: id, startedAt: startedAt, duration: elapsed, request: request, bundle: match.bundle,
                             rule: Self.reference(match), status: status, responseHeaders: headers, responseBody: body,
                             responseBodySize: bodySize ?? body?.count ?? 0, error: nil, nearMisses: [])
            }
        }

        private var elapsed: TimeInterval {
            Double(DispatchTime.now().uptimeNanoseconds - startTime.uptimeNanoseconds) / 1e9
        }

        private static func reference(_ match: StubMatch) -> JournalEntry.RuleReference {
            JournalEntry.RuleReference(name: match.rule.displayName, location: match.rule.source.locationDescription, keyPath: match.rule.source.keyPath)
        }
    }
}
