import Foundation

/// Checks a request against a rule's conditions, and explains the ones that fail.
enum RequestMatcher {
    /// Whether every condition holds. The path is checked too, so this is correct without the index.
    static func matches(_ conditions: RequestConditions, _ request: StubRequest, states: [String: String] = [:]) -> Bool {
        var found = false
        check(conditions, request, states: states) { _ in
            found = true
            return false
        }
        return !found
    }

    /// Whether every condition holds, telling a miss caused by a regular expression that ran over
    /// its budget (the first failed condition) from a plain miss.
    static func evaluate(_ conditions: RequestConditions, _ request: StubRequest, states: [String: String] = [:]) -> RegexPattern.Outcome {
        var outcome = RegexPattern.Outcome.match
        check(conditions, request, states: states) { mismatch in
            outcome = mismatch.isRegexOverBudget ? .overBudget : .noMatch
            return false
        }
        return outcome
    }

    /// The first condition that fails, or `nil` when the request matches.
    static func mismatch(_ conditions: RequestConditions, _ request: StubRequest, states: [String: String] = [:]) -> Mismatch? {
        var first: Mismatch?
        check(conditions, request, states: states) { mismatch in
            first = mismatch
            return false
        }
        return first
    }

    /// Every condition that fails, so a report says all that must change.
    static func allMismatches(_ conditions: RequestConditions, _ request: StubRequest, states: [String: String] = [:]) -> [Mismatch] {
        var all: [Mismatch] = []
        check(conditions, request, states: states) { mismatch in
            all.append(mismatch)
            return true
        }
        return all
    }

    /// Calls `report` for each failed condition, cheapest first, until it returns false.
    private static func check(_ conditions: RequestConditions, _ request: StubRequest, states: [String: String],
                              report: (Mismatch) -> Bool) {
        if let methods = conditions.methods, !methods.contains(request.method) {
            guard report(Mismatch(field: "method", expected: methods.sorted().joined(separator: " or "), actual: request.method)) else { return }
        }
        if conditions.webSocketUpgrade, !request.isWebSocketUpgrade {
            guard report(Mismatch(field: "upgrade", expected: "a WebSocket upgrade (Upgrade: websocket)",
                                  actual: request.header("upgrade").map { "Upgrade: \($0)" } ?? "a plain HTTP request")) else { return }
        }
        if let scheme = conditions.scheme, scheme != request.scheme {
            guard report(Mismatch(field: "scheme", expected: scheme, actual: request.scheme)) else { return }
        }
        if let host = conditions.host, host != request.host {
            guard report(Mismatch(field: "host", expected: host, actual: request.host)) else { return }
        }
        if let path = conditions.path, !path.matches(request.pathSegments) {
            guard report(Mismatch(field: "path", expected: path.description, actual: "/" + request.pathSegments.joined(separator: "/"),
                                  detail: pathDetail(path, request.pathSegments))) else { return }
        }
        if let pattern = conditions.urlPattern {
            let outcome = pattern.evaluate(request.url.absoluteString)
            if outcome != .match {
                guard report(Mismatch(field: "url", expected: "matches /\(pattern.pattern)/", actual: request.url.absoluteString,
                                      detail: outcome == .overBudget ? Mismatch.regexOverBudget : nil)) else { return }
            }
        }
        for name in sortedKeys(conditions.query) {
            let condition = conditions.query[name]!
            let actual = request.queryValue(for: condition, named: name)
            let outcome = condition.evaluate(actual)
            if outcome != .match {
                guard report(Mismatch(field: "query.\(name)", expected: condition.description, actual: actual.map { "'\($0)'" } ?? "absent",
                                      detail: outcome == .overBudget ? Mismatch.regexOverBudget : nil)) else { return }
            }
        }
        for name in sortedKeys(conditions.headers) {
            let condition = conditions.headers[name]!
            let actual = request.header(name)
            let outcome = condition.evaluate(actual)
            if outcome != .match {
                guard report(Mismatch(field: "header \(name)", expected: condition.description, actual: actual.map { "'\($0)'" } ?? "absent",
                                      detail: outcome == .overBudget ? Mismatch.regexOverBudget : nil)) else { return }
            }
        }
        if let required = conditions.scenarioState, let state = required.state {
            let current = states[required.scenario] ?? ScenarioCondition.initialState
            if current != state {
                guard report(Mismatch(field: "scenario \(required.scenario)", expected: "state '\(state)'", actual: "state '\(current)'")) else { return }
            }
        }
        // A body still in its stream is decided once it is read (see StubRequest.bodyPending); a GET's
        // GraphQL is in its URL.
        if let graphQL = conditions.graphQL, !request.bodyPending {
            var more = true
            graphQL.check(request.graphQL) { mismatch in
                more = report(mismatch)
                return more
            }
            guard more else { return }
        }
        for matcher in conditions.body where !request.bodyPending {
            if let failure = matcher.failure(for: request) {
                guard report(Mismatch(field: "body", expected: matcher.description, actual: bodyPreview(request.body), detail: failure)) else { return }
            }
        }
    }

    /// The names in a fixed order (so the first mismatch reported does not depend on hashing); no
    /// sort for the none or one that nearly every rule has.
    private static func sortedKeys(_ conditions: [String: ValueMatcher]) -> [String] {
        switch conditions.count {
        case 0: return []
        case 1: return [conditions.first!.key]
        default: return conditions.keys.sorted()
        }
    }

    private static func bodyPreview(_ body: Data?) -> String {
        guard let body else { return "no body" }
        let text = String(decoding: body.prefix(120), as: UTF8.self)
        return "'\(text)\(body.count > 120 ? "…" : "")'"
    }

    /// Names the first path segment that differs, for a readable explanation.
    private static func pathDetail(_ pattern: PathPattern, _ segments: [Substring]) -> String? {
        for (i, component) in pattern.components.enumerated() {
            switch component {
            case .globstar:
                return nil
            case .literal(let literal):
                guard i < segments.count else { return "the path ends before segment \(i + 1) ('\(literal)')" }
                if segments[i] != literal { return "segment \(i + 1) is '\(segments[i])', expected '\(literal)'" }
            case .parameter, .wildcard:
                guard i < segments.count else { return "the path ends before segment \(i + 1) (\(component))" }
            }
        }
        if segments.count > pattern.components.count {
            return "the path has \(segments.count) segments, the pattern \(pattern.components.count)"
        }
        return nil
    }
}

/// One condition of a rule that a request did not meet.
package struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    package var field: String
    package var expected: String
    package var actual: String
    package var detail: String?

    /// The `detail` of a condition whose regular expression ran out of its budget
    /// (``RegexPattern/Outcome/overBudget``): the request missed because the check was cut short,
    /// not because the value was wrong.
    package static let regexOverBudget = "regular expression over budget"

    /// Whether this condition failed only because its regular expression ran over budget; the
    /// serving side journals such misses.
    package var isRegexOverBudget: Bool { detail == Self.regexOverBudget }

    package var description: String {
        var text = "\(field): expected \(expected), got \(actual)"
        if let detail { text += " (\(detail))" }
        return text
    }
}
