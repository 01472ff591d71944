import Foundation

extension BundleWriter {
    /// Conditions and options of rules that come from other stub formats (WireMock, Mocktail), on top
    /// of what a recording writes: a regular expression or a pattern instead of a literal path, request
    /// headers, more body conditions, priority and scenarios.
    public struct ImportedOptions: Sendable, Hashable {
        /// The `method` that stands for any method: the rule is written without one.
        public static let anyMethod = "ANY"

        /// The rule's `name`; default `METHOD path`.
        public var name: String?
        /// Written as `urlRegex` instead of `path` (the conditions' `path` then only names files).
        public var urlRegex: String?
        /// A path pattern (`/users/{id}`, `/files/**`) written as it is, instead of the literal path.
        public var pathPattern: String?
        /// Request header conditions, by name.
        public var headers: [String: RequestConditions.QueryValue] = [:]
        /// Body conditions beyond ``RequestConditions/body``; each kind at most once.
        public var moreBody: [RequestConditions.Body] = []
        /// Our `priority` (higher first).
        public var priority: Int?
        public var scenario: String?
        public var whenState: String?
        public var setState: String?
        /// Written as `template: true`: the response's `{{…}}` placeholders are filled per request.
        public var template = false

        public init() {}

        var specificity: Int { headers.count + moreBody.count }

        var requestHeaderKeys: [(String, JSONText)] {
            guard !headers.isEmpty else { return [] }
            return [("requestHeaders", .object(headers.keys.sorted().map { name in
                switch headers[name]! {
                case .equals(let value): return (name, .string(value))
                case .present: return (name, .object([("present", .bool(true))]))
                case .matches(let regex): return (name, .object([("matches", .string(regex))]))
                case .absent: return (name, .object([("absent", .bool(true))]))
                }
            }))]
        }

        var ruleKeys: [(String, JSONText)] {
            var pairs: [(String, JSONText)] = []
            if let priority, priority != 0 { pairs.append(("priority", .int(priority))) }
            if let scenario { pairs.append(("scenario", .string(scenario))) }
            if let whenState { pairs.append(("whenState", .string(whenState))) }
            if let setState { pairs.append(("setState", .string(setState))) }
            if template { pairs.append(("template", .bool(true))) }
            return pairs
        }

        /// A number as JSON: `1` rather than `1.0`, `0.25` as it is.
        static func number(_ value: Double) -> String {
            if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return String(value)
        }
    }

    static func bodyCondition(_ body: RequestConditions.Body) -> (String, JSONText) {
        switch body {
        case .equals(let text): return ("equals", .string(text))
        case .equalsJSON(let json): return ("equalsJSON", parsed(json))
        case .containsJSON(let json): return ("containsJSON", parsed(json))
        case .contains(let text): return ("contains", .string(text))
        case .matches(let regex): return ("matches", .string(regex))
        }
    }
}
