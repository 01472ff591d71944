import Foundation

/// Which journal entries a wait or check is about: method, path pattern, host, query, headers — the
/// same conditions rules use.
public struct RequestPredicate: Sendable, CustomStringConvertible {
    package var conditions: RequestConditions
    /// Only answered requests (`true`), only unanswered ones (`false`), or both (`nil`).
    public var answered: Bool?

    package init(conditions: RequestConditions, answered: Bool? = nil) {
        self.conditions = conditions
        self.answered = answered
    }

    /// `RequestPredicate("POST", path: "/orders")`. A path that is not a valid pattern is a programming error.
    public init(_ method: String? = nil, path: String? = nil, host: String? = nil, answered: Bool? = nil) {
        var conditions = RequestConditions(methods: method.map { [$0.uppercased()] }, host: host?.lowercased())
        if let path {
            do {
                conditions.path = try PathPattern(parsing: path)
            } catch {
                preconditionFailure("RequestPredicate: invalid path pattern '\(path)': \(error.message)")
            }
        }
        self.init(conditions: conditions, answered: answered)
    }

    /// Any request.
    public static let any = RequestPredicate()

    func matches(_ entry: JournalEntry) -> Bool {
        if let answered, answered != (entry.rule != nil) { return false }
        return RequestMatcher.matches(conditions, entry.request)
    }

    /// The predicate in words: methods, host, path pattern and answered-or-not (`POST /orders`).
    public var description: String {
        var parts: [String] = [conditions.methodsDescription]
        if let host = conditions.host { parts.append("//\(host)") }
        parts.append(conditions.path?.description ?? "/**")
        if let answered { parts.append(answered ? "(answered)" : "(unanswered)") }
        return parts.joined(separator: " ")
    }
}
