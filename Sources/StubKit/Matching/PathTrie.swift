/// Path patterns in a tree keyed by segment, answering "which patterns can match this path?" and
/// "which patterns cover this pattern?" without looking at the others.
///
/// Literal segments sit in a dictionary, `{param}` and `*` on one branch, `**` on another. A walk takes
/// only the branches its input can take; it remembers each (`**` node, position) it entered, so a
/// node is walked at most once per position: at most (nodes × input length) steps however many `**`
/// patterns chain (a plain recursive walk costs about input length^k for k nested `**`).
///
/// Values are `Int`s the owner chooses (ranks, rule indices), reported in no particular order and
/// possibly more than once. Not thread-safe while inserting; the rule index inserts only in its
/// initializer and reads afterwards.
final class PathTrie: @unchecked Sendable {
    private final class Node {
        /// Non-zero for `**` nodes: the key of the walk's memory.
        let id: Int
        var literal: [String: Node] = [:] {
            didSet { sole = literal.count == 1 ? literal.first : nil }
        }
        /// The only literal child, when there is one: compared directly instead of hashing the
        /// segment (most nodes of real path sets have one literal child: `/api` → `v1` → …).
        private(set) var sole: (key: String, value: Node)?

        /// The literal child named by the segment.
        @inline(__always) func literalChild(_ segment: Substring) -> Node? {
            if let sole { return sole.key == segment ? sole.value : nil }
            return literal.isEmpty ? nil : literal[String(segment)]
        }
        var single: Node?
        var globstar: Node?
        var values: [Int] = []

        init(id: Int) {
            self.id = id
        }
    }

    /// Which (`**` node, position) pairs a walk has entered: a bit per position for each `**` node the
    /// walk reaches, so the memory stays n/8 bytes per node and every check is an array access.
    private struct Walked {
        let base: Int
        let positions: Int
        private var slots: [Int: Int] = [:]
        private var bits: [UInt64] = []

        init(base: Int, positions: Int) {
            self.base = base
            self.positions = positions
        }

        /// Records the pair; false when it was recorded before.
        mutating func insert(node: Int, position: Int) -> Bool {
            let words = (positions + 63) / 64
            let slot: Int
            if let known = slots[node] {
                slot = known
            } else {
                slot = bits.count
                slots[node] = slot
                bits.append(contentsOf: repeatElement(0, count: words))
            }
            let offset = position - base
            let word = slot + offset / 64, mask = UInt64(1) << UInt64(offset % 64)
            if bits[word] & mask != 0 { return false }
            bits[word] |= mask
            return true
        }
    }

    private let root = Node(id: 0)
    private var globstarCount = 0

    init() {}

    func insert(_ pattern: PathPattern, value: Int) {
        var node = root
        for component in pattern.components {
            switch component {
            case .literal(let s):
                if let next = node.literal[s] {
                    node = next
                } else {
                    let next = Node(id: 0)
                    node.literal[s] = next
                    node = next
                }
            case .parameter, .wildcard:
                if node.single == nil { node.single = Node(id: 0) }
                node = node.single!
            case .globstar:
                if node.globstar == nil {
                    globstarCount += 1
                    node.globstar = Node(id: globstarCount)
                }
                node = node.globstar!
            }
        }
        node.values.append(value)
    }

    /// Replaces the values of each node, all at once: how an owner turns the values that share a
    /// node into one group (the rule index makes each node's ranks one bucket).
    func replaceValues(_ transform: ([Int]) -> [Int]) {
        var stack = [root]
        while let node = stack.popLast() {
            if !node.values.isEmpty { node.values = transform(node.values) }
            stack += node.literal.values
            if let single = node.single { stack.append(single) }
            if let globstar = node.globstar { stack.append(globstar) }
        }
    }

    /// Adds the values of every pattern that may match these path segments.
    func collect(matching segments: ArraySlice<Substring>, into result: inout [Int]) {
        guard globstarCount > 0 else {
            collectWithoutGlobstar(from: root, segments, into: &result)
            return
        }
        var walked = Walked(base: segments.startIndex, positions: segments.count + 1)
        walk(root, segments, into: &result, walked: &walked) { node, segment in
            (node.literalChild(segment), node.single)
        }
    }

    /// The same walk for a trie without `**`: a loop down the one branch a path usually takes,
    /// branching (recursively) only where a literal and a `{param}` child both take the segment.
    private func collectWithoutGlobstar(from start: Node, _ segments: ArraySlice<Substring>, into result: inout [Int]) {
        var node = start
        var position = segments.startIndex
        while position < segments.endIndex {
            let literal = node.literalChild(segments[position])
            position += 1
            switch (literal, node.single) {
            case (let literal?, let single?):
                collectWithoutGlobstar(from: literal, segments[position...], into: &result)
                node = single
            case (let literal?, nil): node = literal
            case (nil, let single?): node = single
            case (nil, nil): return
            }
        }
        result += node.values
    }

    /// Adds the values of every pattern that may cover `pattern` (``PathPattern/covers(_:)``): a literal
    /// is covered by the same literal or a single-segment branch, `{x}` and `*` by a single-segment
    /// branch, and anything (`**` included) by a `**`.
    func collect(covering pattern: PathPattern, into result: inout [Int]) {
        let components = pattern.components[...]
        var walked = Walked(base: components.startIndex, positions: components.count + 1)
        walk(root, components, into: &result, walked: &walked) { node, component in
            switch component {
            case .literal(let s): return (node.literal[s], node.single)
            case .parameter, .wildcard: return (nil, node.single)
            case .globstar: return (nil, nil)
            }
        }
    }

    private func walk<Item>(_ node: Node, _ items: ArraySlice<Item>, into result: inout [Int], walked: inout Walked,
                            step: (Node, Item) -> (Node?, Node?)) {
        if let globstar = node.globstar {
            // `**` absorbs any number of items, including none.
            var tail = items
            while true {
                // Walked before: that walk went on through every later position too.
                guard walked.insert(node: globstar.id, position: tail.startIndex) else { break }
                walk(globstar, tail, into: &result, walked: &walked, step: step)
                if tail.isEmpty { break }
                tail = tail.dropFirst()
            }
        }
        guard let item = items.first else {
            result += node.values
            return
        }
        let rest = items.dropFirst()
        let (first, second) = step(node, item)
        if let first { walk(first, rest, into: &result, walked: &walked, step: step) }
        if let second { walk(second, rest, into: &result, walked: &walked, step: step) }
    }
}
