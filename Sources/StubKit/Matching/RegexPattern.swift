import Foundation

/// A compiled regular expression that is a value: compared and hashed by its pattern text.
///
/// `NSRegularExpression` is immutable and documented as safe to use from many threads, which is why
/// this wrapper can be `Sendable`.
public struct RegexPattern: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let pattern: String
    private let expression: NSRegularExpression

    public init(_ pattern: String) throws {
        self.pattern = pattern
        self.expression = try NSRegularExpression(pattern: pattern, options: [])
    }

    /// Whether the expression matches anywhere in `text` (unanchored, as `matching_url` always was).
    public func matches(_ text: String) -> Bool {
        expression.firstMatch(in: text, options: [], range: NSRange(text.startIndex..., in: text)) != nil
    }

    public var description: String { pattern }

    public static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool { lhs.pattern == rhs.pattern }
    public func hash(into hasher: inout Hasher) { hasher.combine(pattern) }
}
