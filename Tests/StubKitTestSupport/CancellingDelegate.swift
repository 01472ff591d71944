import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that counts what it receives and cancels its task once `cancelWhen` says so,
/// as an app that gives up on a download half-way does.
public final class CancellingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let cancelWhen: @Sendable (_ chunks: Int, _ bytes: Int) -> Bool
    private var received = (chunks: 0, bytes: 0)
    private var collected = Data()
    private var done: CheckedContinuation<(any Error)?, Never>?
    /// Called when a task ends (for tasks not started with ``run(_:on:)``).
    public var onComplete: (@Sendable ((any Error)?) -> Void)? {
        get { lock.withLock { completion } }
        set { lock.withLock { completion = newValue } }
    }
    private var completion: (@Sendable ((any Error)?) -> Void)?

    public init(cancelWhen: @escaping @Sendable (_ chunks: Int, _ bytes: Int) -> Bool) {
        self.cancelWhen = cancelWhen
    }

    public var chunks: Int { lock.withLock { received.chunks } }
    public var bytes: Int { lock.withLock { received.bytes } }
    /// Everything received, in order.
    public var data: Data { lock.withLock { collected } }

    /// Runs `url` on `session` (whose delegate this is) and returns the error the task ended with.
    public func run(_ url: URL, on session: URLSession) async -> (any Error)? {
        await withCheckedContinuation { continuation in
            lock.withLock { done = continuation }
            session.dataTask(with: url).resume()
        }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let now = lock.withLock { () -> (Int, Int) in
            received.chunks += 1
            received.bytes += data.count
            collected.append(data)
            return received
        }
        if cancelWhen(now.0, now.1) { dataTask.cancel() }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, completion) = lock.withLock { () -> (CheckedContinuation<(any Error)?, Never>?, (@Sendable ((any Error)?) -> Void)?) in
            defer { done = nil }
            return (done, self.completion)
        }
        continuation?.resume(returning: error)
        completion?(error)
    }
}
