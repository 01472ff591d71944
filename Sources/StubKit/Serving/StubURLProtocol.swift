import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// SwiftPM builds a package for every platform an app targets, whatever `platforms` lists: say plainly
// why a watchOS target cannot link StubKit, instead of failing on an API's availability.
#if os(watchOS)
#error("StubKit does not support watchOS: URLSession on watchOS does not use custom URLProtocol classes, which StubKit serves through. Link StubKit from the iOS app and its UI tests only.")
#endif

/// The `URLProtocol` that answers requests from a ``StubEngine``.
///
/// It stays thin: `canInit` asks the engine whether some rule could answer, `startLoading` hands the
/// request to a `StubLoad` (matching, delay, body, redirects, pass-through, journal), `stopLoading`
/// stops it. Client calls are made only from the context that called `startLoading`, and never after
/// `stopLoading` (see `LoadExecutor`).
///
/// Which engine answers depends on the session. `URLSession.shared` (and, on Apple platforms, the
/// configurations made from `.default` or `.ephemeral`) get this class and the engine set by
/// ``StubEngine/register(covering:)``. A configuration given to ``StubEngine/install(into:)`` or made by
/// `URLSessionConfiguration.stubbed(by:)` gets a subclass of its own that names that engine, so several
/// engines, each with its own sessions, answer side by side (parallel tests). The URL loading system
/// creates protocol instances itself, so the class is the only thing that can say which engine to ask.
public class StubURLProtocol: URLProtocol {
    /// The load, set in startLoading and read in stopLoading and `client` (possibly on other threads);
    /// and whether `stopLoading` came first. FoundationNetworking can do that: a task cancelled while its
    /// protocol waits for the URL cache's reply may have its stop queued ahead of its start (seen in the
    /// stress test, about one cancel in 10,000). Such a load must never call the client.
    /// The early stop ends one start only: FoundationNetworking's `resume()` after a `suspend()` starts
    /// the same instance again, and that start must serve the request.
    private let state = Locked(LoadState())

    private struct LoadState {
        var load: StubLoad?
        var stoppedBeforeStart = false

        /// Whether a stop came before this start; either way the next start is a fresh one.
        mutating func takeStopBeforeStart() -> Bool {
            defer { stoppedBeforeStart = false }
            return stoppedBeforeStart
        }
    }

    /// The engine that answers requests of `URLSession.shared` and the covered configurations.
    static let servingEngine = Locked<StubEngine?>(nil)

    /// The engine set by ``StubEngine/register(covering:)``, if any: the one that answers
    /// `URLSession.shared`. Sessions given an engine of their own (``StubEngine/install(into:)``) do not change it.
    public static var currentEngine: StubEngine? {
        servingEngine.withLock { $0 }
    }

    /// Which engine this class answers for: overridden by each slot class (`StubURLProtocol+Slots.swift`);
    /// ``StubURLProtocol`` itself serves the process-wide engine.
    class var route: Route { .processWide }

    /// The table a slot class's slot is in: the one every slot class of StubKit uses (tests give
    /// classes of their own a table of their own, so that no other test's engine can take their slots).
    class var slotTable: Locked<EngineSlots> { slots }

    /// Bytes handed to the client at a time when the body is streamed.
    static let streamingChunkSize = 64 * 1024

    /// Bodies up to this size are always handed over in one piece.
    static let streamingThreshold = 256 * 1024

    // MARK: URLProtocol

    /// Takes a request when some active rule of the session's engine could answer it, or its kill switch
    /// is on, or the session's engine is gone (the request then fails, naming why).
    ///
    /// A body that travels as `httpBodyStream` cannot be read here (it can be read once, and Apple's
    /// URLSession hands most bodies over that way), so such a request is taken when a rule would answer
    /// it apart from its body conditions; `startLoading` reads the body when the answer depends on it
    /// (see `StubLoad`) and decides for real, and forwards the request to the network if no rule
    /// matches after all.
    public override class func canInit(with request: URLRequest) -> Bool {
        takes(request, answerer: answerer(for: self))
    }

    /// The request unchanged: stubs match what the app sent.
    public override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// Answers the request from the engine: a stubbed response, a simulated failure, a refusal, or the network.
    public override func startLoading() {
        let answerer = Self.answerer(for: type(of: self))
        guard case .engine(let engine) = answerer else {
            guard !state.withLock({ $0.takeStopBeforeStart() }) else { return }
            client?.urlProtocol(self, didFailWithError: Self.refusal(by: answerer) ?? URLError(.unknown))
            return
        }
        let load = StubLoad(instance: self, engine: engine, task: task)
        let stoppedFirst = state.withLock { state in
            state.load = load
            return state.takeStopBeforeStart()
        }
        // A load stopped before it started is over: nothing is sent; it is journalled as cancelled.
        if stoppedFirst {
            load.abandon(request)
            return
        }
        #if canImport(FoundationNetworking)
        // Under random cancellation FoundationNetworking can start a load for a task that a cancel has
        // already completed and taken out of its registry; any client call then traps inside it (seen in
        // the stress test). Such a load is over before it starts, too.
        if task?.state == .completed {
            load.abandon(request)
            return
        }
        #endif
        load.start(request)
    }

    #if canImport(FoundationNetworking)
    /// No client once the load has finished.
    ///
    /// FoundationNetworking's `cancel()` takes the protocol in one work-queue block and, in a second
    /// one, calls `stopLoading()` and then `client?.urlProtocol(_:didFailWithError:)`. When the load
    /// finishes between the two, the task has completed and may have left the session's registry, and
    /// that call traps inside FoundationNetworking (seen under random cancellation). A finished load
    /// needs no more calls, so it shows no client; a stopped one still does, for the cancel error.
    public override var client: (any URLProtocolClient)? {
        get { state.withLock({ $0.load })?.hasFinished == true ? nil : super.client }
        set { super.client = newValue }
    }
    #endif

    /// Cancels the response still under way; the client hears nothing more from this load.
    public override func stopLoading() {
        // The load stays (stopping twice is harmless): `client` asks it whether it has finished.
        let started = state.withLock { state -> StubLoad? in
            if state.load == nil { state.stoppedBeforeStart = true }
            return state.load
        }
        started?.stop()
    }

    // MARK: What the task takes

    /// How the body of a task's response is handed over: in chunks, or in one piece.
    ///
    /// On Linux, FoundationNetworking keeps only the last `didLoad` chunk for tasks answered through a
    /// completion handler or `data(for:)` (seen with Swift 6.3.1), so the body goes in one piece there,
    /// memory-mapped from a response file rather than read. Tasks whose session delegate receives the
    /// data are told each chunk, so they get it streamed and a large file never sits in memory whole.
    /// Apple platforms take every body in chunks (the caller still sends small ones in one piece).
    static func chunkSize(for task: URLSessionTask?) -> Int {
        #if canImport(FoundationNetworking)
        return FoundationNetworkingInspection.deliversChunksToDelegate(task) ? streamingChunkSize : Int.max
        #else
        return streamingChunkSize
        #endif
    }

    /// The session's delegate queue, for back-pressure while streaming; found on Linux only.
    static func delegateQueue(of task: URLSessionTask?) -> OperationQueue? {
        #if canImport(FoundationNetworking)
        return FoundationNetworkingInspection.delegateQueue(of: task)
        #else
        return nil
        #endif
    }

    /// The request body from `httpBody`, else read from `httpBodyStream` (what Apple's URLSession hands
    /// a protocol for most requests). `nil` when the loading system gave neither (upload tasks on Linux)
    /// or the stream could not be read.
    static func body(of request: URLRequest) -> Data? {
        try? readBody(of: request)
    }

    /// The most bytes of an `httpBodyStream` read into memory, to match, template, record or forward
    /// the body; a longer body fails the request with `URLError(.dataLengthExceedsMaximum)` rather
    /// than filling memory. A body whose answer does not depend on it is read only as far as the journal
    /// keeps it (``StubJournal/Limits/maximumBodySize`` + 1 bytes).
    static let maximumStreamedBodySize = 64 * 1024 * 1024

    /// A request body stream longer than the cap.
    struct BodyTooLarge: LocalizedError {
        var limit: Int
        var errorDescription: String? {
            "the body is longer than \(limit) bytes, the most StubKit reads from a body stream (send it as httpBody, or answer it with a rule that does not look at the body)"
        }
    }

    /// Like ``body(of:)``, but a stream that fails half-way throws instead of passing for a short body,
    /// and one longer than `limit` throws ``BodyTooLarge`` after reading at most `limit + 1` bytes.
    static func readBody(of request: URLRequest, limit: Int = maximumStreamedBodySize) throws -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        return try RequestBodyStream(stream).whole(limit: limit)
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
