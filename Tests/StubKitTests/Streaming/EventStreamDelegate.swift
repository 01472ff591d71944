import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A session delegate that reads an event stream as an app does: every `didReceive data` chunk with
/// the monotonic time it arrived, the response head, and the completion; waits are bounded and
/// resume on the event itself, never on time passing.
final class EventStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    struct Chunk: Sendable {
        var data: Data
        /// `DispatchTime.now().uptimeNanoseconds` when the delegate got it.
        var at: UInt64
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    private let lock = NSLock()
    private var received: [Chunk] = []
    private var head: URLResponse?
    private var completion: (error: (any Error)?, at: UInt64)?
    /// Who waits, for what: a number of chunks, or the completion (`nil`).
    private var waiters: [Int: (chunks: Int?, continuation: CheckedContinuation<Bool, Never>)] = [:]
    private var nextWaiter = 0
    /// Cancels the task in `didReceive` of this chunk (1-based).
    private let cancelAtChunk: Int?
    /// Runs in `didReceive` with the chunk's number (1-based), before the next chunk can arrive.
    private let onChunk: (@Sendable (Int, Data) -> Void)?

    init(cancelAtChunk: Int? = nil, onChunk: (@Sendable (Int, Data) -> Void)? = nil) {
        self.cancelAtChunk = cancelAtChunk
        self.onChunk = onChunk
    }

    var chunks: [Chunk] { lock.withLock { received } }
    var response: HTTPURLResponse? { lock.withLock { head as? HTTPURLResponse } }
    var error: (any Error)? { lock.withLock { completion?.error } }
    var hasCompleted: Bool { lock.withLock { completion != nil } }
    var completedAt: UInt64? { lock.withLock { completion?.at } }
    /// Everything received, as text, in order.
    var text: String { lock.withLock { String(decoding: received.reduce(Data()) { $0 + $1.data }, as: UTF8.self) } }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        lock.withLock { head = response }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let at = DispatchTime.now().uptimeNanoseconds
        let count = lock.withLock { () -> Int in
            received.append(Chunk(data: data, at: at))
            return received.count
        }
        onChunk?(count, data)
        if count == cancelAtChunk { dataTask.cancel() }
        release(where: { $0.map { $0 <= count } ?? false }, with: true)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let at = DispatchTime.now().uptimeNanoseconds
        lock.withLock { completion = (error, at) }
        release(where: { $0 == nil }, with: true)
        // A stream that ended short of the chunks someone waits for will not bring them.
        release(where: { _ in true }, with: false)
    }

    private func release(where matches: (Int?) -> Bool, with result: Bool) {
        let ready = lock.withLock { () -> [CheckedContinuation<Bool, Never>] in
            let ids = waiters.filter { matches($0.value.chunks) }.map(\.key)
            return ids.compactMap { waiters.removeValue(forKey: $0)?.continuation }
        }
        for continuation in ready { continuation.resume(returning: result) }
    }

    /// Whether `count` chunks arrived within `seconds` (`false` at once if the task ended short of them).
    func waitForChunks(_ count: Int, within seconds: TimeInterval = 20) async -> Bool {
        await wait(for: count, within: seconds)
    }

    /// Whether the task completed within `seconds`.
    func waitForCompletion(within seconds: TimeInterval = 20) async -> Bool {
        await wait(for: nil, within: seconds)
    }

    private func wait(for chunks: Int?, within seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let id = lock.withLock { () -> Int? in
                if let chunks, received.count >= chunks { return nil }
                if completion != nil { return nil }
                nextWaiter += 1
                waiters[nextWaiter] = (chunks, continuation)
                return nextWaiter
            }
            guard let id else {
                let done = lock.withLock { chunks.map { received.count >= $0 } ?? true }
                continuation.resume(returning: done)
                return
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { [self] in
                lock.withLock { waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
            }
        }
    }
}
