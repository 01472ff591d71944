import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives what a forwarded request brings back, in order: one response, its data, one completion.
///
/// Called on the forwarder's own serial queue; a receiver hops to wherever it must deliver.
protocol ForwardingReceiver: AnyObject, Sendable {
    func forwarder(didReceive response: HTTPURLResponse)
    func forwarder(didReceive data: Data)
    /// The last call: `nil` when the response arrived whole.
    func forwarder(didCompleteWithError error: (any Error)?)
}

/// Sends requests to the real network on a session StubKit never intercepts, and relays what comes back.
///
/// The one piece behind every pass-through: a request a rule was written for that turned out not to
/// match once its body was read (with the kill switch off), and later the recorder. Same method,
/// headers and body bytes as the app sent; the session keeps no cookies and no cache of its own, so it
/// adds nothing the app's session did not send. Redirects are followed, so the app sees the final
/// response (as it would from its own session).
final class Forwarder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One session for the process, made on first use.
    static let shared = Forwarder()

    // `receivers` is guarded by its lock; `session` is set once in init.
    private let receivers = Locked<[Int: any ForwardingReceiver]>([:])
    private var session: URLSession!

    private override init() {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral.copy() as! URLSessionConfiguration
        // On Apple platforms the ephemeral configuration may carry StubURLProtocol (see
        // StubEngine.register()); a forwarded request must never come back to StubKit.
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { $0 != StubURLProtocol.self }
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "StubKit.forwarder"
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Where tasks are created: FoundationNetworking's sessions share one serial work queue, and
    /// making a task from inside `startLoading` (which runs on it) would wait for that queue itself.
    private let startQueue = DispatchQueue(label: "StubKit.forwarder.start")

    /// Starts sending `request` (whose body, if any, is in `httpBody`); `receiver` hears the outcome.
    /// - Returns: a cancel function, which ends the exchange with no further calls to `receiver`.
    @discardableResult
    func forward(_ request: URLRequest, to receiver: any ForwardingReceiver) -> @Sendable () -> Void {
        // The task once made, and whether a cancel came first (then it is never made).
        let started = Locked<(task: URLSessionTask?, cancelled: Bool)>((nil, false))
        startQueue.async { [session, receivers] in
            guard let session else { return }
            let task = session.dataTask(with: request)
            let go = started.withLock { state -> Bool in
                guard !state.cancelled else { return false }
                state.task = task
                return true
            }
            guard go else { return }
            receivers.withLock { $0[task.taskIdentifier] = receiver }
            task.resume()
        }
        return { [receivers] in
            let task = started.withLock { state -> URLSessionTask? in
                state.cancelled = true
                return state.task
            }
            guard let task else { return }
            if receivers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) != nil { task.cancel() }
        }
    }

    /// The protocol classes of the forwarder's session (for tests: StubURLProtocol is never among them).
    var protocolClasses: [AnyClass] {
        session.configuration.protocolClasses ?? []
    }

    private func receiver(for task: URLSessionTask) -> (any ForwardingReceiver)? {
        receivers.withLock { $0[task.taskIdentifier] }
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse { receiver(for: dataTask)?.forwarder(didReceive: http) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        receiver(for: dataTask)?.forwarder(didReceive: data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let receiver = receivers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        receiver?.forwarder(didCompleteWithError: error)
    }
}
