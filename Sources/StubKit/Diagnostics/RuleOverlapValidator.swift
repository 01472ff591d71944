/// Finds rules that repeat an earlier rule or can never match because an earlier rule always does.
///
/// A rule B is shadowed by an earlier rule A of the same or higher priority when every request B
/// accepts is accepted by A too: A's methods include B's, A's host is absent or equal, A's query and
/// header requirements are a subset of B's, and A's path pattern covers B's. Rules matched by a regular
/// expression are compared only with rules using the same expression: regular expressions cannot be
/// compared in general, so none is guessed at.
enum RuleOverlapValidator {
    static func overlaps(in rules: [StubRule]) -> [Diagnostic] {
        var diagnostics: [Diagnostic] = []
        // Bucket by the first path segment so a large bundle is not compared all against all.
        var byFirstLiteral: [String: [Int]] = [:]
        var openFirst: [Int] = []
        for (i, rule) in rules.enumerated() {
            let earlier = candidates(for: rule, byFirstLiteral: byFirstLiteral, openFirst: openFirst)
            for j in earlier.sorted() {
                let a = rules[j]
                guard a.priority >= rule.priority, covers(a.request, rule.request) else { continue }
                let isDuplicate = a.priority == rule.priority && covers(rule.request, a.request)
                let related = Diagnostic.RelatedLocation(file: a.source.file, position: a.source.position, keyPath: a.source.keyPath,
                                                         message: isDuplicate ? "the earlier rule with the same conditions" : "the earlier rule that matches first")
                if isDuplicate {
                    diagnostics.append(Diagnostic(.duplicateRule, file: rule.source.file, position: rule.source.position, keyPath: rule.source.keyPath,
                                                  message: "this rule has the same request conditions as \(a.source.keyPath) (\(a.displayName)), which always answers first",
                                                  fix: "delete one, or give them different conditions", related: related))
                } else {
                    diagnostics.append(Diagnostic(.shadowedRule, file: rule.source.file, position: rule.source.position, keyPath: rule.source.keyPath,
                                                  message: "this rule can never match: \(a.source.keyPath) (\(a.displayName)) at \(a.source.locationDescription) matches every request it would",
                                                  fix: "move it before \(a.source.keyPath), or give it a higher 'priority'", related: related))
                }
                break
            }
            switch rule.request.path?.components.first {
            case .literal(let s)?: byFirstLiteral[s, default: []].append(i)
            default: openFirst.append(i)
            }
        }
        return diagnostics
    }

    private static func candidates(for rule: StubRule, byFirstLiteral: [String: [Int]], openFirst: [Int]) -> [Int] {
        if case .literal(let s)? = rule.request.path?.components.first {
            return (byFirstLiteral[s] ?? []) + openFirst
        }
        return byFirstLiteral.values.flatMap { $0 } + openFirst
    }

    /// Whether every request `b` accepts is accepted by `a`.
    static func covers(_ a: RequestConditions, _ b: RequestConditions) -> Bool {
        if let am = a.methods {
            guard let bm = b.methods, bm.isSubset(of: am) else { return false }
        }
        if let ah = a.host, ah != b.host { return false }
        if let scheme = a.scheme, scheme != b.scheme { return false }
        for (name, condition) in a.query {
            guard let other = b.query[name], other.isNarrower(than: condition) else { return false }
        }
        for (name, condition) in a.headers {
            guard let other = b.headers.first(where: { $0.key.lowercased() == name.lowercased() })?.value,
                  other.isNarrower(than: condition) else { return false }
        }
        // Body conditions and scenario states are compared only for equality: anything else may differ.
        for matcher in a.body where !b.body.contains(matcher) { return false }
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
