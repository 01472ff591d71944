/// A regular expression of the linear-time subset, parsed: what ``RegexProgram`` compiles and what
/// ``RegexNode/requiredLiterals`` reads.
///
/// The subset is what real bundles write: literals, `.`, character classes (`\d \w \s`, negated,
/// ranges), groups, alternation, the quantifiers `* + ? {m,n}` (lazy or greedy: the same for "is
/// there a match"), and the anchors `^ $`. Everything else (back-references, look-around, possessive
/// and atomic groups, flags, `\b`, Unicode properties) is refused by ``RegexParser`` and left to
/// `NSRegularExpression` under a budget.
///
/// Only `repetition` is `indirect`: an `indirect enum` boxes every case, and a box allocated and
/// released per scalar was most of the cost of parsing a pattern.
enum RegexNode: Sendable, Hashable {
    /// Matches the empty string.
    case empty
    /// One Unicode scalar, compared exactly (the options StubKit uses are case-sensitive).
    case scalar(Unicode.Scalar)
    /// A run of two or more scalars, each compared exactly: what most of a URL pattern is. One node
    /// (a small string is stored inline) instead of one boxed node per scalar, which was most of the
    /// cost of parsing a pattern and of releasing it again.
    case literal(String)
    /// One scalar from a set: `.`, `[a-z]`, `\d`, …
    case set(RegexScalarSet)
    case concatenation([RegexNode])
    case alternation([RegexNode])
    /// `min` to `max` (`nil`: unbounded) repetitions.
    indirect case repetition(RegexNode, min: Int, max: Int?)
    /// `^`: only at the start of the text (no multiline option).
    case textStart
    /// `$`: at the end of the text, or before one line terminator (or CR LF) that ends it.
    case textEnd
}

extension RegexNode {
    /// Whether the node can match the empty string.
    var isNullable: Bool {
        switch self {
        case .empty, .textStart, .textEnd: return true
        case .scalar, .literal, .set: return false
        case .concatenation(let items): return items.allSatisfy(\.isNullable)
        case .alternation(let branches): return branches.contains(where: \.isNullable)
        case .repetition(let body, let min, _): return min == 0 || body.isNullable
        }
    }
}

/// A set of Unicode scalars, as `NSRegularExpression` (ICU) defines its classes.
struct RegexScalarSet: Sendable, Hashable {
    /// ICU's shorthand classes, with the Unicode definitions ICU uses.
    enum Shorthand: Sendable, Hashable {
        case digit, word, space

        func contains(_ scalar: Unicode.Scalar) -> Bool {
            if scalar.isASCII {
                let v = scalar.value
                switch self {
                case .digit: return v >= 0x30 && v <= 0x39
                case .word: return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
                case .space: return v == 0x20 || (v >= 0x09 && v <= 0x0D)
                }
            }
            let properties = scalar.properties
            switch self {
            case .digit:
                return properties.generalCategory == .decimalNumber
            case .word:
                // ICU: \p{Alphabetic} \p{Mark} \p{Decimal_Number} \p{Connector_Punctuation} \p{Join_Control}
                switch properties.generalCategory {
                case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
                default: return properties.isAlphabetic || properties.isJoinControl
                }
            case .space:
                return properties.isWhitespace
            }
        }
    }

    var ranges: [ClosedRange<UInt32>] = []
    var shorthands: [(Shorthand, negated: Bool)] = []
    var negated = false

    /// `.` without the dot-all option: anything but ICU's line terminators.
    static let dot = RegexScalarSet(ranges: lineTerminators, negated: true)

    /// LF, VT, FF, CR, NEL, LS, PS: what ICU's `.` refuses and what `$` may stand before.
    static let lineTerminators: [ClosedRange<UInt32>] = [0x0A...0x0D, 0x85...0x85, 0x2028...0x2029]

    static func isLineTerminator(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v >= 0x0A && v <= 0x0D) || v == 0x85 || v == 0x2028 || v == 0x2029
    }

    init(ranges: [ClosedRange<UInt32>] = [], shorthands: [(Shorthand, negated: Bool)] = [], negated: Bool = false) {
        self.ranges = ranges
        self.shorthands = shorthands
        self.negated = negated
    }

    func contains(_ scalar: Unicode.Scalar) -> Bool {
        var found = false
        let v = scalar.value
        for range in ranges where range.contains(v) {
            found = true
            break
        }
        if !found {
            for (shorthand, isNegated) in shorthands where shorthand.contains(scalar) != isNegated {
                found = true
                break
            }
        }
        return found != negated
    }

    static func == (lhs: RegexScalarSet, rhs: RegexScalarSet) -> Bool {
        lhs.ranges == rhs.ranges && lhs.negated == rhs.negated
            && lhs.shorthands.map(\.0) == rhs.shorthands.map(\.0) && lhs.shorthands.map(\.negated) == rhs.shorthands.map(\.negated)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ranges)
        hasher.combine(negated)
        for (shorthand, isNegated) in shorthands {
            hasher.combine(shorthand)
            hasher.combine(isNegated)
        }
    }
}
