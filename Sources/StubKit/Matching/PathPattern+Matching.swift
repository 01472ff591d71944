/// Matching a path, and comparing two patterns, in pattern length × path length steps.
///
/// Not backtracking: with k `**` against n segments that takes about n^k steps, so a rule like
/// `/**/a/**/a/**/a/**/b` would hang on a long path, in the app and in the linter. Both are a table of
/// "does the rest of the pattern match the rest of the path?" filled from the ends (dynamic
/// programming), built only for patterns that hold a `**`.
extension PathPattern {
    /// Matches path segments, returning the captured parameters, or `nil` when the path does not match.
    ///
    /// When `**` could absorb more or fewer segments, it absorbs as few as possible, left to right, so
    /// captures are deterministic (and the same as before this was rewritten).
    package func match(_ segments: [Substring]) -> [String: String]? {
        guard components.contains(.globstar) else { return matchWithoutGlobstar(segments) }
        let table = SuffixTable(rows: components.count, columns: segments.count) { i, j, table in
            switch components[i] {
            case .globstar: return table[i + 1, j] || (j < segments.count && table[i, j + 1])
            case .literal(let literal): return j < segments.count && segments[j] == literal && table[i + 1, j + 1]
            case .parameter, .wildcard: return j < segments.count && table[i + 1, j + 1]
            }
        }
        guard table[0, 0] else { return nil }
        // Walk the table from the start, taking the shortest absorption at each `**`.
        var captures: [String: String] = [:]
        var j = 0
        for (i, component) in components.enumerated() {
            switch component {
            case .globstar:
                if i == components.count - 1 { return captures }
                while !table[i + 1, j] { j += 1 }
            case .parameter(let name):
                captures[name] = String(segments[j])
                j += 1
            case .literal, .wildcard:
                j += 1
            }
        }
        return captures
    }

    /// Whether the pattern matches the segments, capturing nothing (what matching a rule needs; the
    /// parameters are captured once, for the rule that answers).
    package func matches(_ segments: [Substring]) -> Bool {
        guard !components.contains(.globstar) else { return match(segments) != nil }
        guard segments.count == components.count else { return false }
        for (component, segment) in zip(components, segments) {
            if case .literal(let literal) = component, segment != literal { return false }
        }
        return true
    }

    private func matchWithoutGlobstar(_ segments: [Substring]) -> [String: String]? {
        guard segments.count == components.count else { return nil }
        var captures: [String: String] = [:]
        for (component, segment) in zip(components, segments) {
            switch component {
            case .literal(let literal): if segment != literal { return nil }
            case .parameter(let name): captures[name] = String(segment)
            case .wildcard, .globstar: break
            }
        }
        return captures
    }

    /// Whether every path that `other` matches is matched by this pattern too.
    ///
    /// Used to find shadowed rules: an earlier rule whose pattern covers a later rule's pattern (with
    /// no narrower conditions) answers every request the later one would. A `**` here covers any run
    /// of `other`'s components, `**` included; `*` and `{x}` cover any single non-`**` component.
    package func covers(_ other: PathPattern) -> Bool {
        let a = components, b = other.components
        if !a.contains(.globstar) {
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { Self.coversOne($0, $1) }
        }
        let table = SuffixTable(rows: a.count, columns: b.count) { i, j, table in
            if case .globstar = a[i] { return table[i + 1, j] || (j < b.count && table[i, j + 1]) }
            return j < b.count && Self.coversOne(a[i], b[j]) && table[i + 1, j + 1]
        }
        return table[0, 0]
    }

    /// Whether component `a` (not `**`) matches every segment that component `b` matches.
    private static func coversOne(_ a: Component, _ b: Component) -> Bool {
        switch (a, b) {
        case (.literal(let x), .literal(let y)): return x == y
        case (.parameter, .literal), (.parameter, .parameter), (.parameter, .wildcard),
             (.wildcard, .literal), (.wildcard, .parameter), (.wildcard, .wildcard):
            return true
        default:
            return false
        }
    }
}

/// `table[i, j]`: whether pattern components `i...` match path (or pattern) items `j...`, filled
/// from the last row and column back, so every cell reads only cells already filled.
///
/// The last row (the pattern used up) is true only in the last column (the path used up).
/// Size and time: (rows + 1) × (columns + 1).
private struct SuffixTable {
    private var cells: [Bool]
    private let width: Int

    init(rows: Int, columns: Int, cell: (Int, Int, SuffixTable) -> Bool) {
        width = columns + 1
        cells = Array(repeating: false, count: (rows + 1) * width)
        cells[rows * width + columns] = true
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns, through: 0, by: -1) {
                cells[i * width + j] = cell(i, j, self)
            }
        }
    }

    subscript(i: Int, j: Int) -> Bool { cells[i * width + j] }
}
