import Foundation

/// One request the engine saw, what answered it and how.
public struct JournalEntry: Sendable {
    public var id: Int
    public var startedAt: Date
    /// Seconds from the start of loading to the last byte (or the failure).
    public var duration: TimeInterval
    public var request: StubRequest
    /// The bundle and rule that answered, or `nil` when none did.
    public var bundle: String?
    public var rule: RuleReference?
    /// The status sent, or `nil` when the request failed.
    public var status: Int?
    public var responseHeaders: [String: String]
    /// The body sent, when it was at most ``JournalEntry/maximumBodySize`` bytes.
    public var responseBody: Data?
    public var responseBodySize: Int
    /// The error the request failed with: a simulated one, the kill switch, a used-up sequence.
    public var error: ErrorInfo?
    /// On a miss: the closest rules and what did not match.
    public var nearMisses: [NearMiss]

    /// Bodies larger than this are counted, not kept.
    public static let maximumBodySize = 1 << 20

    /// A rule as the journal names it.
    public struct RuleReference: Sendable, Hashable {
        public var name: String
        public var location: String
        public var keyPath: String
    }

    public struct ErrorInfo: Sendable {
        public var code: Int
        public var description: String
    }

    /// `GET https://… → 200 (bundle: rule)` or `… → error -1009`.
    public var summary: String {
        var text = "\(request.method) \(request.url.absoluteString) → "
        if let status { text += String(status) } else if let error { text += "error \(error.code)" } else { text += "no response" }
        if let bundle, let rule { text += " (\(bundle): \(rule.name))" } else { text += " (no rule)" }
        return text
    }
}
