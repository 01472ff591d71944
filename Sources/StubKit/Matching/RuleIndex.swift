/// An immutable index over the rules of the active bundles, ordered by precedence.
///
/// Rules with a path pattern sit in a tree keyed by path segment: literal segments in a dictionary,
/// `{param}` and `*` on one branch, `**` on another. A lookup walks only the branches a request's path
/// can take, so its cost depends on the depth of the path and the few rules on it, not on how many
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
    private let root: Node
    private let unindexed: [Int]

    private struct WalkedState: Hashable {
        let node: Int
        let position: Int
    }

    private final class Node: @unchecked Sendable {
        // Built once in init, read-only afterwards.
        /// Numbers the `**` nodes, so a lookup can remember which (node, position) it has walked.
        let id: Int
        var literal: [String: Node] = [:]
        var single: Node?
        var globstar: Node?
        var terminal: [Int] = []

        init(id: Int) {
            self.id = id
        }

        func child(for component: PathPattern.Component, count: inout Int) -> Node {
            switch component {
            case .literal(let s):
                if let node = literal[s] { return node }
                let node = Node(id: 0)
                literal[s] = node
                return node
            case .parameter, .wildcard:
                if let node = single { return node }
                let node = Node(id: 0)
                single = node
                return node
            case .globstar:
                if let node = globstar { return node }
                count += 1
                let node = Node(id: count)
                globstar = node
                return node
            }
        }
    }

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
        let root = Node(id: 0)
        var globstarCount = 0
        var unindexed: [Int] = []
        for entry in entries {
            guard let path = entry.rule.request.path else {
                unindexed.append(entry.rank)
                continue
            }
            var node = root
            for component in path.components { node = node.child(for: component, count: &globstarCount) }
            node.terminal.append(entry.rank)
        }
        self.root = root
        self.unindexed = unindexed
    }

    /// The best rule for the request, by precedence, with the path parameters it captured.
    func firstMatch(for request: StubRequest, states: [String: String] = [:]) -> (entry: Entry, parameters: [String: String])? {
        guard let entry = firstEntry(for: request, states: states) else { return nil }
        return (entry, entry.rule.request.path?.match(request.pathSegments) ?? [:])
    }

    /// The best rule for the request, without capturing path parameters (what `canInit` needs).
    func firstEntry(for request: StubRequest, states: [String: String] = [:]) -> Entry? {
        var candidates = unindexed
        var walked: Set<WalkedState>?
        Self.collect(root, request.pathSegments[...], into: &candidates, walked: &walked)
        if candidates.count > 1 { candidates.sort() }
        var previous = -1
        for rank in candidates where rank != previous {
            previous = rank
            let entry = entries[rank]
            if RequestMatcher.matches(entry.rule.request, request, states: states) { return entry }
        }
        return nil
    }

    /// Whether any rule would answer the request (what `canInit` asks).
    func hasMatch(for request: StubRequest, states: [String: String] = [:]) -> Bool {
        firstEntry(for: request, states: states) != nil
    }

    /// Gathers the rules whose pattern may match the rest of the path from `node`.
    ///
    /// `walked` remembers each (`**` node, position) entered, so every node is walked at most once per
    /// position: at most (nodes × path length) steps, however many `**` a pattern chains (without it,
    /// k nested `**` cost about path length^k). It is allocated only when a `**` is met.
    private static func collect(_ node: Node, _ path: ArraySlice<Substring>, into result: inout [Int], walked: inout Set<WalkedState>?) {
        if let globstar = node.globstar {
            // `**` absorbs any number of segments, including none.
            var tail = path
            while true {
                let key = WalkedState(node: globstar.id, position: tail.startIndex)
                if walked == nil { walked = [] }
                // Walked before: that walk went on through every later position too.
                guard walked!.insert(key).inserted else { break }
                collect(globstar, tail, into: &result, walked: &walked)
                if tail.isEmpty { break }
                tail = tail.dropFirst()
            }
        }
        collectChildren(node, path, into: &result, walked: &walked)
    }

    private static func collectChildren(_ node: Node, _ path: ArraySlice<Substring>, into result: inout [Int], walked: inout Set<WalkedState>?) {
        guard let segment = path.first else {
            result += node.terminal
            return
        }
        let rest = path.dropFirst()
        if let next = node.literal[String(segment)] { collect(next, rest, into: &result, walked: &walked) }
        if let next = node.single { collect(next, rest, into: &result, walked: &walked) }
    }
}
