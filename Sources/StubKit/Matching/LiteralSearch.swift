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
    /// Per node, its outgoing edges sit at `edgeStart[node] ..< edgeStart[node + 1]` of
    /// `edgeBytes`/`edgeTargets`, sorted by byte. Most nodes have one edge, so a scan is cheapest.
    private let edgeStart: [Int32]
    private let edgeBytes: [UInt8]
    private let edgeTargets: [Int32]
    /// The root's edges as a full table (0: stay at the root), so the busiest node needs no scan.
    private let rootTable: [Int32]
    /// The longest proper suffix of the node's string that is also a prefix of some literal.
    private let failure: [Int32]
    /// Values of literals that end at this node.
    private let values: [[Int]]
    /// The nearest node on the failure chain (itself excluded) whose `values` are not empty, or -1.
    private let outputLink: [Int32]

    /// Whether there is no literal to look for.
    var isEmpty: Bool { values.count <= 1 && (values.first?.isEmpty ?? true) }

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

        // 2. Flat, sorted edges.
        var edgeStart = [Int32](repeating: 0, count: count + 1)
        var edgeBytes: [UInt8] = []
        var edgeTargets: [Int32] = []
        for node in 0..<count {
            edgeStart[node] = Int32(edgeBytes.count)
            for (byte, target) in children[node].sorted(by: { $0.key < $1.key }) {
                edgeBytes.append(byte)
                edgeTargets.append(target)
            }
        }
        edgeStart[count] = Int32(edgeBytes.count)
        var rootTable = [Int32](repeating: 0, count: 256)
        for (byte, target) in children[0] { rootTable[Int(byte)] = target }

        // 3. Failure and output links, breadth first so a node's failure is done before its children.
        var failure = [Int32](repeating: 0, count: count)
        var outputLink = [Int32](repeating: -1, count: count)
        var queue: [Int32] = children[0].values.sorted()
        var head = 0
        while head < queue.count {
            let node = Int(queue[head])
            head += 1
            for (byte, target) in children[node] {
                var fallback = Int(failure[node])
                var next: Int32 = 0
                while true {
                    if let candidate = children[fallback][byte], Int(candidate) != Int(target) {
                        next = candidate
                        break
                    }
                    if fallback == 0 { break }
                    fallback = Int(failure[fallback])
                }
                failure[Int(target)] = next
                outputLink[Int(target)] = nodeValues[Int(next)].isEmpty ? outputLink[Int(next)] : next
                queue.append(target)
            }
        }
        self.edgeStart = edgeStart
        self.edgeBytes = edgeBytes
        self.edgeTargets = edgeTargets
        self.rootTable = rootTable
        self.failure = failure
        self.values = nodeValues
        self.outputLink = outputLink
    }

    /// Calls `found` with the value of every literal that occurs in `text`, once per occurrence, in
    /// no particular order.
    func forEachMatch(in text: String, _ found: (Int) -> Void) {
        guard !isEmpty else { return }
        var text = text
        text.withUTF8 { bytes in
            var node = 0
            for byte in bytes {
                node = step(from: node, byte)
                var output = values[node].isEmpty ? Int(outputLink[node]) : node
                while output >= 0 {
                    for value in values[output] { found(value) }
                    output = Int(outputLink[output])
                }
            }
        }
    }

    private func step(from start: Int, _ byte: UInt8) -> Int {
        var node = start
        while node != 0 {
            let end = Int(edgeStart[node + 1])
            var i = Int(edgeStart[node])
            while i < end {
                if edgeBytes[i] == byte { return Int(edgeTargets[i]) }
                i += 1
            }
            node = Int(failure[node])
        }
        return Int(rootTable[Int(byte)])
    }
}
