import Foundation

/// What a rule answers with: a response, or a simulated network failure.
package struct StubResponse: Sendable {
    package var status: Int
    /// Response headers in the order written; `Content-Type` and `Content-Length` are added when absent.
    package var headers: [(name: String, value: String)] { didSet { cachedHeaderFields = nil } }
    package var body: ResponseBody { didSet { cachedHeaderFields = nil } }
    package var contentType: String? { didSet { cachedHeaderFields = nil } }
    /// Seconds to wait before the response starts.
    package var delay: TimeInterval
    /// A random delay in this range instead, drawn from the engine's seeded generator.
    package var delayRange: ClosedRange<TimeInterval>?
    /// Bandwidth limit in bytes per second; the body then takes `length / throttle` seconds.
    package var throttle: Int?
    /// The body and headers as templates (`{{path.id}}`, `{{query.q}}`, `{{now}}`, …), when the rule says `template`.
    package var template: ResponseTemplates? { didSet { cachedHeaderFields = nil } }
    /// When set, the request fails with this error instead of receiving a response.
    package var error: SimulatedNetworkError?
    /// When set, the body is this stream of Server-Sent Events instead (`events`).
    package var events: EventStream? { didSet { cachedHeaderFields = nil } }

    package init(
        status: Int = 200,
        headers: [(name: String, value: String)] = [],
        body: ResponseBody = .empty,
        contentType: String? = nil,
        delay: TimeInterval = 0,
        delayRange: ClosedRange<TimeInterval>? = nil,
        throttle: Int? = nil,
        template: ResponseTemplates? = nil,
        error: SimulatedNetworkError? = nil,
        events: EventStream? = nil
    ) {
        self.status = status
        self.headers = headers
        self.body = body
        self.contentType = contentType
        self.delay = delay
        self.delayRange = delayRange
        self.throttle = throttle
        self.template = template
        self.error = error
        self.events = events
    }

    /// Whether the response redirects (3xx with a `Location` header).
    package var redirectLocation: String? {
        guard (300...399).contains(status), status != 304 else { return nil }
        return headers.first { $0.name.lowercased() == "location" }?.value
    }

    /// The headers sent, without `Content-Length` (computed from the body when it is sent): the rule's
    /// headers, then `Content-Type` when they have none. Built on each call; the engine keeps a copy
    /// per rule so serving does not build it again.
    package var headerFields: [String: String] {
        if let prepared = cachedHeaderFields { return prepared }
        return Self.buildHeaderFields(headers: headers, contentType: effectiveContentType)
    }

    /// Headers computed once when the rule is loaded (or activated); changing anything they are made
    /// from drops them, so they never go stale.
    var cachedHeaderFields: [String: String]?

    static func buildHeaderFields(headers: [(name: String, value: String)], contentType: String?) -> [String: String] {
        // Room for Content-Type and Content-Length too: growing by one rehashed once per rule at load.
        var fields = [String: String](minimumCapacity: headers.count + 2)
        var hasContentType = false
        for header in headers {
            let lowered = header.name.lowercased()
            if lowered == "content-length" { continue }
            if lowered == "content-type" { hasContentType = true }
            fields[header.name] = header.value
        }
        if !hasContentType, let contentType { fields["Content-Type"] = contentType }
        return fields
    }

    /// Computes the header fields once, for serving.
    mutating func cacheHeaderFields() {
        var fields = Self.buildHeaderFields(headers: headers, contentType: effectiveContentType)
        // An inline body's length is known now; a file's is read when served (the file may change).
        // An event stream has none: it ends when its last event is sent, or when the client leaves.
        if events != nil {
            for header in EventStream.defaultHeaders where !fields.keys.contains(where: { $0.lowercased() == header.name.lowercased() }) {
                fields[header.name] = header.value
            }
        } else if template?.body == nil {
            switch body {
            case .inline(let data), .json(let data): fields["Content-Length"] = String(data.count)
            case .empty: fields["Content-Length"] = "0"
            case .file: break
            }
        }
        cachedHeaderFields = fields
    }

    /// The content type sent: the rule's, else one inferred from the response file's extension.
    package var effectiveContentType: String? {
        if let contentType { return contentType }
        if let header = headers.first(where: { $0.name.lowercased() == "content-type" }) {
            return header.value
        }
        if events != nil { return EventStream.contentType }
        switch body {
        case .file(let url): return MediaType.forExtension(url.pathExtension)
        case .json: return "application/json"
        case .inline, .empty: return nil
        }
    }
}

/// The templated parts of a response, parsed when the bundle is loaded.
package struct ResponseTemplates: Sendable {
    package var body: ResponseTemplate?
    /// Header name to template, for headers that hold a placeholder.
    package var headers: [String: ResponseTemplate]

    package init(body: ResponseTemplate? = nil, headers: [String: ResponseTemplate] = [:]) {
        self.body = body
        self.headers = headers
    }

    /// Whether any part shows `{{hit}}`.
    package var usesHitCount: Bool {
        body?.usesHitCount == true || headers.values.contains { $0.usesHitCount }
    }
}

/// Where a response body comes from.
package enum ResponseBody: Sendable {
    case empty
    /// Text or bytes written in the rules file (`body`, `inline_response`).
    case inline(Data)
    /// A JSON value written in the rules file (`json`), already serialized.
    case json(Data)
    /// A file inside the bundle folder, streamed when served.
    case file(URL)
}

/// The network failures a rule can simulate, by the names used in rules files.
package enum SimulatedNetworkError: String, Sendable, CaseIterable {
    case notConnectedToInternet
    case timedOut
    case networkConnectionLost
    case cannotFindHost
    case cannotConnectToHost
    case dnsLookupFailed
    case secureConnectionFailed
    case badServerResponse
    case cancelled
    case resourceUnavailable

    package var code: URLError.Code {
        switch self {
        case .notConnectedToInternet: return .notConnectedToInternet
        case .timedOut: return .timedOut
        case .networkConnectionLost: return .networkConnectionLost
        case .cannotFindHost: return .cannotFindHost
        case .cannotConnectToHost: return .cannotConnectToHost
        case .dnsLookupFailed: return .dnsLookupFailed
        case .secureConnectionFailed: return .secureConnectionFailed
        case .badServerResponse: return .badServerResponse
        case .cancelled: return .cancelled
        case .resourceUnavailable: return .resourceUnavailable
        }
    }
}
