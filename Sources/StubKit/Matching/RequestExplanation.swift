/// A readable answer to "which rule answers this request, and if none, why not?".
package struct RequestExplanation: Sendable {
    package let text: String

    package init(engine: StubEngine, request: StubRequest) {
        var out = "\(request.method) \(request.url.absoluteString)\n"
        let snapshot = engine.snapshot
        if let (entry, parameters) = snapshot.index.firstMatch(for: request) {
            let rule = entry.rule
            out += "answered by \(entry.bundle): \(rule.displayName)\n"
            out += "  at \(rule.source.locationDescription) (\(rule.source.keyPath))\n"
            if let error = rule.response.error {
                out += "  fails with simulated error \(error.rawValue)\n"
            } else {
                out += "  status \(rule.response.status)"
                switch rule.response.body {
                case .file(let url): out += ", response file \(url.lastPathComponent)"
                case .inline(let data), .json(let data): out += ", inline body of \(data.count) bytes"
                case .empty: out += ", empty body"
                }
                out += "\n"
            }
            if !parameters.isEmpty {
                out += "  path parameters: " + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ") + "\n"
            }
        } else {
            out += "no rule answers it (active bundles: \(snapshot.bundles.map(\.template).joined(separator: ", ")))\n"
            let misses = NearMiss.closest(to: request, in: snapshot.index)
            if !misses.isEmpty { out += "closest rules:\n" }
            for miss in misses {
                out += "  \(miss.bundle): \(miss.rule.displayName) at \(miss.rule.source.locationDescription)\n"
                for mismatch in miss.mismatches { out += "    \(mismatch)\n" }
            }
        }
        text = out
    }
}
