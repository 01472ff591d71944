import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The `URLProtocol` that answers requests from the active ``StubEngine``.
///
/// It stays thin: find the rule, deliver the response, cancel pending work in `stopLoading`. One
/// engine serves per process (the one set by ``StubEngine/register()`` or
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

    /// Bytes handed to the client at a time.
    ///
    /// On Linux, FoundationNetworking keeps only the last `didLoad` chunk for tasks with a completion
    /// handler (seen with Swift 6.3.1), so the body goes in one piece there; a response file is then
    /// memory-mapped rather than read, so its pages stay file-backed instead of filling the heap.
    #if canImport(FoundationNetworking)
    static let deliveryChunkSize = Int.max
    #else
    static let deliveryChunkSize = 64 * 1024
    #endif

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
        let request = self.request
        guard let engine = Self.currentEngine else {
            fail(URLError(.cannotLoadFromNetwork, userInfo: [NSLocalizedDescriptionKey: "StubKit: no stub engine is active"]))
            return
        }
        let stubRequest = StubRequest(request, body: Self.body(of: request))
        switch engine.decision(for: stubRequest) {
        case .answer(let match):
            if let reason = Self.unsupportedTaskReason(task) {
                fail(URLError(.unsupportedURL, userInfo: [NSLocalizedDescriptionKey: reason, NSURLErrorFailingURLErrorKey: request.url as Any]))
                return
            }
            let delivery = Delivery(protocolInstance: self, match: match, request: request)
            pending.withLock { $0 = delivery }
            delivery.start()
        case .refuse(let report):
            fail(URLError(.notConnectedToInternet, userInfo: [
                NSLocalizedDescriptionKey: report.description,
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]))
        case .passThrough:
            // The bundles changed between canInit and startLoading; the request is no longer ours.
            fail(URLError(.cannotLoadFromNetwork, userInfo: [
                NSLocalizedDescriptionKey: "StubKit: the active stubs changed while \(stubRequest.method) \(stubRequest.url.absoluteString) was starting; no rule answers it now",
                NSURLErrorFailingURLErrorKey: request.url as Any,
            ]))
        }
    }

    public override func stopLoading() {
        let delivery = pending.withLock { current -> Delivery? in
            defer { current = nil }
            return current
        }
        delivery?.cancel()
    }

    private func fail(_ error: URLError) {
        client?.urlProtocol(self, didFailWithError: error)
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
    /// One response on its way to the client: waits out the delay, then streams headers and body.
    final class Delivery: @unchecked Sendable {
        private weak var protocolInstance: StubURLProtocol?
        private let match: StubMatch
        private let request: URLRequest
        private let cancelled = Locked(false)
        private let workItem = Locked<DispatchWorkItem?>(nil)
        /// Delayed responses wait here; one queue for all, not one per request.
        private static let delayQueue = DispatchQueue(label: "StubKit.delivery", attributes: .concurrent)

        init(protocolInstance: StubURLProtocol, match: StubMatch, request: URLRequest) {
            self.protocolInstance = protocolInstance
            self.match = match
            self.request = request
        }

        /// Delivers at once on the loading thread when there is no delay (as the URL loading system's own
        /// protocols do); otherwise schedules the delivery, which `cancel()` can still stop.
        func start() {
            let delay = match.rule.response.delay
            guard delay > 0 else {
                run()
                return
            }
            let item = DispatchWorkItem { [self] in run() }
            workItem.withLock { $0 = item }
            Self.delayQueue.asyncAfter(deadline: .now() + delay, execute: item)
        }

        func cancel() {
            cancelled.withLock { $0 = true }
            workItem.withLock { $0 }?.cancel()
        }

        private var isCancelled: Bool { cancelled.withLock { $0 } }

        private func run() {
            guard !isCancelled, let instance = protocolInstance, let client = instance.client else { return }
            let response = match.rule.response
            let url = request.url!
            if let error = response.error {
                client.urlProtocol(instance, didFailWithError: URLError(error.code, userInfo: [
                    NSLocalizedDescriptionKey: "StubKit simulated \(error.rawValue) for \(request.httpMethod ?? "GET") \(url.absoluteString) (rule \(match.rule.displayName) in \(match.bundle))",
                    NSURLErrorFailingURLErrorKey: url,
                ]))
                return
            }
            let body = ResponseBodyReader(response.body)
            var headers = response.headerFields
            headers["Content-Length"] = String(body.length)
            guard let httpResponse = HTTPURLResponse(url: url, statusCode: response.status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                client.urlProtocol(instance, didFailWithError: URLError(.badServerResponse))
                return
            }
            client.urlProtocol(instance, didReceive: httpResponse, cacheStoragePolicy: .notAllowed)
            if request.httpMethod?.uppercased() != "HEAD" {
                do {
                    try body.forEachChunk(size: StubURLProtocol.deliveryChunkSize) { chunk in
                        guard !isCancelled else { return false }
                        client.urlProtocol(instance, didLoad: chunk)
                        return true
                    }
                } catch {
                    client.urlProtocol(instance, didFailWithError: URLError(.cannotOpenFile, userInfo: [
                        NSLocalizedDescriptionKey: "StubKit could not read the response file for rule \(match.rule.displayName): \(error.localizedDescription)",
                        NSURLErrorFailingURLErrorKey: url,
                    ]))
                    return
                }
            }
            guard !isCancelled else { return }
            client.urlProtocolDidFinishLoading(instance)
        }
    }
}
