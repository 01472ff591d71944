/// A regular expression of the linear-time subset compiled to a Thompson NFA, run as a Pike VM.
///
/// "Is there a match anywhere?" is answered by stepping the set of live NFA states once per scalar
/// of the text, starting a new thread at every position. Each state enters the set at most once per
/// position, so the worst case is O(program length × text length) time and O(program length)
/// memory, whatever the pattern: `(a|aa)+$` and `(a+)+$` cost the same as `a+$`.
struct RegexProgram: Sendable {
    enum Instruction: Sendable {
        case scalar(Unicode.Scalar)
        /// An index into `sets`: the enum stays small and free of reference counting.
        case set(Int)
        /// Continue at both (an NFA fork).
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    /// Beyond this many instructions (`a{5000}{20}`-like counts) the pattern is left to
    /// `NSRegularExpression` under a budget rather than allocating a huge program.
    static let maximumLength = 20_000

    let instructions: [Instruction]
    let sets: [RegexScalarSet]
    /// Whether every match must start at position 0 (`^…`): then no thread starts later.
    let anchoredAtStart: Bool
    /// The scalar every match starts with, when the program's first instruction is one (most
    /// unanchored URL patterns: `/v1/search`, `api.example.com/…`): while no thread is alive, the
    /// search skips to its next occurrence instead of starting a thread at every position.
    let firstScalar: Unicode.Scalar?

    struct TooLarge: Error {}

    init(_ node: RegexNode) throws(TooLarge) {
        let node = Self.searchCore(node)
        var builder = Builder()
        try builder.emit(node)
        builder.append(.match)
        instructions = builder.code
        sets = builder.sets
        anchoredAtStart = Self.startsWithAnchor(node)
        if case .scalar(let first) = instructions.first { firstScalar = first } else { firstScalar = nil }
    }

    /// Whether ``init(_:)`` compiles `node` (rather than throwing ``TooLarge``), known without
    /// compiling it: loading needs the answer for every pattern, matching needs the program of few.
    static func fits(_ node: RegexNode) -> Bool {
        length(of: searchCore(node)) <= maximumLength
    }

    /// How many instructions ``Builder/emit(_:)`` appends for `node`, saturating just past
    /// ``maximumLength`` (`(a{100000}){100000}` must not overflow). The builder throws exactly when
    /// its count passes the maximum, and its count only grows, so comparing this with the maximum
    /// gives the builder's answer.
    static func length(of node: RegexNode) -> Int {
        let cap = maximumLength + 1
        func add(_ a: Int, _ b: Int) -> Int { min(a + b, cap) }
        func times(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? cap : min(product, cap)
        }
        switch node {
        case .empty: return 0
        case .scalar, .set, .textStart, .textEnd: return 1
        case .literal(let text):
            // Scalars are the UTF-8 bytes that do not continue one (`unicodeScalars.count` is slower).
            let count = text.utf8.withContiguousStorageIfAvailable { bytes in bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
            return min(count ?? text.unicodeScalars.count, cap)
        case .concatenation(let items):
            return items.reduce(0) { add($0, length(of: $1)) }
        case .alternation(let branches):
            // A split and a jump for every branch but the last.
            return branches.reduce(times(2, branches.count - 1)) { add($0, length(of: $1)) }
        case .repetition(let body, let min, let max):
            let body = length(of: body)
            // `min` copies, then per optional copy a split and the body, or one split, body and jump.
            let optional = max.map { times($0 - min, add(body, 1)) } ?? add(body, 2)
            return add(times(min, body), optional)
        }
    }

    /// The part of a top-level concatenation that decides "is there a match anywhere": a leading or
    /// trailing repetition that may occur zero times (`.*` in `.*/recommendations$`) matches the empty
    /// string wherever the rest matches, so dropping it keeps every answer and spares the VM a thread
    /// per position.
    static func searchCore(_ node: RegexNode) -> RegexNode {
        guard case .concatenation(var items) = node else { return node }
        while let first = items.first, case .repetition(_, let min, _) = first, min == 0 { items.removeFirst() }
        while let last = items.last, case .repetition(_, let min, _) = last, min == 0 { items.removeLast() }
        return .concatenation(items)
    }

    private static func startsWithAnchor(_ node: RegexNode) -> Bool {
        switch node {
        case .textStart: return true
        case .concatenation(let items): return items.first.map(startsWithAnchor) ?? false
        case .alternation(let branches): return branches.allSatisfy(startsWithAnchor)
        default: return false
        }
    }

    private struct Builder {
        var code: [Instruction] = []
        var sets: [RegexScalarSet] = []

        mutating func append(_ instruction: Instruction) {
            code.append(instruction)
        }

        mutating func emit(_ node: RegexNode) throws(TooLarge) {
            guard code.count <= RegexProgram.maximumLength else { throw TooLarge() }
            switch node {
            case .empty: break
            case .scalar(let s): append(.scalar(s))
            case .literal(let text):
                for s in text.unicodeScalars { append(.scalar(s)) }
            case .set(let set):
                sets.append(set)
                append(.set(sets.count - 1))
            case .textStart: append(.assertStart)
            case .textEnd: append(.assertEnd)
            case .concatenation(let items):
                for item in items { try emit(item) }
            case .alternation(let branches):
                // split L1, next; L1: branch; jump end; next: split L2, … ; last branch falls through.
                var jumps: [Int] = []
                for (i, branch) in branches.enumerated() {
                    if i < branches.count - 1 {
                        let split = code.count
                        append(.split(split + 1, -1))
                        try emit(branch)
                        jumps.append(code.count)
                        append(.jump(-1))
                        code[split] = .split(split + 1, code.count)
                    } else {
                        try emit(branch)
                    }
                }
                for jump in jumps { code[jump] = .jump(code.count) }
            case .repetition(let body, let min, let max):
                for _ in 0..<min { try emit(body) }
                if let max {
                    // Each optional copy may be skipped to the end.
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(code.count)
                        append(.split(code.count + 1, -1))
                        try emit(body)
                    }
                    for split in splits { code[split] = .split(split + 1, code.count) }
                } else {
                    let loop = code.count
                    append(.split(loop + 1, -1))
                    try emit(body)
                    append(.jump(loop))
                    code[loop] = .split(loop + 1, code.count)
                }
            }
            guard code.count <= RegexProgram.maximumLength else { throw TooLarge() }
        }
    }

    /// Whether the expression matches anywhere in `text`.
    func matches(_ text: String) -> Bool {
        let input = Array(text.unicodeScalars)
        var current = StateSet(capacity: instructions.count)
        var next = StateSet(capacity: instructions.count)
        var stack: [Int] = []
        var position = 0
        while true {
            if current.isEmpty, !anchoredAtStart, let firstScalar {
                // No thread alive, and a thread started here dies unless the text has `firstScalar`
                // here (the first instruction consumes it; nothing before it can reach `match`).
                guard let start = input[position...].firstIndex(of: firstScalar) else { return false }
                position = start
            }
            if position == 0 || !anchoredAtStart {
                if addClosure(0, at: position, in: input, to: &current, stack: &stack) { return true }
            }
            guard position < input.count else { break }
            if current.isEmpty {
                if anchoredAtStart { return false }
                position += 1
                continue
            }
            let scalar = input[position]
            next.removeAll()
            for pc in current.members {
                let advances: Bool
                switch instructions[pc] {
                case .scalar(let s): advances = s == scalar
                case .set(let set): advances = sets[set].contains(scalar)
                default: advances = false
                }
                if advances, addClosure(pc + 1, at: position + 1, in: input, to: &next, stack: &stack) { return true }
            }
            swap(&current, &next)
            position += 1
        }
        return false
    }

    /// Adds `start` and every state reachable from it without consuming input; true on reaching `match`.
    private func addClosure(_ start: Int, at position: Int, in input: [Unicode.Scalar], to set: inout StateSet, stack: inout [Int]) -> Bool {
        stack.removeAll(keepingCapacity: true)
        stack.append(start)
        while let pc = stack.popLast() {
            guard set.insert(pc) else { continue }
            switch instructions[pc] {
            case .match: return true
            case .jump(let target): stack.append(target)
            case .split(let a, let b):
                stack.append(b)
                stack.append(a)
            case .assertStart:
                if position == 0 { stack.append(pc + 1) }
            case .assertEnd:
                if Self.isEnd(position, in: input) { stack.append(pc + 1) }
            case .scalar, .set: break
            }
        }
        return false
    }

    /// ICU's `$` without the multiline option: the end, or before a final line terminator, or before
    /// a final CR LF, but not between its CR and LF.
    static func isEnd(_ position: Int, in input: [Unicode.Scalar]) -> Bool {
        let count = input.count
        if position == count { return true }
        if position == count - 1, RegexScalarSet.isLineTerminator(input[position]) {
            return !(input[position] == "\n" && position > 0 && input[position - 1] == "\r")
        }
        return position == count - 2 && input[position] == "\r" && input[position + 1] == "\n"
    }
}

/// A sparse set of NFA states: O(1) insert, membership and clear, members in insertion order.
struct StateSet {
    private var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }
    var members: ArraySlice<Int> { dense[0..<count] }

    /// Inserts `value`; false when it was already there.
    mutating func insert(_ value: Int) -> Bool {
        let slot = sparse[value]
        if slot < count && dense[slot] == value { return false }
        sparse[value] = count
        dense[count] = value
        count += 1
        return true
    }

    mutating func removeAll() {
        count = 0
    }
}
