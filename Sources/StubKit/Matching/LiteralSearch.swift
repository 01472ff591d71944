/// Finds, in one pass over a text, every literal of a fixed set that the text contains: an
/// Aho–Corasick automaton over UTF-8 bytes, as RE2's FilteredRE2 and Hyperscan use to pick the
/// regular expressions worth running.
///
/// Each literal carries an `Int` the owner chooses (a rule's rank). A search costs one step per
/// byte of the text plus one per occurrence found, however many literals there are. Searching
/// bytes is exact for Unicode scalars: UTF-8 is self-synchronizing, so a scalar sequence occurs in
/// a text exactly when its bytes occur in the text's bytes.
///
/// Immutable once built, so `Sendable`.
struct LiteralSearch: Sendable {
    /// One node of the automaton, its fields side by side so a step touches one cache line.
    private struct Node {
        /// Its outgoing edges are `edges[edgeStart ..< edgeEnd]`, sorted by byte.
        var edgeStart: Int32 = 0
        var edgeEnd: Int32 = 0
        /// The longest proper suffix of the node's string that is also a prefix of some literal.
        var failure: Int32 = 0
        /// The nearest node on the failure chain (itself excluded) whose values are not empty, or -1.
        var outputLink: Int32 = -1
        /// The values of literals ending here are `values[valueStart ..< valueEnd]`.
        var valueStart: Int32 = 0
        var valueEnd: Int32 = 0
    }

    private let nodes: [Node]
    /// An edge packed as target << 8 | byte: most nodes have one, so a scan is cheapest.
    private let edges: [UInt32]
    /// The root's edges as a full table (0: stay at the root), so the busiest node needs no scan.
    private let rootTable: [Int32]
    private let values: [Int]

    /// Whether there is no literal to look for.
    var isEmpty: Bool { values.isEmpty }

    /// Builds the automaton. Empty literals are ignored (the owner must treat such values otherwise).
    init(_ literals: [(literal: String, value: Int)]) {
        // 1. The trie, with a dictionary per node while building.
        var children: [[UInt8: Int32]] = [[:]]
        var nodeValues: [[Int]] = [[]]
        for (literal, value) in literals where !literal.isEmpty {
            var node = 0
            for byte in literal.utf8 {
                if let next = children[node][byte] {
                    node = Int(next)
                } else {
                    children.append([:])
                    nodeValues.append([])
                    children[node][byte] = Int32(children.count - 1)
                    node = children.count - 1
                }
            }
            nodeValues[node].append(value)
        }
        let count = children.count

        // 2. Flat, sorted edges and values.
        var nodes = [Node](repeating: Node(), count: count)
        var edges: [UInt32] = []
        var values: [Int] = []
        for node in 0..<count {
            nodes[node].edgeStart = Int32(edges.count)
            for (byte, target) in children[node].sorted(by: { $0.key < $1.key }) { edges.append(UInt32(target) << 8 | UInt32(byte)) }
            nodes[node].edgeEnd = Int32(edges.count)
            nodes[node].valueStart = Int32(values.count)
            values += nodeValues[node]
            nodes[node].valueEnd = Int32(values.count)
        }
        var rootTable = [Int32](repeating: 0, count: 256)
        for (byte, target) in children[0] { rootTable[Int(byte)] = target }

        // 3. Failure and output links, breadth first so a node's failure is done before its children.
        var queue: [Int32] = children[0].values.sorted()
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            for (byte, target) in children[node] {
                var fallback = Int(nodes[node].failure)
                var next: Int32 = 0
                while true {
                    if let candidate = children[fallback][byte], Int(candidate) != Int(target) {
                        next = candidate
                        break
                    }
                    if fallback == 0 { break }
                    fallback = Int(nodes[fallback].failure)
                }
                nodes[Int(target)].failure = next
                nodes[Int(target)].outputLink = nodeValues[Int(next)].isEmpty ? nodes[Int(next)].outputLink : next
                queue.append(target)
            }
        }
        self.nodes = nodes
        self.edges = edges
        self.rootTable = rootTable
        self.values = values
    }

    /// Calls `found` with the value of every literal that occurs in `text`, once per occurrence, in
    /// no particular order.
    func forEachMatch(in text: String, _ found: (Int) -> Void) {
        guard !isEmpty else { return }
        var text = text
        text.withUTF8 { bytes in
            nodes.withUnsafeBufferPointer { nodes in
                var node = 0
                for byte in bytes {
                    node = step(nodes, from: node, byte)
                    var output = nodes[node].valueStart < nodes[node].valueEnd ? node : Int(nodes[node].outputLink)
                    while output >= 0 {
                        for i in Int(nodes[output].valueStart)..<Int(nodes[output].valueEnd) { found(values[i]) }
                        output = Int(nodes[output].outputLink)
                    }
                }
            }
        }
    }

    private func step(_ nodes: UnsafeBufferPointer<Node>, from start: Int, _ byte: UInt8) -> Int {
        var node = start
        while node != 0 {
            for i in Int(nodes[node].edgeStart)..<Int(nodes[node].edgeEnd) where UInt8(truncatingIfNeeded: edges[i]) == byte {
                return Int(edges[i] >> 8)
            }
            node = Int(nodes[node].failure)
        }
        return Int(rootTable[Int(byte)])
    }
}
