/// Parses a regular expression into a ``RegexNode`` when it lies inside the linear-time subset.
///
/// `RegexPattern` compiles `NSRegularExpression` only for patterns this parser refuses, so the parser
/// must accept nothing ICU refuses: anything it does not recognise, or that ICU might reject (duplicate
/// group names, counts over 100,000), is ``Unsupported`` and goes to `NSRegularExpression`, which then
/// reports the syntax error or matches under a budget. Being strict here costs speed, never correctness.
struct RegexParser {
    /// The pattern uses something outside the subset; `construct` names it for the lint warning.
    struct Unsupported: Error, Sendable, Hashable {
        var construct: String
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0
    /// The UTF-8 bytes of the literal run being gathered by `concatenation()`, and its first scalar.
    /// One buffer for the whole parse: a run is flushed before a group is parsed, so nested
    /// concatenations never find it in use.
    private var run: [UInt8] = []
    private var runFirst: Unicode.Scalar?
    /// Names of `(?<name>…)` groups seen so far: ICU refuses a name used twice.
    private var groupNames: Set<String> = []

    static func parse(_ pattern: String) throws(Unsupported) -> RegexNode {
        // Foundation on Linux refuses an empty pattern; Apple's accepts it: leave it to NSRegularExpression.
        if pattern.isEmpty { throw Unsupported(construct: "an empty pattern") }
        var parser = RegexParser(scalars: scalars(of: pattern))
        let node = try parser.alternation()
        guard parser.index == parser.scalars.count else { throw Unsupported(construct: "')' without '('") }
        return node
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
        run.reserveCapacity(scalars.count)
    }

    /// The pattern's scalars; from its bytes when it is ASCII (most are), which is several times faster.
    private static func scalars(of pattern: String) -> [Unicode.Scalar] {
        let ascii = pattern.utf8.withContiguousStorageIfAvailable { bytes -> [Unicode.Scalar]? in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return nil }
            return bytes.map { Unicode.Scalar($0) }
        }
        return (ascii ?? nil) ?? Array(pattern.unicodeScalars)
    }

    private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func take() -> Unicode.Scalar? {
        guard index < scalars.count else { return nil }
        defer { index += 1 }
        return scalars[index]
    }

    private mutating func alternation() throws(Unsupported) -> RegexNode {
        var branches = [try concatenation()]
        while peek == "|" {
            index += 1
            branches.append(try concatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func concatenation() throws(Unsupported) -> RegexNode {
        var items = NodeList()
        // Scalars with no quantifier of their own are gathered in `run`, into one `.literal` node.
        while let next = peek, next != "|", next != ")" {
            // Most of a URL pattern: a scalar that means itself, with no quantifier after it, joins
            // the run at once (what `atom()` would answer, without building a node for it).
            if !Self.isSyntax(next) {
                index += 1
                if !isQuantifierNext {
                    appendToRun(next)
                    continue
                }
                index -= 1
            }
            if next == "(" { flushRun(into: &items) }
            let atom = try self.atom()
            if case .scalar(let scalar) = atom, !isQuantifierNext {
                appendToRun(scalar)
                continue
            }
            flushRun(into: &items)
            items.append(try quantified(atom))
        }
        flushRun(into: &items)
        return items.node
    }

    /// The items of one concatenation: the first kept aside, so a concatenation of one item (a
    /// pattern that is one literal run, a group's body) builds no array, and room for a few more
    /// when a second comes (growing one at a time reallocated twice per pattern).
    private struct NodeList {
        private var first: RegexNode?
        private var items: [RegexNode] = []

        mutating func append(_ node: RegexNode) {
            guard let held = first else {
                if items.isEmpty { first = node } else { items.append(node) }
                return
            }
            items.reserveCapacity(4)
            items.append(held)
            items.append(node)
            first = nil
        }

        var node: RegexNode {
            if let first { return first }
            return items.isEmpty ? .empty : .concatenation(items)
        }
    }

    private mutating func appendToRun(_ scalar: Unicode.Scalar) {
        if runFirst == nil { runFirst = scalar }
        if scalar.isASCII { run.append(UInt8(scalar.value)) } else { run.append(contentsOf: scalar.utf8) }
    }

    /// Ends the literal run: one `.scalar`, or a `.literal` of two or more.
    private mutating func flushRun(into items: inout NodeList) {
        guard let first = runFirst else { return }
        items.append(run.count == first.utf8.count ? .scalar(first) : .literal(String(decoding: run, as: UTF8.self)))
        run.removeAll(keepingCapacity: true)
        runFirst = nil
    }

    /// Whether a quantifier (or something `quantified` reads as an attempt at one) comes next.
    private var isQuantifierNext: Bool {
        guard let next = peek else { return false }
        return next == "*" || next == "+" || next == "?" || next == "{"
    }

    private mutating func quantified(_ atom: RegexNode) throws(Unsupported) -> RegexNode {
        var node = atom
        var quantifiers = 0
        while let next = peek, next == "*" || next == "+" || next == "?" || next == "{" {
            let (min, max): (Int, Int?)
            switch next {
            case "*": index += 1; (min, max) = (0, nil)
            case "+": index += 1; (min, max) = (1, nil)
            case "?": index += 1; (min, max) = (0, 1)
            default: (min, max) = try interval()
            }
            quantifiers += 1
            if case .textStart = atom { throw Unsupported(construct: "a quantifier on an anchor") }
            if case .textEnd = atom { throw Unsupported(construct: "a quantifier on an anchor") }
            // A second quantifier is ICU's lazy `?` or possessive `+`; anything else is an error ICU caught.
            if peek == "?" {
                index += 1
                // ICU misses matches of a lazy loop around a lazy loop (`(?:a*?)+?$` fails on "x!"):
                // such patterns keep ICU's engine, so the answers stay ICU's.
                if max == nil && node.isNullable { throw Unsupported(construct: "a lazy repetition of something that can be empty") }
            } else if peek == "+" {
                throw Unsupported(construct: "a possessive quantifier")
            }
            guard quantifiers == 1 else { throw Unsupported(construct: "stacked quantifiers") }
            node = .repetition(node, min: min, max: max)
        }
        return node
    }

    /// `{m}`, `{m,}` or `{m,n}`.
    private mutating func interval() throws(Unsupported) -> (Int, Int?) {
        index += 1
        guard let min = try number() else { throw Unsupported(construct: "'{' that is not a repetition count") }
        var max: Int? = min
        if peek == "," {
            index += 1
            max = try number()
        }
        guard take() == "}", max.map({ $0 >= min }) ?? true else { throw Unsupported(construct: "'{' that is not a repetition count") }
        return (min, max)
    }

    private mutating func number() throws(Unsupported) -> Int? {
        var value: Int?
        while let next = peek, (0x30...0x39).contains(next.value) {
            index += 1
            value = min((value ?? 0) * 10 + Int(next.value - 0x30), 100_001)
        }
        // ICU refuses counts past its own limits; beyond this one it answers (or refuses) instead.
        if let value, value > 100_000 { throw Unsupported(construct: "a repetition count over 100,000") }
        return value
    }

    /// Whether `atom()` reads `scalar` as anything but itself (`|` and `)` end a concatenation first).
    private static func isSyntax(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "(", "[", ".", "^", "$", "\\", "*", "+", "?", "{", "}": return true
        default: return false
        }
    }

    private mutating func atom() throws(Unsupported) -> RegexNode {
        guard let scalar = take() else { throw Unsupported(construct: "an unexpected end") }
        switch scalar {
        case "(":
            try groupPrefix()
            let inner = try alternation()
            guard take() == ")" else { throw Unsupported(construct: "'(' without ')'") }
            return inner
        case "[":
            return .set(try characterClass())
        case ".":
            return .set(.dot)
        case "^":
            return .textStart
        case "$":
            return .textEnd
        case "\\":
            return try escape(inClass: false)
        case "*", "+", "?", "{", "}":
            throw Unsupported(construct: "'\(scalar)' with nothing to repeat")
        default:
            return .scalar(scalar)
        }
    }

    /// After `(`: nothing (capturing), `?:` (non-capturing) or `?<name>` (named); all else is refused.
    private mutating func groupPrefix() throws(Unsupported) {
        guard peek == "?" else { return }
        index += 1
        switch take() {
        case ":":
            return
        case "<":
            guard let first = peek, first.isASCII, first.properties.isAlphabetic else { throw Unsupported(construct: "look-behind") }
            let start = index
            while let next = peek, next.isASCII, next.properties.isAlphabetic || next.properties.numericType == .decimal { index += 1 }
            let name = String(String.UnicodeScalarView(scalars[start..<index]))
            guard take() == ">" else { throw Unsupported(construct: "a group name") }
            guard groupNames.insert(name).inserted else { throw Unsupported(construct: "a group name used twice") }
        case "=", "!": throw Unsupported(construct: "look-ahead")
        case ">": throw Unsupported(construct: "an atomic group")
        case "#": throw Unsupported(construct: "a comment group")
        default: throw Unsupported(construct: "inline flags")
        }
    }

    /// After `\`: the shorthand classes, control escapes and quoted punctuation are in the subset.
    private mutating func escape(inClass: Bool) throws(Unsupported) -> RegexNode {
        guard let scalar = take() else { throw Unsupported(construct: "a trailing '\\'") }
        switch scalar {
        case "d": return .set(RegexScalarSet(shorthands: [(.digit, false)]))
        case "D": return .set(RegexScalarSet(shorthands: [(.digit, true)]))
        case "w": return .set(RegexScalarSet(shorthands: [(.word, false)]))
        case "W": return .set(RegexScalarSet(shorthands: [(.word, true)]))
        case "s": return .set(RegexScalarSet(shorthands: [(.space, false)]))
        case "S": return .set(RegexScalarSet(shorthands: [(.space, true)]))
        case "t": return .scalar("\t")
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "f": return .scalar("\u{0C}")
        default:
            // ICU quotes any character that is not an ASCII letter or digit; letters and digits are
            // escapes with meanings outside the subset (\b, \1, \p, \Q, \x, \u, …).
            // (For ASCII, that is exactly `properties.isAlphabetic || properties.numericType != nil`.)
            if scalar.isASCII && Self.isASCIILetterOrDigit(scalar) {
                throw Unsupported(construct: "'\\\(scalar)'")
            }
            return .scalar(scalar)
        }
    }

    private static func isASCIILetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        let v = scalar.value
        return (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
    }

    /// After `[`: single scalars, ranges, shorthand classes, a leading `^`, `-` first or last.
    /// Nested sets, set operations and POSIX classes are refused.
    private mutating func characterClass() throws(Unsupported) -> RegexScalarSet {
        var set = RegexScalarSet()
        if peek == "^" {
            index += 1
            set.negated = true
        }
        if peek == "]" { throw Unsupported(construct: "']' first in a class") }
        // ICU reads `[:` as the start of a POSIX-style class (`[:alpha:]`), and refuses most of them.
        if peek == ":" { throw Unsupported(construct: "a POSIX-style class '[:…:]'") }
        var first = true
        while true {
            guard let scalar = take() else { throw Unsupported(construct: "'[' without ']'") }
            if scalar == "]" { return set }
            if scalar == "[" { throw Unsupported(construct: "a nested class") }
            if scalar == "&" && peek == "&" { throw Unsupported(construct: "a class intersection") }
            if scalar == "-" && peek == "-" { throw Unsupported(construct: "a class difference") }
            if scalar == "-" && !first && peek != "]" { throw Unsupported(construct: "'-' in the middle of a class") }
            first = false
            let low: UInt32
            if scalar == "\\" {
                switch try escape(inClass: true) {
                case .scalar(let quoted): low = quoted.value
                case .set(let shorthand):
                    if peek == "-" { throw Unsupported(construct: "a range from a class") }
                    set.shorthands += shorthand.shorthands
                    continue
                default: throw Unsupported(construct: "an escape in a class")
                }
            } else {
                low = scalar.value
            }
            // A range `a-z`; a `-` before `]` is a literal and is read on the next turn.
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                // ICU refuses ranges at `&` (its set-operator character), so the subset does too.
                if low == 0x26 { throw Unsupported(construct: "a range from '&'") }
                guard let end = take(), end != "\\", end != "[" else { throw Unsupported(construct: "an escaped range end") }
                if end == "&" { throw Unsupported(construct: "a range to '&'") }
                guard end.value >= low else { throw Unsupported(construct: "a reversed range") }
                // ICU reads `x--` as a set difference even when the first `-` ends a range.
                if end == "-" { throw Unsupported(construct: "a set operator after a range") }
                set.ranges.append(low...end.value)
            } else {
                set.ranges.append(low...low)
            }
        }
    }
}
