/// A key of a rules file: each spelt once, here, for the decoder, its did-you-mean suggestions, the
/// linters and the schema test.
package enum RuleKey: String, CaseIterable, Sendable {
    // Request conditions and rule options.
    case name, method, path, urlRegex, host, scheme, query, requestHeaders, requestBody
    case priority, responses, afterLast, scenario, whenState, setState, template
    // What a response is: on a rule, and on each item of its `responses`.
    case status, response, body, json, headers, contentType, delay, throttle, error
    // The top-level dictionary's own keys (it shares `name`, `host`, `headers`, `requestHeaders`, `delay`).
    case rules, description, recordedAt
    // The older Just Eat-style format, still read.
    case matchingURL = "matching_url", jsonFile = "json_file", statusCode = "status_code", httpMethod = "http_method"
    case inlineResponse = "inline_response"

    /// Keys that describe a response: allowed on a rule and on each item of its `responses`.
    package static let responseKeys: [RuleKey] = [.status, .response, .body, .json, .headers, .contentType, .delay, .throttle, .error]

    /// Keys of one rule: its request conditions and options, and the response keys. Legacy keys are
    /// read but not listed, so suggestions teach the current ones.
    package static let ruleKeys: [RuleKey] = [
        .name, .method, .path, .urlRegex, .host, .scheme, .query, .requestHeaders, .requestBody,
        .priority, .responses, .afterLast, .scenario, .whenState, .setState, .template,
    ] + responseKeys

    /// Keys of the top-level dictionary form.
    package static let topLevelKeys: [RuleKey] = [.rules, .name, .description, .host, .headers, .requestHeaders, .delay, .recordedAt]

    /// The key a legacy key stands for, or `nil` for a current key.
    package var current: RuleKey? {
        switch self {
        case .matchingURL: .urlRegex
        case .jsonFile: .response
        case .statusCode: .status
        case .httpMethod: .method
        case .inlineResponse: .body
        default: nil
        }
    }

    /// Whether the key describes a response (current or legacy), so it may appear in `responses`.
    var isResponse: Bool {
        switch self {
        case .status, .response, .body, .json, .headers, .contentType, .delay, .throttle, .error, .statusCode, .jsonFile, .inlineResponse: true
        default: false
        }
    }

    /// Keys that give a URL condition: a pattern over the path, or an expression over the whole URL.
    var isURLCondition: Bool { self == .path || self == .urlRegex || self == .matchingURL }

    /// The names of `keys`, as suggestions compare them.
    static func names(_ keys: [RuleKey]) -> [String] { keys.map(\.rawValue) }

    /// Conditions on a request body.
    enum BodyCondition: String, CaseIterable {
        case equals, contains, matches, equalsJSON, containsJSON
    }

    /// Conditions on one query item or header.
    enum ValueCondition: String, CaseIterable {
        case equals, matches, present, absent
    }

    /// The bounds of a random delay.
    enum DelayBound: String, CaseIterable {
        case min, max
    }
}
