/// An immutable index over the rules of the active bundles, ordered by precedence.
///
/// Rules with a path pattern sit in a ``PathTrie`` keyed by path segment. A lookup walks only the
/// branches a request's path can take, so its cost depends on the depth of the path and the few rules on it, not on how many
/// rules there are. Where many rules share one node and each requires a literal value of one field
/// (a query item, a header, a JSON body field), a ``RuleDiscriminator`` picks the few that can match.
///
/// Rules without a path (`urlRegex`, `matching_url`) are found by the literals their expression
/// requires (``RegexPattern/indexLiterals``): one ``LiteralSearch`` over the URL yields the rules
/// whose literal it contains, and only those run their expression. A rule whose expression has no
/// usable literal, or that the analysis does not understand, is checked on every lookup.
///
/// Every candidate is then checked in full (``RequestMatcher``), in precedence order, so the index
/// only ever skips rules that could not match: the answer is the one a linear scan would give.
final class RuleIndex: Sendable {
    /// One rule with where it came from. `rank` is its place in precedence order (0 answers first).
    struct Entry: Sendable {
        let rank: Int
        let rule: StubRule
        let bundle: String
        /// Stable while the bundle stays active: keys hit counts and seeded random values.
        let key: RuleKey
    }

    struct RuleKey: Hashable, Sendable {
        let bundleOrder: Int
        let ruleIndex: Int
    }

    let entries: [Entry]
    /// Whether any rule depends on or changes engine state; if none does, lookups need no lock.
    let hasStatefulRules: Bool
    /// Values are indices into `buckets`.
    private let paths: PathTrie
    private let buckets: [Bucket]
    /// Rules without a path, by the one literal of their expression chosen to find them.
    private let urlLiterals: LiteralSearch
    /// Ranks of the rules checked on every lookup (no path, no usable literal), in order.
    let alwaysChecked: [Int]

    /// The rules on one node of the path tree.
    private struct Bucket: Sendable {
        let ranks: [Int]
        let discriminator: RuleDiscriminator?

        func collect(for request: StubRequest, into result: inout [Int]) {
            if let discriminator { discriminator.collect(for: request, into: &result) } else { result += ranks }
        }
    }

    /// Builds the index over bundles given in activation order (later bundles override earlier ones).
    init(bundles: [StubBundle]) {
        // Precedence: higher priority, then later-activated bundle, then file order. Total, so stable.
        // Positions are sorted, not the rules: moving large values while sorting costs more.
        var positions: [(priority: Int, bundleOrder: Int, ruleIndex: Int)] = []
        for (bundleOrder, bundle) in bundles.enumerated() {
            for (ruleIndex, rule) in bundle.rules.enumerated() { positions.append((rule.priority, bundleOrder, ruleIndex)) }
        }
        positions.sort {
            if $0.priority != $1.priority { return $0.priority > $1.priority }
            if $0.bundleOrder != $1.bundleOrder { return $0.bundleOrder > $1.bundleOrder }
            return $0.ruleIndex < $1.ruleIndex
        }
        entries = positions.enumerated().map { rank, position in
            Entry(rank: rank, rule: bundles[position.bundleOrder].rules[position.ruleIndex], bundle: bundles[position.bundleOrder].template,
                  key: RuleKey(bundleOrder: position.bundleOrder, ruleIndex: position.ruleIndex))
        }
        hasStatefulRules = entries.contains { $0.rule.isStateful }
        let paths = PathTrie()
        var alwaysChecked: [Int] = []
        var byLiteral: [(rank: Int, literals: [String])] = []
        for entry in entries {
            if let path = entry.rule.request.path {
                paths.insert(path, value: entry.rank)
            } else if let literals = entry.rule.request.urlPattern?.indexLiterals, !literals.isEmpty {
                byLiteral.append((entry.rank, literals))
            } else {
                alwaysChecked.append(entry.rank)
            }
        }
        var buckets: [Bucket] = []
        let entries = entries
        paths.replaceValues { ranks in
            buckets.append(Bucket(ranks: ranks, discriminator: RuleDiscriminator(ranks: ranks) { entries[$0].rule.request }))
            return [buckets.count - 1]
        }
        self.paths = paths
        self.buckets = buckets
        self.alwaysChecked = alwaysChecked
        self.urlLiterals = LiteralSearch(Self.rarestLiterals(byLiteral))
    }

    /// For each rule, the one of its required literals that the fewest rules require (the longest
    /// among those): a literal every rule shares would make every rule a candidate.
    private static func rarestLiterals(_ rules: [(rank: Int, literals: [String])]) -> [(literal: String, value: Int)] {
        var sharing: [String: Int] = [:]
        for rule in rules {
            for literal in rule.literals { sharing[literal, default: 0] += 1 }
        }
        return rules.map { rule in
            let best = rule.literals.min { a, b in
                let (ca, cb) = (sharing[a]!, sharing[b]!)
                return ca != cb ? ca < cb : a.utf8.count > b.utf8.count
            }!
            return (best, rule.rank)
        }
    }

    /// The best rule for the request, by precedence, with the path parameters it captured.
    func firstMatch(for request: StubRequest, states: [String: String] = [:]) -> (entry: Entry, parameters: [String: String])? {
        guard let entry = firstEntry(for: request, states: states) else { return nil }
        return (entry, entry.rule.request.path?.match(request.pathSegments) ?? [:])
    }

    /// The best rule for the request, without capturing path parameters (what `canInit` needs).
    func firstEntry(for request: StubRequest, states: [String: String] = [:]) -> Entry? {
        lookup(for: request, states: states).entry
    }

    /// The answer to one lookup: the best rule, and the rules before it that missed only because a
    /// regular expression ran over its budget (``RegexPattern/Outcome/overBudget``).
    struct Lookup: Sendable {
        let entry: Entry?
        /// In precedence order. Empty unless a pattern outside the linear-time subset ran away: what
        /// the journal records as "regular expression over budget".
        let overBudget: [Entry]
    }

    /// The best rule for the request, and the rules that went over budget on the way.
    func lookup(for request: StubRequest, states: [String: String] = [:]) -> Lookup {
        var previous = -1
        var overBudget: [Entry] = []
        for rank in candidates(for: request) where rank != previous {
            previous = rank
            let entry = entries[rank]
            switch RequestMatcher.evaluate(entry.rule.request, request, states: states) {
            case .match: return Lookup(entry: entry, overBudget: overBudget)
            case .overBudget: overBudget.append(entry)
            case .noMatch: break
            }
        }
        return Lookup(entry: nil, overBudget: overBudget)
    }

    /// The ranks of the rules that may match the request, in precedence order (a rank may repeat):
    /// every other rule is sure to miss it.
    func candidates(for request: StubRequest) -> [Int] {
        var candidates = alwaysChecked
        // Only rules written as URL expressions need the URL's text.
        if !urlLiterals.isEmpty { urlLiterals.forEachMatch(in: request.url.absoluteString) { candidates.append($0) } }
        var nodes: [Int] = []
        paths.collect(matching: request.pathSegments[...], into: &nodes)
        for node in nodes { buckets[node].collect(for: request, into: &candidates) }
        if candidates.count > 1 { candidates.sort() }
        return candidates
    }

    /// Whether any rule would answer the request (what `canInit` asks).
    func hasMatch(for request: StubRequest, states: [String: String] = [:]) -> Bool {
        firstEntry(for: request, states: states) != nil
    }
}
