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
    private let counts = Locked(RecordingSummary())
    /// Every secret value redacted so far (this run): a later response that echoes one in free text
    /// or in another header has it replaced too.
    private let seenSecrets = Locked<Set<String>>([])
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
        for (name, value) in request.headers where redactor.isSecret(name) { remember(value) }
        for (name, value) in headers where redactor.isSecret(name) { remember(value) }
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
            ext = Self.fileExtension(for: contentType)
            body = .file(file)
            redacted += redactBody(&body, ext: &ext, size: capture.count, contentType: contentType)
        }
        // Headers after the body: a token the body revealed is scrubbed from this response's headers too.
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
        do {
            let file = try writer.append(conditions, .init(status: status, headers: storedHeaders, body: body, fileExtension: ext))
            // A secret first seen in this exchange may sit in files written before it: scrub them again.
            if seenSecrets.withLock({ $0.count }) > knownBefore {
                redacted += writer.rescrub { self.scrub($0) }
            }
            counts.withLock { $0.recorded += 1; $0.redacted += redacted }
            return .success(file ?? "")
        } catch {
            noteFailed(error)
            return .failure(error)
        }
    }

    static let textExtensions: Set<String> = ["json", "txt", "html", "xml", "css", "csv", "js", "svg"]
    /// Bodies up to this size are searched for secrets whatever their type (any that is UTF-8 text).
    static let sniffLimit = 16 << 20
    /// JSON bodies up to this size are parsed and redacted by field name.
    static let jsonLimit = 64 << 20

    func remember(_ value: String) {
        let parts = Redactor.secretParts(of: value)
        seenSecrets.withLock { $0.formUnion(parts) }
    }

    /// `text` with every secret seen so far replaced, longest first; the count of replacements.
    func scrub(_ text: String) -> (String, Int) {
        Self.scrub(text, secrets: seenSecrets.withLock { $0 })
    }

    static func scrub(_ text: String, secrets: Set<String>) -> (String, Int) {
        // Longest first (a secret that contains another goes whole), then by text, so equal lengths
        // that overlap give the same output in every run whatever the set's order.
        let secrets = secrets.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        var result = text, count = 0
        for secret in secrets where result.contains(secret) {
            count += result.components(separatedBy: secret).count - 1
            result = result.replacingOccurrences(of: secret, with: Redactor.placeholder)
        }
        return (result, count)
    }

    /// The conditions a replay of `request` must meet: method, scheme, host, literal path, query items
    /// (order-insensitive), and the body; volatile and secret fields left out.
    ///
    /// The body is read first, so a secret it holds is known when the same value reappears in a path
    /// segment or a query item under an innocent name: such a segment matches any value, such an
    /// item only needs to be present, and a body that holds one has no exact condition.
    func conditions(for request: StubRequest, redacted: inout Int) -> BundleWriter.RequestConditions {
        let body = bodyCondition(for: request, redacted: &redacted)
        var query: [String: BundleWriter.RequestConditions.QueryValue] = [:]
        let ignoredQuery = configuration.ignoredQueryNames
        // The items as sent, split as StubRequest splits them (so in step with its items): names and
        // values are written as rule text that compares as the request's do (`a%2Bb` stays escaped).
        let rawItems = request.url.query(percentEncoded: true)?.split(separator: "&", omittingEmptySubsequences: true) ?? []
        let rawParts = rawItems.map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false) }
        let rawAligned = rawParts.count == request.queryItems.count
        for item in request.queryItems where !ignoredQuery.contains(item.name) && redactor.isSecret(item.name) { remember(item.value) }
        // Per item in order: its condition, or nil when ignored.
        let itemConditions = request.queryItems.enumerated().map { index, item -> BundleWriter.RequestConditions.QueryValue? in
            if ignoredQuery.contains(item.name) { return nil }
            if redactor.isSecret(item.name) {
                redacted += 1
                return .present
            } else if let inner = redactor.embedded(item.value) {
                inner.values.forEach(remember)
                redacted += inner.redacted
                return .present
            } else if scrub(item.value).1 > 0 {
                redacted += 1
                return .present
            }
            guard rawAligned, rawParts[index].count > 1 else { return .equals(item.value) }
            return .equals(PercentEncoding.ruleText(ofQuery: rawParts[index][1]))
        }
        for (index, (item, condition)) in zip(request.queryItems, itemConditions).enumerated() {
            let name = rawAligned ? PercentEncoding.ruleText(ofQuery: rawParts[index][0]) : item.name
            if query[name] == nil, let condition { query[name] = condition }
        }
        // A name given more than once: a query condition sees only its first value, so the whole query
        // is pinned in its recorded order (items left out or secret match any value).
        // Escapes match in either case there, as query conditions compare them.
        var recordedQuery: String? = nil
        if rawAligned, !rawItems.isEmpty {
            recordedQuery = zip(rawItems, itemConditions).map { rawItem, condition -> String in
                if case .equals? = condition { return PercentEncoding.escapeCaseInsensitive(pattern: BundleWriter.regexEscaped(String(rawItem))) }
                let name = rawItem.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                return PercentEncoding.escapeCaseInsensitive(pattern: BundleWriter.regexEscaped(String(name))) + "(=[^&#]*)?"
            }.joined(separator: "&")
        }
        let repeats = Set(request.queryItems.map(\.name)).count < request.queryItems.count
        // Path segments that hold a known secret are written as the placeholder and match any value.
        var segments = request.url.path(percentEncoded: true).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var anySegments: Set<Int> = []
        var index = 0
        for (i, segment) in segments.enumerated() where !segment.isEmpty {
            if scrub(PercentEncoding.decoded(segment[...])).1 > 0 {
                segments[i] = Redactor.placeholder
                anySegments.insert(index)
                redacted += 1
            }
            index += 1
        }
        var conditions = BundleWriter.RequestConditions(method: request.method, host: request.host.isEmpty ? nil : request.host,
                                                        path: segments.joined(separator: "/"), query: query)
        conditions.anySegments = anySegments
        conditions.body = body
        conditions.scheme = request.scheme.isEmpty ? nil : request.scheme
        let defaultPort = request.scheme == "https" ? 443 : 80
        conditions.port = request.url.port.flatMap { $0 == defaultPort ? nil : $0 }
        conditions.recordedQuery = recordedQuery
        conditions.exactQuery = repeats ? recordedQuery : nil
        return conditions
    }

    private func bodyCondition(for request: StubRequest, redacted: inout Int) -> BundleWriter.RequestConditions.Body? {
        guard let body = request.body, !body.isEmpty else { return nil }
        // A multipart body carries a boundary the app makes anew for each request (usually a UUID), so
        // no replay would ever equal the recorded bytes: uploads match on method, path and query, and
        // repeated ones replay in order. Secrets in its parts are still found, for the known-secret scrub.
        if request.header("content-type")?.lowercased().hasPrefix("multipart/") == true {
            if let text = String(data: body, encoding: .utf8) {
                let result = redactor.text(text, contentType: request.header("content-type"))
                result.values.forEach(remember)
                redacted += result.redacted
            }
            return nil
        }
        if let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
           value is [String: Any] || value is [Any] {
            let result = redactor.json(value)
            redacted += result.redacted
            result.values.forEach(remember)
            // Known secrets under innocent names (a token echoed in a `note`) are left out too.
            let known = scrubbed(result.value, path: [])
            redacted += known.count
            let secretPaths = result.paths + known.paths
            let leaveOut = configuration.ignoredBodyPaths + secretPaths
            if !secretPaths.isEmpty && (!(value is [String: Any]) || secretPaths.contains(where: { $0.contains("[]") })) {
                // A secret the condition cannot leave out (inside an array): no body condition at all,
                // rather than the secret on disk or a placeholder no replay would ever equal.
                return nil
            } else if var object = known.value as? [String: Any], leaveOut.contains(where: { Self.has($0, in: object) }) {
                // Built from the redacted tree, so nothing secret survives whatever is left out.
                for path in leaveOut { object = Self.removing(path, from: object) }
                return .containsJSON(Self.canonical(object))
            } else {
                return .equalsJSON(Self.canonical(known.value))
            }
        }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        let result = redactor.text(text, contentType: request.header("content-type"))
        result.values.forEach(remember)
        // A body with a secret matches on everything else, with no body condition: the placeholder
        // would never equal the real value a replay sends.
        if result.redacted > 0 { redacted += result.redacted; return nil }
        let known = scrub(text).1
        if known > 0 { redacted += known; return nil }
        return .equals(text)
    }

    /// A JSON value with string values that hold a known secret replaced, their paths and count.
    private func scrubbed(_ value: Any, path: [String]) -> (value: Any, paths: [[String]], count: Int) {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:], paths: [[String]] = [], count = 0
            for (key, child) in object {
                let inner = scrubbed(child, path: path + [key])
                result[key] = inner.value
                paths += inner.paths
                count += inner.count
            }
            return (result, paths, count)
        }
        if let array = value as? [Any] {
            var paths: [[String]] = [], count = 0
            let result = array.map { child -> Any in
                let inner = scrubbed(child, path: path + ["[]"])
                paths += inner.paths
                count += inner.count
                return inner.value
            }
            return (result, paths, count)
        }
        if let text = value as? String {
            let (clean, count) = scrub(text)
            if count > 0 { return (clean, [path], count) }
        }
        return (value, [], 0)
    }

    static func canonical(_ value: Any) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    private static func has(_ path: [String], in object: [String: Any]) -> Bool {
        guard let first = path.first, let child = object[first] else { return false }
        if path.count == 1 { return true }
        return (child as? [String: Any]).map { has(Array(path.dropFirst()), in: $0) } ?? false
    }

    private static func removing(_ path: [String], from object: [String: Any]) -> [String: Any] {
        guard let first = path.first, object[first] != nil else { return object }
        var result = object
        if path.count == 1 {
            result[first] = nil
        } else if let child = object[first] as? [String: Any] {
            result[first] = removing(Array(path.dropFirst()), from: child)
        }
        return result
    }

    /// The response file's extension from the content type, so the loader infers it back.
    static func fileExtension(for contentType: String?) -> String {
        let essence = contentType?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        if MediaType.isJSON(essence) { return "json" }
        switch essence {
        case "text/html": return "html"
        case "application/xml", "text/xml": return "xml"
        case "text/css": return "css"
        case "text/csv": return "csv"
        case "text/javascript", "application/javascript": return "js"
        case "image/png": return "png"
        case "image/jpeg": return "jpg"
        case "image/gif": return "gif"
        case "image/webp": return "webp"
        case "image/svg+xml": return "svg"
        case "application/pdf": return "pdf"
        case "application/zip": return "zip"
        default: return essence.hasPrefix("text/") || essence == "application/x-www-form-urlencoded" ? "txt" : "bin"
        }
    }
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
