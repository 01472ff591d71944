import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as the matcher sees it: method, URL and headers normalized once.
///
/// A value whose parts live in one shared, unchanging box (as `StubRule`'s do): a request is copied
/// several times on its way from `canInit` to the journal, and copying its strings, URL, dictionaries
/// and arrays each time would cost about 2.5k instructions per stubbed request (callgrind,
/// docs/benchmarks.md). A copy is one reference count; changing a request gives it a new box.
public struct StubRequest: Sendable {
    /// Its parts, in one shared box (``SharedParts``): read through `_read` accessors, which borrow.
    private var storage: SharedParts<Parts>

    private struct Parts: Sendable {
        var method: String
        var url: URL
        var headers: [String: String]
        var body: Data?
        var bodyCache: RequestBodyCache?
        var bodyPending: Bool
        let scheme: String
        let host: String
        let pathSegments: [Substring]
        let queryItems: [(name: String, value: String)]
        /// The same items in comparison form (``PercentEncoding/comparable(_:)``); the very same
        /// array when the query holds no `%`, so such a request allocates nothing for it.
        let comparableQueryItems: [(name: String, value: String)]
    }

    /// Upper-cased.
    public var method: String {
        _read { yield storage.parts.method }
        set { storage.change { $0.method = newValue } }
    }
    /// The full URL the app requested.
    public var url: URL {
        _read { yield storage.parts.url }
        set { storage.change { $0.url = newValue } }
    }
    /// Header names lower-cased; values as sent.
    public var headers: [String: String] {
        _read { yield storage.parts.headers }
        set { storage.change { $0.headers = newValue } }
    }
    /// The body, when the URL loading system handed one over (see <doc:PlatformsAndLimits> on upload tasks).
    /// Its decoded text and JSON are computed on first use and shared by every copy of this request,
    /// so however many body conditions the rules have, the body is decoded at most once per match.
    public var body: Data? {
        _read { yield storage.parts.body }
        set { storage.change { $0.body = newValue; $0.bodyCache = newValue.map { _ in RequestBodyCache() } } }
    }

    /// Forgets the decoded text and JSON (decoded again on demand): a request kept for long, as the
    /// journal keeps it, must not hold a JSON tree many times the size of its body.
    mutating func dropDecodedBody() {
        // Nothing decoded (no body, or no body condition read it): nothing to drop, no new box.
        guard storage.parts.bodyCache?.isEmpty == false else { return }
        storage.change { $0.bodyCache = $0.body.map { _ in RequestBodyCache() } }
    }

    /// Whether the body's text or JSON has been decoded and is held (for tests of the above).
    var holdsDecodedBody: Bool { storage.parts.bodyCache?.isEmpty == false }
    /// Whether the request asks to become a WebSocket (`Upgrade: websocket`, in any case; RFC 6455 section 4.2.1).
    package var isWebSocketUpgrade: Bool {
        guard let upgrade = header("upgrade") else { return false }
        return upgrade.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == "websocket" }
    }

    /// The body travels as a stream that has not been read yet (what `canInit` sees on Apple
    /// platforms): body conditions are then taken to hold, and decided once the body is read.
    package var bodyPending: Bool {
        get { storage.parts.bodyPending }
        set { storage.change { $0.bodyPending = newValue } }
    }

    /// Lower-cased scheme.
    package var scheme: String { _read { yield storage.parts.scheme } }
    /// Lower-cased host, or "" when the URL has none.
    package var host: String { _read { yield storage.parts.host } }
    /// Path segments, percent-decoded, empty ones dropped.
    package var pathSegments: [Substring] { _read { yield storage.parts.pathSegments } }
    /// Query items in order, percent-decoded; a name without `=` has the value "".
    package var queryItems: [(name: String, value: String)] { _read { yield storage.parts.queryItems } }
    /// Query items in order, in the comparison form query conditions compare (``PercentEncoding``).
    var comparableQueryItems: [(name: String, value: String)] { _read { yield storage.parts.comparableQueryItems } }

    package init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        var lowered: [String: String] = [:]
        if !headers.isEmpty {
            lowered.reserveCapacity(headers.count)
            for (name, value) in headers { lowered[Self.asciiCased(name, upper: false)] = value }
        }
        // Read straight from the URL: URLComponents would parse the whole string again, on every request.
        // A segment with nothing to decode stays a slice of the path: no copy per segment.
        let path = url.path(percentEncoded: true)
        let segments = PathPattern.segments(ofPath: path)
        let pathSegments = !PathPattern.contains(path, byte: UInt8(ascii: "%")) ? segments : segments.map {
            PathPattern.contains($0, "%") ? Substring(PercentEncoding.decoded($0)) : $0
        }
        // The comparable list starts at the first item with a `%` (a copy of the items so far); a part
        // without `%` is its own decoded text and comparison form, so one string serves both lists.
        var items: [(name: String, value: String)] = []
        var comparableItems: [(name: String, value: String)] = []
        var escaped = false
        if let query = url.query(percentEncoded: true), !query.isEmpty {
            for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let nameEscaped = PathPattern.contains(parts[0], "%")
                let valueEscaped = parts.count > 1 && PathPattern.contains(parts[1], "%")
                let name = nameEscaped ? PercentEncoding.decoded(parts[0]) : String(parts[0])
                let value = valueEscaped ? PercentEncoding.decoded(parts[1]) : parts.count > 1 ? String(parts[1]) : ""
                if !escaped && (nameEscaped || valueEscaped) { (escaped, comparableItems) = (true, items) }
                if escaped {
                    comparableItems.append((nameEscaped ? PercentEncoding.comparable(parts[0]) : name,
                                            valueEscaped ? PercentEncoding.comparable(parts[1]) : value))
                }
                // Last, so the strings move into the list rather than being retained for it.
                items.append((name, value))
            }
        }
        storage = SharedParts(Parts(method: Self.asciiCased(method, upper: true), url: url, headers: lowered, body: body,
                                bodyCache: body != nil || Self.mayCarryGraphQL(items) ? RequestBodyCache() : nil, bodyPending: false,
                                scheme: Self.asciiCased(url.scheme ?? "", upper: false),
                                host: Self.asciiCased(url.host ?? "", upper: false),
                                pathSegments: pathSegments, queryItems: items,
                                comparableQueryItems: escaped ? comparableItems : items))
    }

    /// Whether a body-less request may be GraphQL over GET (a `query` or `extensions` item): such a
    /// request gets a cache too, so its document is read once, not once per rule that looks at it.
    private static func mayCarryGraphQL(_ items: [(name: String, value: String)]) -> Bool {
        items.contains { $0.name == "query" || $0.name == "extensions" }
    }

    /// The text upper- or lower-cased as `uppercased()`/`lowercased()` would, without building a new
    /// string when it is ASCII and already so (a method, scheme, host or header name nearly always is).
    static func asciiCased(_ text: String, upper: Bool) -> String {
        let (from, to) = upper ? (UInt8(ascii: "a"), UInt8(ascii: "z")) : (UInt8(ascii: "A"), UInt8(ascii: "Z"))
        let needsCasing = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.contains { $0 >= 0x80 || ($0 >= from && $0 <= to) }
        } ?? text.utf8.contains { $0 >= 0x80 || ($0 >= from && $0 <= to) }
        guard needsCasing else { return text }
        return upper ? text.uppercased() : text.lowercased()
    }

    package init(_ request: URLRequest, body: Data? = nil, bodyPending: Bool = false) {
        self.init(LookupMemo.Key(request), body: body, bodyPending: bodyPending)
    }

    /// From the parts of a `URLRequest` already read.
    init(_ parts: LookupMemo.Key, body: Data? = nil, bodyPending: Bool = false) {
        self.init(method: parts.method ?? "GET",
                  url: parts.url ?? URL(string: "about:blank")!,
                  headers: parts.headers ?? [:],
                  body: body ?? parts.body)
        // Set only when true: changing a part puts the parts in a new box.
        if bodyPending && self.body == nil { self.bodyPending = true }
    }

    /// The body as UTF-8 text (invalid bytes replaced), decoded once; `nil` without a body.
    var bodyText: String? {
        guard let body = storage.parts.body, let bodyCache = storage.parts.bodyCache else { return nil }
        return bodyCache.text(of: body)
    }

    /// The body parsed as JSON, once; `nil` without a body or when it is not JSON.
    var bodyJSON: JSONValue? {
        guard let body = storage.parts.body, let bodyCache = storage.parts.bodyCache else { return nil }
        return bodyCache.json(of: body)
    }

    /// The GraphQL operations the request carries (``GraphQLPayload``), read once per request (with a
    /// body, or with GraphQL's fields in its URL); `nil` when it is not GraphQL over HTTP.
    package var graphQL: GraphQLPayload? {
        guard let cache = storage.parts.bodyCache else { return GraphQLPayload(self) }
        if let known = cache.graphQL { return known }
        let payload = GraphQLPayload(self)
        cache.keep(graphQL: payload)
        return payload
    }

    /// The value of a header, by name in any case.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The decoded value of the first query item whose decoded name is `name` (what `{{query.q}}` shows).
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The first value of the query item a condition on `name` (in comparison form, as rules hold
    /// names) compares: its comparison form for `equals`, `present` and `absent`; its decoded text
    /// for `matches`, so a regex sees the value as a template shows it.
    package func queryValue(for condition: ValueMatcher, named name: String) -> String? {
        guard let index = storage.parts.comparableQueryItems.firstIndex(where: { $0.name == name }) else { return nil }
        if case .matches = condition { return storage.parts.queryItems[index].value }
        return storage.parts.comparableQueryItems[index].value
    }
}

/// Printed, dumped and shown in test failures with its parts, not its box.
extension StubRequest: CustomReflectable {
    /// Printed and dumped as its method, URL, headers and body.
    public var customMirror: Mirror {
        Mirror(self, children: ["method": method, "url": url, "headers": headers, "body": body as Any, "bodyPending": bodyPending,
                                "scheme": scheme, "host": host, "pathSegments": pathSegments, "queryItems": queryItems],
               displayStyle: .struct)
    }
}

/// What a request's body decodes to, computed on first use. Copies of a ``StubRequest`` share it
/// (``Locked`` copies share their value); behind that lock, since a request is `Sendable`. One
/// allocation per request with a body, the lock's and the value's together.
struct RequestBodyCache: Sendable {
    private struct Decoded {
        var text: String?
        var json: JSONValue??
        var graphQL: GraphQLPayload??
    }

    private let decoded = Locked(Decoded())

    var isEmpty: Bool {
        decoded.withLock { $0.text == nil && $0.json == nil && $0.graphQL == nil }
    }

    /// The GraphQL read from the body, when it has been; `.some(nil)` when the body is not GraphQL.
    var graphQL: GraphQLPayload?? {
        decoded.withLock { $0.graphQL }
    }

    /// Keeps what the body reads as GraphQL (read outside the lock: reading it decodes the body's JSON).
    func keep(graphQL: GraphQLPayload?) {
        decoded.withLock { $0.graphQL = .some(graphQL) }
    }

    func text(of body: Data) -> String {
        decoded.withLock { decoded in
            if let text = decoded.text { return text }
            let text = String(decoding: body, as: UTF8.self)
            decoded.text = text
            return text
        }
    }

    func json(of body: Data) -> JSONValue? {
        decoded.withLock { decoded in
            if let json = decoded.json { return json }
            let parsed = JSONValue(parsing: body)
            decoded.json = .some(parsed)
            return parsed
        }
    }
}
