#if Tools
import Foundation
import StubKit

/// One exchange of recorded traffic, as the contract checks read it: what the app sent and, when the
/// input keeps it, what came back.
package struct TrafficEntry: Sendable {
    package struct Header: Sendable, Hashable {
        package var name: String
        package var value: String
        package init(name: String, value: String) { self.name = name; self.value = value }
    }

    /// What came back.
    package struct Response: Sendable {
        package var status: Int
        package var headers: [Header]
        /// `nil` when the input does not keep response bodies (the live journal).
        package var body: Data?
        package var bodyTruncated = false
        /// Whether a real backend sent it (a pass-through, a recording, a browser's capture), so that
        /// the backend, not a stub, is checked against the contract.
        package var isReal: Bool

        package init(status: Int, headers: [Header], body: Data?, bodyTruncated: Bool = false, isReal: Bool) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyTruncated = bodyTruncated
            self.isReal = isReal
        }
    }

    /// Where the entry is written: a diagnostic's location.
    package struct Source: Sendable {
        package var file: String
        package var position: SourcePosition?
        package var keyPath: String
        package init(file: String, position: SourcePosition? = nil, keyPath: String = "") {
            self.file = file
            self.position = position
            self.keyPath = keyPath
        }
    }

    /// The entry's number in its input, from 1.
    package var index: Int
    /// Upper-cased.
    package var method: String
    package var url: URL
    /// Whether the URL's host is what the app sent; a recorded rule without `host` matches any host.
    package var hostIsKnown = true
    package var headers: [Header]
    /// Whether ``headers`` are every header the app sent; a recorded rule keeps only the headers it
    /// matches on, so a header it does not name may still have been sent.
    package var headersAreComplete = true
    /// Whether the `Cookie` header holds every cookie sent: an app's own journal sees the request before
    /// the system adds cookies from its store (a URL protocol is handed it without them).
    package var cookiesAreComplete = true
    /// Query items the app sent whose values the input does not keep (a recording keeps a secret's
    /// name with `present`): a required parameter is there, its value is not checked.
    package var queryNamesWithoutValues: Set<String> = []
    /// The request body (`nil` or empty: none).
    package var body: Data?
    /// Whether the input kept only the start of the body.
    package var bodyTruncated = false
    /// Whether the input says what the body was: a recorded rule keeps conditions on it, not the body,
    /// and a journal or HAR may say a body was sent without keeping any of it.
    package var bodyIsKnown = true
    package var response: Response?
    package var source: Source
    /// Path segments that are the values of secret path parameters, once the operation says which.
    var concealedPathSegments: Set<String> = []

    package init(index: Int, method: String, url: URL, headers: [Header], body: Data?, response: Response?, source: Source) {
        self.index = index
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        self.response = response
        self.source = source
    }

    /// `#3 POST https://api.example/v1/orders`: how diagnostics name the entry, without what the URL
    /// carries that the recorder would redact (user info, `?api_key=…`), cut to a readable length.
    package var label: String { label(concealing: concealedPathSegments) }

    /// The label, with the path segments in `secrets` (values of secret path parameters) concealed too.
    package func label(concealing secrets: Set<String>) -> String {
        "#\(index) \(method) \(Self.shown(url, concealing: secrets))"
    }

    static let shownURLLimit = 200

    static func shown(_ url: URL, concealing secrets: Set<String>) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return String(url.absoluteString.prefix(shownURLLimit)) }
        components.user = nil
        components.password = nil
        if !secrets.isEmpty {
            components.percentEncodedPath = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                secrets.contains(String(segment).removingPercentEncoding ?? String(segment)) ? Redactor.placeholder : String(segment)
            }.joined(separator: "/")
        }
        if let items = components.percentEncodedQueryItems {
            let redactor = TrafficValidator.concealer
            components.percentEncodedQueryItems = items.map { item in
                let name = item.name.removingPercentEncoding ?? item.name
                return redactor.isSecret(name, in: .parameter) && item.value != nil ? URLQueryItem(name: item.name, value: Redactor.placeholder) : item
            }
        }
        let text = components.string ?? url.absoluteString
        return text.count > shownURLLimit ? String(text.prefix(shownURLLimit)) + "…" : text
    }

    /// The first value of a header (names compared case-insensitively).
    package func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

extension TrafficEntry {
    /// A journal entry (the live journal's line, or the app's in-process journal): its response is
    /// real when it was passed through or recorded; the journal keeps no response body.
    package init(_ journal: JournalEntry, index: Int, source: Source) {
        let request = journal.request
        self.init(index: index, method: request.method, url: request.url,
                  headers: request.headers.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) },
                  body: request.body, response: nil, source: source)
        bodyTruncated = journal.requestBodyTruncated
        cookiesAreComplete = false
        // A body left in its stream (nothing needed it whole) is kept in part or not at all.
        if (request.body ?? Data()).isEmpty && journal.requestBodySize != 0 { bodyIsKnown = false }
        if let status = journal.status, journal.error == nil {
            response = .init(status: status, headers: journal.responseHeaders.sorted { $0.key < $1.key }.map { .init(name: $0.key, value: $0.value) },
                             body: journal.responseBody, bodyTruncated: journal.responseBodyTruncated,
                             isReal: journal.passedThrough || journal.recordedAs != nil)
        }
    }
}

extension TrafficEntry.Response {
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}
#endif
