import Foundation

/// One rule of a stub bundle: which requests it answers, and with what.
///
/// A value whose parts live in one shared, unchanging box: on its way from the index to the journal a
/// rule is copied several times per request, and copying its twenty-odd strings, arrays and
/// dictionaries each time would cost about 10k instructions per request (callgrind, docs/benchmarks.md).
/// A copy is one reference count; changing a rule gives it a new box, so copies never see it.
package struct StubRule: Sendable {
    /// Its parts, in one shared box (``SharedParts``): read through `_read` accessors, which borrow.
    private var storage: SharedParts<Parts>

    private struct Parts: Sendable {
        var name: String?
        var source: RuleSource
        var request: RequestConditions
        var response: StubResponse
        var sequence: ResponseSequence?
        var newState: String?
        var priority: Int
        var webSocket: WebSocketScript?
    }

    /// The name used in reports: the rule's `name`, or `METHOD path` when it has none.
    package var name: String? {
        _read { yield storage.parts.name }
        set { storage.change { $0.name = newValue } }
    }
    /// Where the rule is written.
    package var source: RuleSource {
        _read { yield storage.parts.source }
        set { storage.change { $0.source = newValue } }
    }
    package var request: RequestConditions {
        _read { yield storage.parts.request }
        set { storage.change { $0.request = newValue } }
    }
    /// The response, or the first of a sequence.
    package var response: StubResponse {
        _read { yield storage.parts.response }
        set { storage.change { $0.response = newValue } }
    }
    /// Responses used in order on repeated requests (`responses`), when the rule has more than one.
    package var sequence: ResponseSequence? {
        _read { yield storage.parts.sequence }
        set { storage.change { $0.sequence = newValue } }
    }
    /// The scenario state to move to after answering (`setState`), in `request.scenario`'s scenario.
    package var newState: String? {
        _read { yield storage.parts.newState }
        set { storage.change { $0.newState = newValue } }
    }
    /// Higher first. Defaults to 0.
    package var priority: Int {
        _read { yield storage.parts.priority }
        set { storage.change { $0.priority = newValue } }
    }
    /// The conversation a WebSocket rule (`webSocket`) holds once it accepts the upgrade; such a rule
    /// answers WebSocket upgrade requests only.
    package var webSocket: WebSocketScript? {
        _read { yield storage.parts.webSocket }
        set { storage.change { $0.webSocket = newValue } }
    }

    package init(name: String? = nil, source: RuleSource, request: RequestConditions, response: StubResponse,
                sequence: ResponseSequence? = nil, newState: String? = nil, priority: Int = 0, webSocket: WebSocketScript? = nil) {
        storage = SharedParts(Parts(name: name, source: source, request: request, response: response, sequence: sequence,
                                newState: newState, priority: priority, webSocket: webSocket))
    }

    /// Whether answering depends on or changes engine state (sequences, scenarios, random delays).
    /// A rule whose template shows `{{hit}}` counts its answers, so it is stateful too.
    var isStateful: Bool {
        sequence != nil || newState != nil || request.scenarioState != nil || response.delayRange != nil
            || response.template?.usesHitCount == true || response.events?.usesHitCount == true
            || webSocket?.usesHitCount == true
            || (sequence?.responses.contains { $0.delayRange != nil || $0.template?.usesHitCount == true || $0.events?.usesHitCount == true } ?? false)
    }

    /// A short label for logs and reports.
    package var displayName: String {
        RuleLabel(self).text
    }

    /// The box holding the rule's parts, shared by its copies (for tests of what keeps it alive).
    var sharedBox: AnyObject { storage.box }
}

/// Where a rule is written: the file, the position of its dictionary, its index and key path.
package struct RuleSource: Sendable, Hashable {
    package var file: String
    package var position: SourcePosition?
    /// The rule's index in the file's rule list, from 0.
    package var index: Int
    /// `rules[3]` or `[3]`, depending on the top level of the file.
    package var keyPath: String

    package init(file: String, position: SourcePosition?, index: Int, keyPath: String) {
        self.file = file
        self.position = position
        self.index = index
        self.keyPath = keyPath
    }

    /// `file:line:column`, or `file (keyPath)` when the format has no positions.
    package var locationDescription: String {
        if let position { return "\(file):\(position.line):\(position.column)" }
        return "\(file) (\(keyPath))"
    }
}

/// The conditions a request must meet for a rule to answer it. All present conditions must hold.
package struct RequestConditions: Sendable, Hashable {
    /// Upper-cased methods; `nil` means any method.
    package var methods: Set<String>?
    package var path: PathPattern?
    /// An unanchored regular expression over the absolute URL (`matching_url`).
    package var urlPattern: RegexPattern?
    /// Lower-cased host; `nil` means any host.
    package var host: String?
    /// Lower-cased scheme (`http`, `https`); `nil` means any.
    package var scheme: String?
    /// Conditions on query items, by name. Names and `equals` values are kept in comparison form
    /// (`PercentEncoding`: `%2B` stays an escape, other escapes decoded), as the request's are compared.
    package var query: [String: ValueMatcher] {
        didSet { query = Self.comparable(query) }
    }
    /// Conditions on request headers, by name (compared case-insensitively).
    package var headers: [String: ValueMatcher]
    /// Conditions on the request body; all must hold.
    package var body: [BodyMatcher]
    /// The scenario and the state it must be in (`scenario` + `whenState`).
    package var scenarioState: ScenarioCondition?
    /// The request must be a WebSocket upgrade (`Upgrade: websocket`): set for `webSocket` rules.
    package var webSocketUpgrade: Bool = false
    /// What the request's GraphQL operation must be (`graphql`).
    package var graphQL: GraphQLCondition?

    package init(
        methods: Set<String>? = nil,
        path: PathPattern? = nil,
        urlPattern: RegexPattern? = nil,
        host: String? = nil,
        scheme: String? = nil,
        query: [String: ValueMatcher] = [:],
        headers: [String: ValueMatcher] = [:],
        body: [BodyMatcher] = [],
        scenarioState: ScenarioCondition? = nil
    ) {
        self.methods = methods
        self.path = path
        self.urlPattern = urlPattern
        self.host = host
        self.scheme = scheme
        self.query = Self.comparable(query)
        self.headers = headers
        self.body = body
        self.scenarioState = scenarioState
    }

    /// The conditions with names and `equals` values in comparison form; the same dictionary when
    /// none holds a `%`. Of names that compare equal, the one first in text order is kept.
    static func comparable(_ query: [String: ValueMatcher]) -> [String: ValueMatcher] {
        func escaped(_ text: String) -> Bool { PathPattern.contains(text, byte: UInt8(ascii: "%")) }
        guard query.contains(where: { name, matcher in
            if escaped(name) { return true }
            if case .equals(let value) = matcher { return escaped(value) }
            return false
        }) else { return query }
        var result: [String: ValueMatcher] = [:]
        for name in query.keys.sorted() {
            var matcher = query[name]!
            if case .equals(let value) = matcher { matcher = .equals(PercentEncoding.comparable(value)) }
            let key = PercentEncoding.comparable(name)
            if result[key] == nil { result[key] = matcher }
        }
        return result
    }

    var methodsDescription: String { Self.describe(methods: methods) }

    var pathDescription: String { Self.describe(path: path, urlPattern: urlPattern?.pattern) }

    static func describe(methods: Set<String>?) -> String {
        guard let methods else { return "ANY" }
        return methods.sorted().joined(separator: "|")
    }

    static func describe(path: PathPattern?, urlPattern: String?) -> String {
        if let path { return path.description }
        if let urlPattern { return "~\(urlPattern)" }
        return "/**"
    }
}

/// Printed, dumped and shown in test failures with its parts, not its box.
extension StubRule: CustomReflectable {
    package var customMirror: Mirror {
        Mirror(self, children: ["name": name as Any, "source": source, "request": request, "response": response,
                                "sequence": sequence as Any, "newState": newState as Any, "priority": priority,
                                "webSocket": webSocket as Any],
               displayStyle: .struct)
    }
}

/// What a rule's display name is made from, and nothing else of the rule: the journal keeps one per
/// entry and puts the name together only when it is read, without keeping the rule's response bodies,
/// sequences or compiled patterns alive after its bundle is deactivated.
struct RuleLabel: Sendable {
    let name: String?
    let methods: Set<String>?
    let path: PathPattern?
    let urlPattern: String?
    let graphQLOperation: String?

    init(_ rule: StubRule) {
        name = rule.name
        methods = rule.request.methods
        path = rule.request.path
        urlPattern = rule.request.urlPattern?.pattern
        graphQLOperation = rule.request.graphQL?.operationName
    }

    /// ``StubRule/displayName``: the rules of one GraphQL endpoint differ by their operation.
    var text: String {
        if let name { return name }
        let label = "\(RequestConditions.describe(methods: methods)) \(RequestConditions.describe(path: path, urlPattern: urlPattern))"
        return graphQLOperation.map { "\(label) (GraphQL \($0))" } ?? label
    }
}

/// A named scenario and the state it must be in for a rule to match.
package struct ScenarioCondition: Sendable, Hashable {
    package var scenario: String
    /// `nil` when the rule only sets the state (`setState` without `whenState`).
    package var state: String?

    /// Every scenario starts here, and returns here when the engine is reset.
    package static let initialState = "Started"
}

/// Responses given in order to repeated requests, and what happens when they run out.
package struct ResponseSequence: Sendable {
    package enum Exhausted: String, Sendable, CaseIterable {
        /// Keep giving the last response (the default).
        case repeatLast
        /// Start again from the first.
        case cycle
        /// Fail the request with an error saying the sequence is used up.
        case fail
    }

    package var responses: [StubResponse]
    package var whenExhausted: Exhausted

    /// The response for the n-th request (from 0), or `nil` when the sequence is used up and fails.
    package func response(forHit n: Int) -> StubResponse? {
        if n < responses.count { return responses[n] }
        switch whenExhausted {
        case .repeatLast: return responses.last
        case .cycle: return responses[n % responses.count]
        case .fail: return nil
        }
    }
}
