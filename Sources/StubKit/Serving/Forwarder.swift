import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Receives what a forwarded request brings back, in order: one response, its data, one completion.
///
/// Called on the forwarder's own serial queue; a receiver hops to wherever it must deliver.
package protocol ForwardingReceiver: AnyObject, Sendable {
    /// Whether upstream redirects are followed (the app sees the final response, as from its own
    /// session) or relayed as they are (the local server sends the 3xx to its client).
    var followsRedirects: Bool { get }
    func forwarder(didReceive response: HTTPURLResponse)
    func forwarder(didReceive data: Data)
    /// The last call: `nil` when the response arrived whole.
    func forwarder(didCompleteWithError error: (any Error)?)
}

extension ForwardingReceiver {
    package var followsRedirects: Bool { true }
}

/// Sends requests to the real network on a session StubKit never intercepts, and relays what comes back.
///
/// The one piece behind every pass-through: a request a rule was written for that turned out not to
/// match once its body was read (with the kill switch off), and later the recorder. Same method,
/// headers and body bytes as the app sent; the session keeps no cookies and no cache of its own, so it
/// adds nothing the app's session did not send. Redirects are followed, so the app sees the final
/// response (as it would from its own session).
package final class Forwarder: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// One session for the process, made on first use.
    package static let shared = Forwarder()

    // `receivers` is guarded by its lock; `session` is set once in init.
    private let receivers = Locked<[Int: any ForwardingReceiver]>([:])
    private var session: URLSession!

    private override init() {
        super.init()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "StubKit.forwarder"
        session = URLSession(configuration: Self.configuration(from: .ephemeral), delegate: self, delegateQueue: queue)
    }

    /// The forwarder's configuration: `base` without any StubKit protocol class (on Apple platforms the ephemeral
    /// configuration carries it while an engine is registered, and a forwarded request must never
    /// come back to StubKit), and with no cookies or cache of its own.
    static func configuration(from base: URLSessionConfiguration) -> URLSessionConfiguration {
        let configuration = base.copy() as! URLSessionConfiguration
        configuration.protocolClasses = (configuration.protocolClasses ?? []).filter { !($0 is StubURLProtocol.Type) }
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return configuration
    }

    /// Where tasks are made, resumed and cancelled. On Linux every session's work queue targets one
    /// shared serial queue, and FoundationNetworking 6.3 makes, resumes and cancels tasks with a
    /// `sync` on it: doing any of that from `startLoading` or `stopLoading` (which run there) traps.
    private let controlQueue = DispatchQueue(label: "StubKit.forwarder.control")

    /// One forwarded exchange: made, then maybe cancelled, in any order, under one lock.
    private struct Exchange {
        var task: URLSessionTask?
        var cancelled = false
    }

    /// Starts sending `request` (whose body, if any, is in `httpBody`); `receiver` hears the outcome.
    /// - Returns: a cancel function, which ends the exchange with no further calls to `receiver`; a
    ///   cancel before the task is made means it is never made.
    @discardableResult
    package func forward(_ request: URLRequest, to receiver: any ForwardingReceiver) -> @Sendable () -> Void {
        let exchange = Locked(Exchange())
        controlQueue.async { [session, receivers] in
            guard let session else { return }
            exchange.withLock { exchange in
                guard !exchange.cancelled else { return }
                // Never an answer from a cache: the request goes to the network, as it would have without
                // StubKit (and a recording must hold what the backend said to each request).
                var request = request
                request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
                let task = session.dataTask(with: request)
                receivers.withLock { $0[task.taskIdentifier] = receiver }
                exchange.task = task
                task.resume()
            }
        }
        return { [controlQueue, receivers] in
            controlQueue.async {
                let task = exchange.withLock { exchange in
                    exchange.cancelled = true
                    return exchange.task
                }
                guard let task else { return }
                receivers.withLock { _ = $0.removeValue(forKey: task.taskIdentifier) }
                task.cancel()
            }
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

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let http = response as? HTTPURLResponse { receiver(for: dataTask)?.forwarder(didReceive: http) }
        completionHandler(.allow)
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                            newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(receiver(for: task)?.followsRedirects == false ? nil : request)
    }

    package func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        receiver(for: dataTask)?.forwarder(didReceive: data)
    }

    package func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let receiver = receivers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        receiver?.forwarder(didCompleteWithError: error)
    }
}
