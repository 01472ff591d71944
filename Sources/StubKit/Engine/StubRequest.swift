import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request as the matcher sees it: method, URL and headers normalized once.
public struct StubRequest: Sendable {
    /// Upper-cased.
    public var method: String
    public var url: URL
    /// Header names lower-cased; values as sent.
    public var headers: [String: String]
    /// The body, when the URL loading system handed one over (see the README on upload tasks).
    public var body: Data? {
        didSet { bodyCache = body.map { _ in RequestBodyCache() } }
    }
    /// The body decoded on first use and shared by every copy of this request, so however many
    /// body conditions the rules have, the body is decoded at most once per match.
    private var bodyCache: RequestBodyCache?

    /// Forgets the decoded text and JSON (decoded again on demand): a request kept for long, as the
    /// journal keeps it, must not hold a JSON tree many times the size of its body.
    mutating func dropDecodedBody() {
        bodyCache = body.map { _ in RequestBodyCache() }
    }

    /// Whether the body's text or JSON has been decoded and is held (for tests of the above).
    var holdsDecodedBody: Bool { bodyCache?.isEmpty == false }
    /// The body travels as a stream that has not been read yet (what `canInit` sees on Apple
    /// platforms): body conditions are then taken to hold, and decided once the body is read.
    public var bodyPending: Bool = false

    /// Lower-cased scheme.
    public let scheme: String
    /// Lower-cased host, or "" when the URL has none.
    public let host: String
    /// Path segments, percent-decoded, empty ones dropped.
    public let pathSegments: [Substring]
    /// Query items in order; a name without `=` has the value "".
    public let queryItems: [(name: String, value: String)]

    public init(method: String = "GET", url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = Self.asciiCased(method, upper: true)
        self.url = url
        var lowered: [String: String] = [:]
        if !headers.isEmpty {
            lowered.reserveCapacity(headers.count)
            for (name, value) in headers { lowered[Self.asciiCased(name, upper: false)] = value }
        }
        self.headers = lowered
        self.body = body
        self.bodyCache = body.map { _ in RequestBodyCache() }
        // Read straight from the URL: URLComponents would parse the whole string again, on every request.
        self.scheme = Self.asciiCased(url.scheme ?? "", upper: false)
        self.host = Self.asciiCased(url.host ?? "", upper: false)
        // A segment with nothing to decode stays a slice of the path: no copy per segment.
        let path = url.path(percentEncoded: true)
        let segments = PathPattern.segments(ofPath: path)
        self.pathSegments = !path.utf8.contains(UInt8(ascii: "%")) ? segments : segments.map {
            PathPattern.contains($0, "%") ? Substring(PathPattern.percentDecoded($0)) : $0
        }
        var items: [(name: String, value: String)] = []
        if let query = url.query(percentEncoded: true), !query.isEmpty {
            for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                items.append((PathPattern.percentDecoded(parts[0]), parts.count > 1 ? PathPattern.percentDecoded(parts[1]) : ""))
            }
        }
        self.queryItems = items
    }

    /// The text upper- or lower-cased as `uppercased()`/`lowercased()` would, without building a new
    /// string when it is ASCII and already so (a method, scheme, host or header name nearly always is).
    static func asciiCased(_ text: String, upper: Bool) -> String {
        let (from, to) = upper ? (UInt8(ascii: "a"), UInt8(ascii: "z")) : (UInt8(ascii: "A"), UInt8(ascii: "Z"))
        for byte in text.utf8 where byte >= 0x80 || (byte >= from && byte <= to) {
            return upper ? text.uppercased() : text.lowercased()
        }
        return text
    }

    public init(_ request: URLRequest, body: Data? = nil, bodyPending: Bool = false) {
        self.init(method: request.httpMethod ?? "GET",
                  url: request.url ?? URL(string: "about:blank")!,
                  headers: request.allHTTPHeaderFields ?? [:],
                  body: body ?? request.httpBody)
        self.bodyPending = bodyPending && self.body == nil
    }

    /// The body as UTF-8 text (invalid bytes replaced), decoded once; `nil` without a body.
    var bodyText: String? {
        guard let body, let bodyCache else { return nil }
        return bodyCache.text(of: body)
    }

    /// The body parsed as JSON, once; `nil` without a body or when it is not JSON.
    var bodyJSON: JSONValue? {
        guard let body, let bodyCache else { return nil }
        return bodyCache.json(of: body)
    }

    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }
}

/// What a request's body decodes to, computed on first use. A reference, so copies of a
/// ``StubRequest`` share it; behind a lock, since a request is `Sendable`.
final class RequestBodyCache: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    private var json: JSONValue??

    var isEmpty: Bool {
        lock.lock()
        defer { lock.unlock() }
        return text == nil && json == nil
    }

    func text(of body: Data) -> String {
        lock.lock()
        defer { lock.unlock() }
        if let text { return text }
        let decoded = String(decoding: body, as: UTF8.self)
        text = decoded
        return decoded
    }

    func json(of body: Data) -> JSONValue? {
        lock.lock()
        defer { lock.unlock() }
        if let json { return json }
        let parsed = JSONValue(parsing: body)
        json = .some(parsed)
        return parsed
    }
}
