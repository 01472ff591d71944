import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Turns real exchanges relayed by the forwarder into rules and response files of one bundle.
///
/// Set on an engine (``StubEngine/recorder``), it makes the engine take every http(s) request: what the
/// active bundles answer is replayed, the rest goes to the network through the same forwarder as a
/// pass-through and is written here when it completes. Redaction happens before anything is written;
/// volatile fields are left out of the conditions. Thread-safe: the writer serializes appends, and the
/// counts sit behind one lock.
public final class Recorder: Sendable {
    /// What is recorded, where, and how.
    public let configuration: RecorderConfiguration
    package let writer: BundleWriter
    let redactor: Redactor
    let counts = Locked(RecordingSummary())
    /// Every secret value redacted so far (this run): a later response that echoes one in free text
    /// or in another header has it replaced too.
    let seenSecrets = Locked<Set<String>>([])
    private let captureFactory: @Sendable () -> ResponseCapture?

    /// Opens the bundle for recording (replacing it in ``RecorderConfiguration/Mode/all`` mode).
    ///
    /// - Throws: ``RecordingError`` naming the folder when it cannot be written.
    public convenience init(configuration: RecorderConfiguration, now: Date = Date()) throws(RecordingError) {
        try self.init(configuration: configuration, now: now, makeCapture: { ResponseCapture() })
    }

    /// Opens the bundle for imported exchanges: `recordedAt` is written only when known (an import of
    /// undated traffic must not stamp the time of the import, or two imports of one file differ).
    package convenience init(configuration: RecorderConfiguration, recordedAt: Date?) throws(RecordingError) {
        try self.init(configuration: configuration, now: recordedAt, makeCapture: { ResponseCapture() })
    }

    /// - Parameter makeCapture: where response bodies stream to (a test makes it fail).
    init(configuration: RecorderConfiguration, now: Date? = Date(), makeCapture: @escaping @Sendable () -> ResponseCapture?) throws(RecordingError) {
        self.captureFactory = makeCapture
        self.configuration = configuration
        self.redactor = Redactor(redact: configuration.redact, keep: configuration.keep)
        self.writer = try BundleWriter(folder: configuration.bundleFolder, replacing: configuration.mode == .all, recordedAt: now)
        counts.withLock { $0.bundle = writer.folder.path }
    }

    /// What the recording did so far.
    public var summary: RecordingSummary { counts.withLock { $0 } }

    /// Whether the engine must send requests to the network even when a rule answers them (for the
    /// hosts it records, see ``records(_:)``).
    var recordsEverything: Bool { configuration.mode == .all }

    /// Whether this request's host is one to record (``RecorderConfiguration/hosts``; all when empty).
    package func records(_ request: StubRequest) -> Bool {
        let hosts = configuration.hosts
        guard !hosts.isEmpty else { return true }
        let host = request.host
        return hosts.contains { listed in
            let listed = listed.lowercased()
            if listed.hasPrefix("*.") {
                let domain = listed.dropFirst(2)
                return host == domain || host.hasSuffix("." + domain)
            }
            return host == listed
        }
    }

    package func noteReplayed() { counts.withLock { $0.replayed += 1 } }

    package func noteFailed(_ error: any Error) {
        counts.withLock { $0.failed += 1; $0.problems.append(error.localizedDescription) }
    }

    /// Something written is not all that happened (a feed cut at its limit): a problem in the summary,
    /// not a failure.
    package func noteProblem(_ text: String) {
        counts.withLock { $0.problems.append(text) }
    }

    /// Why a task cannot be recorded, or `nil`. An upload task whose body the loading system did not
    /// hand over (`hasBody`: the request carries none; FoundationNetworking never does, nor does Apple's
    /// URLSession for uploads from data or a file, as OHHTTPStubs documents) would reach the backend
    /// without its body and be recorded as a rule that never matches the real one. On Linux a
    /// `URLProtocol` cannot produce a download task's file either.
    static func unrecordableTaskReason(_ task: URLSessionTask?, hasBody: Bool) -> String? {
        #if canImport(FoundationNetworking)
        if task is URLSessionDownloadTask {
            return "StubKit cannot record download tasks on Linux: FoundationNetworking gives a URLProtocol no way to hand the app the downloaded file. Use a data task (dataTask(with:) or data(for:)) while recording and write the data to a file yourself."
        }
        #endif
        if task is URLSessionUploadTask, !hasBody {
            return "StubKit cannot record this upload task: the URL loading system hands a URLProtocol no upload body, so the request would reach the server without it. Use a data task with httpBody while recording."
        }
        return nil
    }

    /// A temporary file for one response body, streamed as it arrives.
    package func makeCapture() -> ResponseCapture? { captureFactory() }

    /// Writes one completed exchange.
    ///
    /// - Returns: the response file's name (or "" for an empty body).
    package func record(_ request: StubRequest, status: Int, headers: [String: String], capture: ResponseCapture?) -> Result<String, RecordingError> {
        var redacted = 0
        let knownBefore = seenSecrets.withLock { $0.count }
        rememberSecrets(inHeaders: request.headers)
        rememberSecrets(inHeaders: headers)
        let conditions = self.conditions(for: request, redacted: &redacted)
        let contentType = headers.first { $0.key.lowercased() == "content-type" }?.value
        var body = BundleWriter.Response.Body.none
        var ext = "bin"
        if let capture, capture.count > 0 || capture.failed != nil {
            guard let file = capture.finish() else {
                let error = RecordingError(path: capture.url.path, reason: "the response body could not be stored: \(capture.failed?.localizedDescription ?? "unknown error")")
                noteFailed(error)
                return .failure(error)
            }
            if case .batch(let operations)? = request.graphQL, MediaType.isJSON(contentType),
               let parts = batchParts(of: request, operations: operations, body: file, size: capture.count, redacted: &redacted) {
                return recordBatch(parts, status: status, headers: headers, contentType: contentType, redacted: redacted, knownBefore: knownBefore)
            }
            ext = MediaType.fileExtension(for: contentType)
            body = .file(file)
            redacted += redactBody(&body, ext: &ext, size: capture.count, contentType: contentType)
        }
        // Headers after the body: a token the body revealed is scrubbed from this response's headers too.
        let storedHeaders = redactedHeaders(headers, redacted: &redacted)
        return append(conditions, .init(status: status, headers: storedHeaders, body: body, fileExtension: ext), redacted: redacted, knownBefore: knownBefore)
    }

    /// Writes a batch's operations as rules of their own, each answered by its part of the response.
    private func recordBatch(_ parts: [(conditions: BundleWriter.RequestConditions, body: Data)], status: Int, headers: [String: String],
                             contentType: String?, redacted: Int, knownBefore: Int) -> Result<String, RecordingError> {
        var redacted = redacted
        var files: [String] = []
        for part in parts {
            guard let capture = makeCapture() else {
                let error = RecordingError(path: FileManager.default.temporaryDirectory.path, reason: "cannot create a temporary file for a response body")
                noteFailed(error)
                return .failure(error)
            }
            capture.append(part.body)
            guard let file = capture.finish() else {
                let error = RecordingError(path: capture.url.path, reason: "the response body could not be stored: \(capture.failed?.localizedDescription ?? "unknown error")")
                noteFailed(error)
                return .failure(error)
            }
            var body = BundleWriter.Response.Body.file(file)
            var ext = MediaType.fileExtension(for: contentType)
            redacted += redactBody(&body, ext: &ext, size: part.body.count, contentType: contentType)
            let storedHeaders = redactedHeaders(headers, redacted: &redacted)
            // The batch is one exchange for the summary: counted once, with the last part.
            let last = files.count == parts.count - 1
            switch append(part.conditions, .init(status: status, headers: storedHeaders, body: body, fileExtension: ext),
                          redacted: last ? redacted : 0, knownBefore: knownBefore, counts: last) {
            case .success(let name): files.append(name)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(files.last ?? "")
    }

    /// The response headers to store, secrets replaced (also those learnt from this exchange's body).
    func redactedHeaders(_ headers: [String: String], redacted: inout Int) -> [String: String] {
        var (storedHeaders, headerCount) = redactor.headers(headers)
        redacted += headerCount
        for (name, value) in storedHeaders where value != Redactor.placeholder {
            var clean = value
            if let urls = redactor.urlQueries(value) {
                // `Location: …/cb?access_token=…`, `Link: <…&access_token=…>; rel="next"`.
                clean = urls.text
                redacted += urls.redacted
                urls.values.forEach(remember)
            }
            let (scrubbed, count) = scrub(clean)
            redacted += count
            if scrubbed != value { storedHeaders[name] = scrubbed }
        }
        return storedHeaders
    }

    /// Writes one redacted exchange, and scrubs what was written before of secrets it revealed.
    func append(_ conditions: BundleWriter.RequestConditions, _ response: BundleWriter.Response, redacted: Int, knownBefore: Int,
                counts counted: Bool = true) -> Result<String, RecordingError> {
        var redacted = redacted
        do {
            let file = try writer.append(conditions, response)
            // A secret first seen in this exchange may sit in files written before it: scrub them again.
            if seenSecrets.withLock({ $0.count }) > knownBefore {
                redacted += writer.rescrub({ self.scrub($0) }, bytes: { self.scrub(bytes: $0) })
            }
            if counted { counts.withLock { $0.recorded += 1; $0.redacted += redacted } }
            return .success(file ?? "")
        } catch {
            noteFailed(error)
            return .failure(error)
        }
    }

    /// Bodies up to this size are searched for secrets whatever their type (any that is UTF-8 text).
    static let sniffLimit = 16 << 20
    /// JSON bodies up to this size are parsed and redacted by field name.
    static let jsonLimit = 64 << 20
}

/// What a recording run did: shown by `stubdemo` on exit and available as ``Recorder/summary``.
public struct RecordingSummary: Sendable, Hashable, CustomStringConvertible {
    /// Exchanges written to the bundle.
    public var recorded = 0
    /// Requests answered from the active bundles instead of the network.
    public var replayed = 0
    /// Secret values replaced by `REDACTED`.
    public var redacted = 0
    /// Exchanges not written: the network failed, or the bundle could not be written.
    public var failed = 0
    /// What went wrong, one line each (a body that could not be stored, a file that could not be written).
    public var problems: [String] = []
    /// The bundle folder.
    public var bundle = ""

    /// One line: the bundle and the counts, then the problems.
    public var description: String {
        var text = "StubKit recording: recorded \(recorded), replayed \(replayed), redacted \(redacted)"
        if failed > 0 { text += ", failed \(failed)" }
        return text + " (\(bundle))"
    }
}
