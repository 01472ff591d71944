import Foundation

/// One request the engine saw, what answered it and how.
public struct JournalEntry: Sendable {
    /// The entry's number in the journal, counting from 1 in the order requests started.
    public var id: Int
    /// When the app started the request.
    public var startedAt: Date
    /// Seconds from the start of loading to the last byte (or the failure).
    public var duration: TimeInterval
    /// The request as the app sent it: method, URL, headers and body.
    public var request: StubRequest
    /// The bundle and rule that answered, or `nil` when none did.
    public var bundle: String?
    /// Where the rule that answered is written; `nil` when none did.
    public var rule: RuleReference?
    /// The status sent, or `nil` when the request failed.
    public var status: Int?
    /// The response headers sent (empty when the request failed).
    public var responseHeaders: [String: String]
    /// The body sent, cut to the journal's ``StubJournal/Limits/maximumBodySize`` (see ``responseBodyTruncated``).
    public var responseBody: Data?
    /// The size of the whole body sent.
    public var responseBodySize: Int
    /// Whether ``responseBody`` holds only the first part of the body sent.
    public var responseBodyTruncated: Bool = false
    /// Whether ``request``'s body holds only the first part of the body the app sent.
    public var requestBodyTruncated: Bool = false
    /// The size of the whole request body the app sent, or -1 when unknown: a body left partly in its
    /// `httpBodyStream` (nothing needed it whole) without a `Content-Length` header.
    public var requestBodySize: Int = 0
    /// No rule answered: the request went to the network through StubKit's forwarder, and this is the
    /// real response.
    public var passedThrough: Bool = false
    /// The pass-through was recorded into the bundle of ``StubEngine/recorder`` (the response file it
    /// was written to), so a reader of the journal sees which requests a recording run added.
    public var recordedAs: String?
    /// Whether the exchange was recorded into a bundle.
    public var recorded: Bool { recordedAs != nil }
    /// Why a pass-through the recorder meant to record was not written (the response body could not
    /// be stored, the bundle could not be written); the app still got the real response.
    public var recordingFailure: String?
    /// The error the request failed with: a simulated one, the kill switch, a used-up sequence.
    public var error: ErrorInfo?
    /// On a miss: the closest rules and what did not match.
    package var nearMisses: [NearMiss]
    /// For a WebSocket the local server accepted: the conversation's frames in order (the entry is
    /// written when the connection ends).
    package var webSocketMessages: [WebSocketMessageRecord]?
    /// Frames of the conversation left out of ``webSocketMessages`` to stay within the journal's limits.
    package var webSocketMessagesDropped = 0
    /// How the request and its answer depart from the API's contract (`stubkit serve --openapi`).
    package var contractFindings: [JournalContractFinding] = []

    package init(id: Int, startedAt: Date, duration: TimeInterval, request: StubRequest, bundle: String?, rule: RuleReference?,
                status: Int?, responseHeaders: [String: String], responseBody: Data?, responseBodySize: Int,
                responseBodyTruncated: Bool = false, passedThrough: Bool = false, error: ErrorInfo?, nearMisses: [NearMiss],
                recordedAs: String? = nil, recordingFailure: String? = nil) {
        self.id = id
        self.startedAt = startedAt
        self.duration = duration
        self.request = request
        self.bundle = bundle
        self.rule = rule
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseBody = responseBody
        self.responseBodySize = responseBodySize
        self.responseBodyTruncated = responseBodyTruncated
        self.requestBodySize = request.body?.count ?? 0
        self.passedThrough = passedThrough
        self.error = error
        self.nearMisses = nearMisses
        self.recordedAs = recordedAs
        self.recordingFailure = recordingFailure
    }

    /// A rule as the journal names it.
    ///
    /// Made for every answered request, so its name (`GET /api/v1/items/{id}` for a rule without
    /// one) and location text are put together only when read: a journal is written far more often
    /// than it is read, and building the name costs about 8k instructions per request, a twentieth of a
    /// stubbed request end to end (callgrind, docs/benchmarks.md). Equality and hashing use the text.
    /// A reference made from a rule keeps what its name and location are made of (the rule's label and
    /// source), never the rule itself: a journal entry must not keep a deactivated bundle's
    /// response bodies alive.
    public struct RuleReference: Sendable, Hashable, CustomReflectable {
        /// The rule's key path in its rules file (`rules[3]`).
        public var keyPath: String
        private var origin: Origin

        private enum Origin: Sendable {
            case text(name: String, location: String)
            case rule(RuleLabel, RuleSource)
        }

        /// The rule's name, or its method and path when it has none.
        public var name: String {
            get {
                switch origin {
                case .text(let name, _): return name
                case .rule(let label, _): return label.text
                }
            }
            set { origin = .text(name: newValue, location: location) }
        }

        /// `file:line:column`, or `file (keyPath)` when the rule's format has no positions.
        public var location: String {
            get {
                switch origin {
                case .text(_, let location): return location
                case .rule(_, let source): return source.locationDescription
                }
            }
            set { origin = .text(name: name, location: newValue) }
        }

        package init(name: String, location: String, keyPath: String) {
            self.keyPath = keyPath
            self.origin = .text(name: name, location: location)
        }

        /// The reference to a rule, its name and location put together when first read.
        package init(_ rule: StubRule) {
            self.keyPath = rule.source.keyPath
            self.origin = .rule(RuleLabel(rule), rule.source)
        }

        /// Two references are equal when they name the same rule at the same place.
        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.name == rhs.name && lhs.keyPath == rhs.keyPath && lhs.location == rhs.location
        }

        /// Printed and dumped as its name, location and key path, however it was made.
        public var customMirror: Mirror {
            Mirror(self, children: ["name": name, "location": location, "keyPath": keyPath], displayStyle: .struct)
        }

        /// Hashes the name, key path and location that equality compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(keyPath)
            hasher.combine(location)
        }
    }

    /// The error a request failed with, as the app saw it.
    public struct ErrorInfo: Sendable {
        /// The `URLError` code.
        public var code: Int
        /// The error's message.
        public var description: String

        package init(code: Int, description: String) {
            self.code = code
            self.description = description
        }
    }

    /// `GET https://… → 200 (bundle: rule)` or `… → error -1009`.
    public var summary: String {
        var text = "\(request.method) \(request.url.absoluteString) → "
        if let status { text += String(status) } else if let error { text += "error \(error.code)" } else { text += "no response" }
        if let bundle, let rule {
            text += " (\(bundle): \(rule.name))"
        } else if let recordingFailure {
            text += " (passed through, not recorded: \(recordingFailure))"
        } else {
            text += recorded ? " (recorded)" : passedThrough ? " (passed through)" : " (no rule)"
        }
        return text
    }
}
