extension RegexNode {
    /// Literal strings that every match contains, for a prefilter index in the style of RE2's
    /// FilteredRE2: a text that lacks any of them cannot match, so the expression need not run.
    ///
    /// Conservative and cheap: runs of literal scalars in a concatenation, looking into groups and
    /// into repetitions of at least one; nothing from inside an alternation or an optional part. The
    /// empty list means "no usable literal" (`.*`, `\d+`): such a pattern must always be checked.
    var requiredLiterals: [String] {
        var collector = LiteralCollector()
        collector.visit(self)
        collector.flush()
        // A handful of literals per pattern: a linear search is cheaper than hashing them, and most
        // patterns have one or none (no second array for those).
        guard collector.literals.count > 1 else { return collector.literals }
        var unique: [String] = []
        unique.reserveCapacity(collector.literals.count)
        for literal in collector.literals where !unique.contains(literal) { unique.append(literal) }
        return unique
    }
}

/// Walks a ``RegexNode`` gathering the runs of literal scalars that every match passes through.
private struct LiteralCollector {
    var literals: [String] = []
    /// The run's UTF-8 bytes, turned into a string once per run: appending to a string one scalar at
    /// a time cost more than parsing the pattern.
    private var run: [UInt8] = []
    /// A run that is so far one `.literal` node: taken as it is, without a copy through `run`.
    private var single: String?

    mutating func flush() {
        if let single {
            literals.append(single)
            self.single = nil
        } else if !run.isEmpty {
            literals.append(String(decoding: run, as: UTF8.self))
            run.removeAll(keepingCapacity: true)
        }
    }

    /// Moves a pending single literal into `run`, before something joins it.
    private mutating func spill() {
        guard let text = single else { return }
        run.append(contentsOf: text.utf8)
        single = nil
    }

    mutating func visit(_ node: RegexNode) {
        switch node {
        case .scalar(let scalar):
            spill()
            if scalar.isASCII { run.append(UInt8(scalar.value)) } else { UTF8.encode(scalar) { run.append($0) } }
        case .literal(let text):
            if run.isEmpty && single == nil {
                single = text
            } else {
                spill()
                run.append(contentsOf: text.utf8)
            }
        case .textStart, .textEnd, .empty:
            // Zero-width: the scalars on either side are still adjacent in every match.
            break
        case .concatenation(let items):
            for item in items { visit(item) }
        case .repetition(let body, let min, _) where min >= 1:
            // The body occurs at least once, but what follows need not be adjacent to its first copy.
            flush()
            visit(body)
            flush()
        case .set, .alternation, .repetition:
            flush()
        }
    }
}
