import Foundation

/// A compiled regular expression that is a value: compared and hashed by its pattern text.
///
/// Patterns inside the linear-time subset (see `RegexNode`) run on StubKit's own engine
/// (`RegexProgram`), which cannot hang: its worst case is pattern length × text length. Patterns
/// outside it (back-references, look-around, …) run on `NSRegularExpression` under a time budget per
/// match; a match that exceeds it is ``Outcome/overBudget``, reported as a miss, never a hang.
/// Either way the options are `NSRegularExpression`'s defaults (case-sensitive, `^ $` at the ends of
/// the text, `.` not matching line terminators), and the answers are the same.
///
/// `NSRegularExpression` is immutable and documented as safe to use from many threads, which is why
/// this wrapper can be `Sendable`.
package struct RegexPattern: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The answer to "does it match anywhere?".
    package enum Outcome: Sendable, Hashable {
        case match
        case noMatch
        /// The backtracking engine ran out of its budget: treated as a miss, and reported as
        /// "regular expression over budget" so nobody is misled into another reason.
        case overBudget
    }

    package let pattern: String
    /// Compiled only for patterns outside the subset (`program` is `nil`), which it answers under a budget.
    private let expression: NSRegularExpression?
    /// `nil` when the pattern lies outside the subset; then `expression` answers under a budget.
    private let program: LazyRegexProgram?
    private let node: RegexNode?
    /// The required literals worth looking for in a URL before running the expression: those of at
    /// least two bytes that are not part of every URL's start (`//`, `://`, `https`). Computed once,
    /// at load time. Empty means the expression must run on every request: the rule index keeps such
    /// rules on a list checked always, and `stublint` notes them (SK081).
    package let indexLiterals: [String]
    /// Why the pattern needs the backtracking engine (for `stublint`), when it does.
    package let backtrackingReason: String?

    /// How long one match on the backtracking engine may run before it counts as a miss.
    package static let defaultBudget: Duration = .milliseconds(100)

    /// Compiles `pattern`; throws the error `NSRegularExpression` gives for invalid syntax.
    ///
    /// `NSRegularExpression` compiles only patterns outside the subset: it was most of the cost of
    /// loading many legacy rules, and a pattern the subset parser accepts is one it accepts too
    /// (`RegexValidityTests` checks that on a generated corpus), so invalid syntax is still refused.
    package init(_ pattern: String) throws {
        self.pattern = pattern
        var reason: String?
        do {
            let node = try RegexParser.parse(pattern)
            // Whether it fits is decided now, so the diagnostics are those of loading; the program
            // itself is compiled on first use (most rules of a big bundle never run their pattern).
            if RegexProgram.fits(node) {
                self.program = LazyRegexProgram(node)
                self.node = node
            } else {
                self.program = nil
                self.node = nil
                reason = "a repetition count too large to expand"
            }
        } catch {
            self.program = nil
            self.node = nil
            reason = error.construct
        }
        self.expression = program == nil ? try NSRegularExpression(pattern: pattern, options: []) : nil
        self.backtrackingReason = reason
        let literals = node?.requiredLiterals ?? []
        self.indexLiterals = literals.allSatisfy(Self.isSelective) ? literals : literals.filter(Self.isSelective)
    }

    /// Whether the pattern runs on the linear-time engine (and so can never run over budget).
    package var isLinear: Bool { program != nil }

    /// Literal strings every match contains (see `RegexNode.requiredLiterals`); empty when there is
    /// none, or when the pattern lies outside the subset.
    package var requiredLiterals: [String] { node?.requiredLiterals ?? [] }

    /// Whether finding `literal` in a URL says anything: not a piece of every URL's scheme part.
    static func isSelective(_ literal: String) -> Bool {
        // Bytes, not `String.contains` (Foundation's costs a locale-aware search per rule), and no
        // arrays or iterators: this runs for every literal of every pattern at load time.
        let count = literal.utf8.count
        guard count >= 2 else { return false }
        guard count <= 8 else { return true }
        var literal = literal
        return literal.withUTF8 { needle in !(occurs(needle, in: "https://") || occurs(needle, in: "http://")) }
    }

    private static func occurs(_ needle: UnsafeBufferPointer<UInt8>, in haystack: StaticString) -> Bool {
        haystack.withUTF8Buffer { haystack in
            guard needle.count <= haystack.count else { return false }
            next: for start in 0...(haystack.count - needle.count) {
                for offset in needle.indices where haystack[start + offset] != needle[offset] { continue next }
                return true
            }
            return false
        }
    }

    /// Whether the expression matches anywhere in `text` (unanchored, as `matching_url` always was).
    /// A match over budget counts as no match; use ``evaluate(_:budget:)`` to tell them apart.
    package func matches(_ text: String) -> Bool {
        evaluate(text) == .match
    }

    /// Whether the expression matches anywhere in `text`, or ran out of `budget` trying.
    ///
    /// On the linear-time engine the answer is always `.match` or `.noMatch`. Safe from any thread.
    package func evaluate(_ text: String, budget: Duration = RegexPattern.defaultBudget) -> Outcome {
        if let program { return program.compiled.matches(text) ? .match : .noMatch }
        return evaluateWithBudget(text, budget: budget)
    }

    /// `NSRegularExpression` with progress reports, stopped once the budget is spent. Also a miss
    /// when ICU gives up on its own (its backtracking stack limit), which it reports as no match.
    private func evaluateWithBudget(_ text: String, budget: Duration) -> Outcome {
        guard let expression else { return .noMatch }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: budget)
        var outcome = Outcome.noMatch
        expression.enumerateMatches(in: text, options: [.reportProgress], range: NSRange(text.startIndex..., in: text)) { result, _, stop in
            if result != nil {
                outcome = .match
                stop.pointee = true
            } else if clock.now >= deadline {
                outcome = .overBudget
                stop.pointee = true
            }
        }
        return outcome
    }

    package var description: String { pattern }

    package static func == (lhs: RegexPattern, rhs: RegexPattern) -> Bool { lhs.pattern == rhs.pattern }
    package func hash(into hasher: inout Hasher) { hasher.combine(pattern) }

    /// Whether the linear-time program has been compiled yet (for tests).
    var isCompiled: Bool { program?.isCompiled ?? false }
}

/// A `RegexProgram` compiled the first time it is needed, once, whichever thread asks first.
///
/// Loading 10,000 legacy rules spent a fifth of its time compiling programs that a test run mostly
/// never uses. Shared by every copy of its ``RegexPattern`` (copies share the lock's storage, which
/// is the one allocation it makes); the lock is held only to compile or to read the compiled value,
/// so concurrent matches wait at most for the one compile.
struct LazyRegexProgram: Sendable {
    private let node: RegexNode
    private let program = Locked<RegexProgram?>(nil)

    /// `node` must fit (``RegexProgram/fits(_:)``): that was decided at load time, with its diagnostics.
    init(_ node: RegexNode) {
        self.node = node
    }

    var compiled: RegexProgram {
        program.withLock { program in
            if let program { return program }
            // Cannot throw: the caller checked `fits`, which gives the builder's own answer.
            guard let compiled = try? RegexProgram(node) else { preconditionFailure("RegexProgram.fits and the builder disagree") }
            program = compiled
            return compiled
        }
    }

    var isCompiled: Bool { program.withLock { $0 != nil } }
}
