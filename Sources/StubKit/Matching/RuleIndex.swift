/// An immutable index over the rules of the active bundles, ordered by precedence.
///
/// Rules with a path pattern sit in a ``PathTrie`` keyed by path segment. A lookup walks only the
/// branches a request's path can take, so its cost depends on the depth of the path and the few rules on it, not on how many
/// rules there are. Rules without a path (`urlRegex`) are checked on every lookup, in precedence order.
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
    private let paths: PathTrie
    private let unindexed: [Int]

    /// Builds the index over bundles given in activation order (later bundles override earlier ones).
    init(bundles: [StubBundle]) {
        var ordered: [(priority: Int, bundleOrder: Int, ruleIndex: Int, rule: StubRule, bundle: String)] = []
        for (bundleOrder, bundle) in bundles.enumerated() {
            for (ruleIndex, rule) in bundle.rules.enumerated() {
                ordered.append((rule.priority, bundleOrder, ruleIndex, rule, bundle.template))
            }
        }
        // Precedence: higher priority, then later-activated bundle, then file order. Total, so stable.
        ordered.sort {
            if $0.priority != $1.priority { return $0.priority > $1.priority }
            if $0.bundleOrder != $1.bundleOrder { return $0.bundleOrder > $1.bundleOrder }
            return $0.ruleIndex < $1.ruleIndex
        }
        entries = ordered.enumerated().map {
            Entry(rank: $0.offset, rule: $0.element.rule, bundle: $0.element.bundle, key: RuleKey(bundleOrder: $0.element.bundleOrder, ruleIndex: $0.element.ruleIndex))
        }
        hasStatefulRules = entries.contains { $0.rule.isStateful }
        let paths = PathTrie()
        var unindexed: [Int] = []
        for entry in entries {
            if let path = entry.rule.request.path {
                paths.insert(path, value: entry.rank)
            } else {
                unindexed.append(entry.rank)
            }
        }
        self.paths = paths
        self.unindexed = unindexed
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
        var candidates = unindexed
        paths.collect(matching: request.pathSegments[...], into: &candidates)
        if candidates.count > 1 { candidates.sort() }
        var previous = -1
        var overBudget: [Entry] = []
        for rank in candidates where rank != previous {
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

    /// Whether any rule would answer the request (what `canInit` asks).
    func hasMatch(for request: StubRequest, states: [String: String] = [:]) -> Bool {
        firstEntry(for: request, states: states) != nil
    }
}
