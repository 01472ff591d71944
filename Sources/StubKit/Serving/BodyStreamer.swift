import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hands a response body to the client in steps on the load's context, so a cancel lands mid-body.
///
/// - One piece (`chunkSize == Int.max`): the whole body in one `didLoad` (memory-mapped from a file).
/// - Streamed: one chunk per step, control given back to the context between steps, so a
///   `stopLoading` queued behind a step runs before the next chunk.
/// - Throttled: one chunk of a quarter-second's bytes per step, the next step on a timer that
///   `stopLoading` cancels.
/// - Back-pressure (Linux, where the session's delegate queue is known): after each chunk a marker
///   operation is queued on the delegate queue behind it; at most ``window`` chunk is ahead of the
///   delegate, and the next chunk is sent when its marker runs. Nothing ever blocks, so a delegate
///   that calls `cancel()` from `didReceive` cannot deadlock against the stream.
/// - Cancel means stop: a step of a task that is being cancelled sends nothing, even before the
///   loading system gets round to `stopLoading`. The loading system queues chunks for the delegate
///   without looking at the task's state, so with the window of one, a delegate that cancels in
///   `didReceive` gets at most one more chunk.
///
/// All state is touched only on the load's context, one step at a time.
final class BodyStreamer: @unchecked Sendable {
    /// Chunks handed over but not yet taken by a delegate whose queue is known.
    static let window = 1

    private let reader: ResponseBodyReader
    private let rendered: Data?
    private let chunkSize: Int
    private let throttle: Int?
    private let executor: LoadExecutor
    private weak var task: URLSessionTask?
    private let delegateQueue: OperationQueue?
    private let deliver: (Data) -> Void
    private let end: (Result<Sent, any Error>) -> Void
    private let keepLimit: Int
    private var source: ChunkSource?
    private var inFlight = 0
    private var waitingForDelegate = false
    private var sent = Sent()

    /// What was sent, for the journal: the first bytes (up to the journal's body limit), and the size.
    struct Sent {
        var kept = Data()
        var count = 0
        var truncated = false

        /// Notes `chunk` as sent, keeping what fits under `keepLimit`.
        mutating func append(_ chunk: Data, keepLimit: Int) {
            let room = keepLimit - kept.count
            if chunk.count <= room {
                kept.append(chunk)
            } else {
                if room > 0 { kept.append(chunk.prefix(room)) }
                truncated = true
            }
            count += chunk.count
        }
    }

    init(reader: ResponseBodyReader, rendered: Data?, chunkSize: Int, throttle: Int?, executor: LoadExecutor, task: URLSessionTask?,
         delegateQueue: OperationQueue?, keepLimit: Int, deliver: @escaping (Data) -> Void, end: @escaping (Result<Sent, any Error>) -> Void) {
        self.reader = reader
        self.rendered = rendered
        self.chunkSize = throttle.map { max(256, $0 / 4) } ?? chunkSize
        self.throttle = throttle
        self.executor = executor
        self.task = task
        self.delegateQueue = delegateQueue
        self.keepLimit = keepLimit
        self.deliver = deliver
        self.end = end
    }

    /// Starts on the load's context.
    func start() {
        if chunkSize == Int.max {
            do {
                let whole = try rendered ?? reader.whole()
                if !whole.isEmpty { hand(whole) }
                end(.success(sent))
            } catch {
                end(.failure(error))
            }
            return
        }
        do {
            source = try ChunkSource(reader.body, rendered: rendered)
        } catch {
            end(.failure(error))
            return
        }
        step()
    }

    private func step() {
        guard !executor.isOver, task?.state != .canceling, let source else { return }
        let chunk: Data?
        do {
            chunk = try source.next(chunkSize)
        } catch {
            end(.failure(error))
            return
        }
        guard let chunk else {
            self.source = nil
            end(.success(sent))
            return
        }
        hand(chunk)
        if let throttle {
            executor.after(Double(chunk.count) / Double(throttle)) { [self] in step() }
        } else if let delegateQueue {
            inFlight += 1
            delegateQueue.addOperation { [executor, weak self] in
                guard let streamer = self else { return }
                executor.perform { streamer.delegateTookChunk() }
            }
            if inFlight < Self.window {
                executor.perform { [self] in step() }
            } else {
                waitingForDelegate = true
            }
        } else {
            executor.perform { [self] in step() }
        }
    }

    private func delegateTookChunk() {
        inFlight -= 1
        if waitingForDelegate {
            waitingForDelegate = false
            step()
        }
    }

    private func hand(_ chunk: Data) {
        sent.append(chunk, keepLimit: keepLimit)
        deliver(chunk)
    }
}
