import Foundation

extension BundleWriter {
    /// Conditions and options of rules that come from other stub formats (WireMock, Mocktail), on top
    /// of what a recording writes: a regular expression or a pattern instead of a literal path, request
    /// headers, more body conditions, priority and scenarios.
    package struct ImportedOptions: Sendable, Hashable {
        /// The `method` that stands for any method: the rule is written without one.
        package static let anyMethod = "ANY"

        /// The rule's `name`; default `METHOD path`.
        package var name: String?
        /// Written as `urlRegex` instead of `path` (the conditions' `path` then only names files).
        package var urlRegex: String?
        /// A path pattern (`/users/{id}`, `/files/**`) written as it is, instead of the literal path.
        package var pathPattern: String?
        /// Query conditions, by name; written instead of ``RequestConditions/query`` (set one of the two).
        package var query: [String: ValueCondition] = [:]
        /// Request header conditions, by name.
        package var headers: [String: ValueCondition] = [:]
        /// Body conditions, each kind at most once; written instead of ``RequestConditions/body`` (set one of the two).
        package var body: [BodyCondition] = []
        /// Our `priority` (higher first).
        package var priority: Int?
        package var scenario: String?
        package var whenState: String?
        package var setState: String?
        /// Written as `template: true`: the response's `{{…}}` placeholders are filled per request.
        package var template = false
        /// The response file's name without its extension (default `METHOD_path`); made unique like the default.
        package var fileBaseName: String?

        package init() {}

        var specificity: Int { query.count + headers.count + body.count }

        /// `query`, `requestHeaders` and `requestBody`, when set.
        var conditionKeys: [(String, JSONText)] {
            var pairs: [(String, JSONText)] = []
            if !query.isEmpty {
                pairs.append(BundleWriter.entry(.query, .object(query.keys.sorted().map { name in
                    if case .equals(let value) = query[name]! { return (name, BundleWriter.queryEquals(value)) }
                    return (name, query[name]!.json)
                })))
            }
            if !headers.isEmpty {
                pairs.append(BundleWriter.entry(.requestHeaders, .object(headers.keys.sorted().map { ($0, headers[$0]!.json) })))
            }
            if !body.isEmpty { pairs.append(BundleWriter.entry(.requestBody, .object(body.map(\.json)))) }
            return pairs
        }

        var ruleKeys: [(String, JSONText)] {
            var pairs: [(String, JSONText)] = []
            if let priority, priority != 0 { pairs.append(BundleWriter.entry(.priority, .int(priority))) }
            if let scenario { pairs.append(BundleWriter.entry(.scenario, .string(scenario))) }
            if let whenState { pairs.append(BundleWriter.entry(.whenState, .string(whenState))) }
            if let setState { pairs.append(BundleWriter.entry(.setState, .string(setState))) }
            if template { pairs.append(BundleWriter.entry(.template, .bool(true))) }
            return pairs
        }

        /// A number as JSON: `1` rather than `1.0`, `0.25` as it is.
        static func number(_ value: Double) -> String {
            if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
            return String(value)
        }
    }

    /// A query value to equal, as written: a value with `+` in the explicit `{"equals": …}` form, which
    /// says the `+` is meant as sent (and keeps the loader's SK024 note, for hand-written values, quiet).
    static func queryEquals(_ value: String) -> JSONText {
        value.utf8.contains(UInt8(ascii: "+")) ? .object([(RuleKey.ValueCondition.equals.rawValue, .string(value))]) : .string(value)
    }

    /// How a query item or request header must look, as the rules file writes it.
    package enum ValueCondition: Sendable, Hashable {
        case equals(String)
        /// A regular expression the value matches (unanchored).
        case matches(String)
        case present
        case absent

        var json: JSONText {
            switch self {
            case .equals(let value): return .string(value)
            case .matches(let regex): return .object([(RuleKey.ValueCondition.matches.rawValue, .string(regex))])
            case .present: return .object([(RuleKey.ValueCondition.present.rawValue, .bool(true))])
            case .absent: return .object([(RuleKey.ValueCondition.absent.rawValue, .bool(true))])
            }
        }
    }

    /// A condition on the request body, as the rules file writes it.
    package enum BodyCondition: Sendable, Hashable {
        case equals(String)
        case contains(String)
        /// A regular expression (unanchored).
        case matches(String)
        /// JSON text, compared ignoring key order and whitespace.
        case equalsJSON(String)
        /// JSON object text: these fields with these values.
        case containsJSON(String)

        /// The key in `requestBody`; a rule holds each kind once.
        package var key: String {
            let condition: RuleKey.BodyCondition
            switch self {
            case .equals: condition = .equals
            case .contains: condition = .contains
            case .matches: condition = .matches
            case .equalsJSON: condition = .equalsJSON
            case .containsJSON: condition = .containsJSON
            }
            return condition.rawValue
        }

        var json: (String, JSONText) {
            switch self {
            case .equals(let text), .contains(let text), .matches(let text): return (key, .string(text))
            case .equalsJSON(let text), .containsJSON(let text): return (key, BundleWriter.parsed(text))
            }
        }
    }
}
