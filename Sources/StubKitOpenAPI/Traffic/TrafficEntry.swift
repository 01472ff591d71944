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
    /// The request body (`nil` or empty: none).
    package var body: Data?
    /// Whether the input kept only the start of the body.
    package var bodyTruncated = false
    /// Whether the input says what the body was; a recorded rule keeps conditions on it, not the body.
    package var bodyIsKnown = true
    package var response: Response?
    package var source: Source

    package init(index: Int, method: String, url: URL, headers: [Header], body: Data?, response: Response?, source: Source) {
        self.index = index
        self.method = method.uppercased()
        self.url = url
        self.headers = headers
        self.body = body
        self.response = response
        self.source = source
    }

    /// `#3 POST https://api.example/v1/orders`: how diagnostics name the entry.
    package var label: String { "#\(index) \(method) \(url.absoluteString)" }

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
