/// Finds rules that repeat an earlier rule or can never match because an earlier rule always does.
///
/// A rule B is shadowed by an earlier rule A of the same or higher priority when every request B
/// accepts is accepted by A too: A's methods include B's, A's host is absent or equal, A's query and
/// header requirements are a subset of B's, and A's path pattern covers B's. Rules matched by a regular
/// expression are compared only with rules using the same expression: regular expressions cannot be
/// compared in general, so none is guessed at.
///
/// Only rules that can overlap are compared: earlier rules sit in a ``PathTrie`` per host (and one for
/// rules of any host), and a rule is compared with those whose pattern may cover its own, found by
/// walking the tree. 10,000 rules under one prefix cost about 10,000 short walks, not 50 million
/// comparisons. The warnings are exactly those of comparing every pair (the tests keep that check as
/// the reference): for each rule, the first earlier rule that covers it.
enum RuleOverlapValidator {
    static func overlaps(in rules: [StubRule]) -> [Diagnostic] {
        scan(rules).diagnostics
    }

    /// How many pairs of rules `overlaps(in:)` compares in full, for the tests that keep it sub-quadratic.
    static func comparisons(in rules: [StubRule]) -> Int {
        scan(rules).comparisons
    }

    private static func scan(_ rules: [StubRule]) -> (diagnostics: [Diagnostic], comparisons: Int) {
        var diagnostics: [Diagnostic] = []
        var comparisons = 0
        // Earlier rules by the host they require (`nil`: any host), and by regular expression.
        var pathsByHost: [String?: PathTrie] = [:]
        var byExpression: [String: [Int]] = [:]
        var candidates: [Int] = []
        for (i, rule) in rules.enumerated() {
            candidates.removeAll(keepingCapacity: true)
            switch (rule.request.path, rule.request.urlPattern) {
            case (let path?, nil):
                pathsByHost[nil]?.collect(covering: path, into: &candidates)
                if let host = rule.request.host { pathsByHost[host]?.collect(covering: path, into: &candidates) }
            case (nil, let expression?):
                candidates += byExpression[expression.pattern] ?? []
            default:
                // Neither or both: `covers` is false for every pair (the loader reports the conflict).
                break
            }
            candidates.sort()
            var previous = -1
            for j in candidates where j != previous {
                previous = j
                comparisons += 1
                let a = rules[j]
                guard a.priority >= rule.priority, covers(a.request, rule.request) else { continue }
                diagnostics.append(diagnostic(rule, coveredBy: a, isDuplicate: a.priority == rule.priority && covers(rule.request, a.request)))
                break
            }
            switch (rule.request.path, rule.request.urlPattern) {
            case (let path?, nil):
                let trie = pathsByHost[rule.request.host] ?? PathTrie()
                trie.insert(path, value: i)
                pathsByHost[rule.request.host] = trie
            case (nil, let expression?):
                byExpression[expression.pattern, default: []].append(i)
            default:
                break
            }
        }
        return (diagnostics, comparisons)
    }

    /// The warning for `rule`, which never matches because the earlier rule `a` always answers first;
    /// both named by ``StubRule/diagnosticLabel``. Shared with the tests' reference check.
    static func diagnostic(_ rule: StubRule, coveredBy a: StubRule, isDuplicate: Bool) -> Diagnostic {
        let related = Diagnostic.RelatedLocation(file: a.source.file, position: a.source.position, keyPath: a.source.keyPath,
                                                 message: isDuplicate ? "\(a.diagnosticShortLabel) has the same conditions and answers first"
                                                                      : "\(a.diagnosticShortLabel) matches first")
        if isDuplicate {
            return Diagnostic(.duplicateRule, file: rule.source.file, position: rule.source.position, keyPath: rule.source.keyPath,
                              message: "\(rule.diagnosticLabel) has the same request conditions as \(a.diagnosticLabel), which always answers first",
                              fix: "delete one, or give them different conditions", related: related)
        }
        return Diagnostic(.shadowedRule, file: rule.source.file, position: rule.source.position, keyPath: rule.source.keyPath,
                          message: "\(rule.diagnosticLabel) can never match: it is shadowed by \(a.diagnosticLabel), which matches every request it would",
                          fix: "move it before \(a.diagnosticShortLabel), or give it a higher 'priority'", related: related)
    }

    /// Whether every request `b` accepts is accepted by `a`.
    static func covers(_ a: RequestConditions, _ b: RequestConditions) -> Bool {
        if let am = a.methods {
            guard let bm = b.methods, bm.isSubset(of: am) else { return false }
        }
        // A WebSocket rule answers upgrades only, so it never covers a plain rule of its URL.
        if a.webSocketUpgrade, !b.webSocketUpgrade { return false }
        if let ah = a.host, ah != b.host { return false }
        if let scheme = a.scheme, scheme != b.scheme { return false }
        for (name, condition) in a.query {
            guard let other = b.query[name], other.isNarrower(than: condition, regexSees: { PercentEncoding.decoded($0[...]) }) else { return false }
        }
        for (name, condition) in a.headers {
            guard let other = b.headers.first(where: { $0.key.lowercased() == name.lowercased() })?.value,
                  other.isNarrower(than: condition) else { return false }
        }
        // Body conditions and scenario states are compared only for equality: anything else may differ.
        for matcher in a.body where !b.body.contains(matcher) { return false }
        if let graphQL = a.graphQL, !graphQL.covers(b.graphQL) { return false }
        if let state = a.scenarioState?.state {
            guard b.scenarioState?.scenario == a.scenarioState?.scenario, b.scenarioState?.state == state else { return false }
        }
        switch (a.path, b.path, a.urlPattern, b.urlPattern) {
        case (let ap?, let bp?, nil, nil): return ap.covers(bp)
        case (nil, nil, let ar?, let br?): return ar == br
        default: return false
        }
    }
}
