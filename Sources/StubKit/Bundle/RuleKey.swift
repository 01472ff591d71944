/// A key of a rules file: each spelt once, here, for the decoder, its did-you-mean suggestions, the
/// linters and the schema test.
package enum RuleKey: String, CaseIterable, Sendable {
    // Request conditions and rule options.
    case name, method, path, urlRegex, host, scheme, query, requestHeaders, requestBody, graphql
    case priority, responses, afterLast, scenario, whenState, setState, template, webSocket
    // What a response is: on a rule, and on each item of its `responses`.
    case status, response, body, json, headers, contentType, delay, throttle, error, events, keepOpen
    // The top-level dictionary's own keys (it shares `name`, `host`, `headers`, `requestHeaders`, `delay`).
    case rules, description, recordedAt
    // The older Just Eat-style format, still read.
    case matchingURL = "matching_url", jsonFile = "json_file", statusCode = "status_code", httpMethod = "http_method"
    case inlineResponse = "inline_response"

    /// Keys that describe a response: allowed on a rule and on each item of its `responses`.
    package static let responseKeys: [RuleKey] = [.status, .response, .body, .json, .headers, .contentType, .delay, .throttle, .error, .events, .keepOpen]

    /// Keys of one rule: its request conditions and options, and the response keys. Legacy keys are
    /// read but not listed, so suggestions teach the current ones.
    package static let ruleKeys: [RuleKey] = [
        .name, .method, .path, .urlRegex, .host, .scheme, .query, .requestHeaders, .requestBody, .graphql,
        .priority, .responses, .afterLast, .scenario, .whenState, .setState, .template, .webSocket,
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
        case .status, .response, .body, .json, .headers, .contentType, .delay, .throttle, .error, .events, .keepOpen,
             .statusCode, .jsonFile, .inlineResponse: true
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

    /// The fields of a `graphql` condition.
    enum GraphQLKey: String, CaseIterable {
        case operationName, operationType, variables, variablesEqual, persistedQuery, document
    }

    /// Conditions on one query item or header.
    enum ValueCondition: String, CaseIterable {
        case equals, matches, present, absent
    }

    /// The fields of one Server-Sent Event in `events`.
    enum EventField: String, CaseIterable {
        case event, data, id, retry, comment, delay, setState
    }

    /// The keys of a `webSocket` script.
    enum WebSocketKey: String, CaseIterable {
        case onConnect, replies, every, subprotocol, maxMessageSize
    }

    /// The keys of one step of a WebSocket script: what it sends (one of them), and its delay.
    enum WebSocketStepKey: String, CaseIterable {
        case text, json, binary, ping, close, delay
    }

    /// The keys of one reply of a WebSocket script.
    enum WebSocketReplyKey: String, CaseIterable {
        case when, send, setState
    }

    /// The keys of one periodic entry of a WebSocket script.
    enum WebSocketPeriodicKey: String, CaseIterable {
        case interval, send, times
    }

    /// The keys of a WebSocket close step.
    enum WebSocketCloseKey: String, CaseIterable {
        case code, reason
    }

    /// The bounds of a random delay.
    enum DelayBound: String, CaseIterable {
        case min, max
    }
}
