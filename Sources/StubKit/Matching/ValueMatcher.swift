import Foundation

/// How a query item or a request header must look.
package enum ValueMatcher: Sendable, Hashable, CustomStringConvertible {
    /// Present with exactly this value.
    case equals(String)
    /// Present, with a value the regular expression matches (unanchored; use `^…$` to anchor).
    case matches(RegexPattern)
    /// Present, with any value.
    case present
    /// Must not be present.
    case absent

    /// Whether a value (`nil` when the item or header is missing) meets the condition.
    package func accepts(_ value: String?) -> Bool {
        evaluate(value) == .match
    }

    /// Like ``accepts(_:)``, but tells a regular expression that ran over budget from a plain miss.
    package func evaluate(_ value: String?) -> RegexPattern.Outcome {
        switch self {
        case .equals(let expected): return value == expected ? .match : .noMatch
        case .matches(let regex): return value.map { regex.evaluate($0) } ?? .noMatch
        case .present: return value != nil ? .match : .noMatch
        case .absent: return value == nil ? .match : .noMatch
        }
    }

    package var description: String {
        switch self {
        case .equals(let s): return "'\(s)'"
        case .matches(let regex): return "a value matching /\(regex.pattern)/"
        case .present: return "present"
        case .absent: return "absent"
        }
    }

    /// Whether every value this accepts, `other` accepts too (for shadowing: `other` is the earlier rule's).
    /// `regexSees` turns an `equals` value into the text a regex is run on (a query's decoded value).
    func isNarrower(than other: ValueMatcher, regexSees: (String) -> String = { $0 }) -> Bool {
        switch (self, other) {
        case (_, _) where self == other: return true
        case (.equals, .present), (.matches, .present): return true
        case (.equals(let v), .matches(let regex)): return regex.matches(regexSees(v))
        default: return false
        }
    }
}

/// A condition on the request body. Several on one rule must all hold.
package enum BodyMatcher: Sendable, Hashable, CustomStringConvertible {
    /// The body is exactly this text.
    case equals(String)
    /// The body contains this text.
    case contains(String)
    /// The body matches the regular expression (unanchored).
    case matches(RegexPattern)
    /// The body is JSON equal to this value, whatever the key order and whitespace.
    case equalsJSON(JSONValue)
    /// The body is JSON holding at least these fields with these values.
    case containsJSON(JSONValue)

    package var description: String {
        switch self {
        case .equals(let s): return "equal to '\(s)'"
        case .contains(let s): return "containing '\(s)'"
        case .matches(let regex): return "matching /\(regex.pattern)/"
        case .equalsJSON(let json): return "JSON equal to \(json)"
        case .containsJSON(let json): return "JSON containing \(json)"
        }
    }

    /// Why the request's body fails this condition, or `nil` when it meets it. The body's text and
    /// JSON come from the request, decoded at most once however many conditions ask.
    func failure(for request: StubRequest) -> String? {
        guard let text = request.bodyText else {
            return "the request has no body (upload tasks on Linux hand StubKit none)"
        }
        switch self {
        case .equals(let expected):
            return text == expected ? nil : "the body differs"
        case .contains(let part):
            return text.contains(part) ? nil : "the body does not contain it"
        case .matches(let regex):
            switch regex.evaluate(text) {
            case .match: return nil
            case .noMatch: return "the body does not match"
            case .overBudget: return Mismatch.regexOverBudget
            }
        case .equalsJSON(let expected):
            guard let actual = request.bodyJSON else { return "the body is not valid JSON" }
            return actual == expected ? nil : "the JSON differs"
        case .containsJSON(let expected):
            guard let actual = request.bodyJSON else { return "the body is not valid JSON" }
            return actual.contains(expected) ? nil : "the JSON lacks some of the fields or values"
        }
    }
}
