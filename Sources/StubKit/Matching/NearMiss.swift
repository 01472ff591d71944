/// A rule that almost answered a request, with the conditions that failed.
///
/// Computed only on a miss, so a matched request never pays for it.
public struct NearMiss: Sendable, CustomStringConvertible {
    public var bundle: String
    public var rule: StubRule
    public var mismatches: [Mismatch]

    public var description: String {
        "\(bundle): \(rule.displayName) (\(rule.source.locationDescription)): " + mismatches.map(\.description).joined(separator: "; ")
    }

    /// The rules with the fewest failed conditions, best first (ties in precedence order).
    static func closest(to request: StubRequest, in index: RuleIndex, limit: Int = 3) -> [NearMiss] {
        var scored: [(score: Int, rank: Int, miss: NearMiss)] = []
        for entry in index.entries {
            let mismatches = allMismatches(entry.rule.request, request)
            guard !mismatches.isEmpty else { continue }
            scored.append((mismatches.count, entry.rank, NearMiss(bundle: entry.bundle, rule: entry.rule, mismatches: mismatches)))
        }
        scored.sort { ($0.score, $0.rank) < ($1.score, $1.rank) }
        return scored.prefix(limit).map(\.miss)
    }

    /// Every failed condition, not only the first, so the report says all that must change.
    static func allMismatches(_ conditions: RequestConditions, _ request: StubRequest) -> [Mismatch] {
        var result: [Mismatch] = []
        var remaining = conditions
        while let mismatch = RequestMatcher.mismatch(remaining, request) {
            result.append(mismatch)
            // Drop the failed condition and look for the next one.
            switch mismatch.field {
            case "method": remaining.methods = nil
            case "host": remaining.host = nil
            case "path": remaining.path = nil
            case "url": remaining.urlPattern = nil
            default:
                if mismatch.field.hasPrefix("query.") {
                    remaining.query[String(mismatch.field.dropFirst("query.".count))] = nil
                } else if mismatch.field.hasPrefix("header ") {
                    remaining.headers[String(mismatch.field.dropFirst("header ".count))] = nil
                } else {
                    return result
                }
            }
        }
        return result
    }
}

/// Why a request was refused by the kill switch: the request, the active bundles, the near misses.
public struct UnmatchedRequestReport: Sendable, CustomStringConvertible {
    public var request: StubRequest
    public var bundles: [String]
    public var nearMisses: [NearMiss]

    public var description: String {
        var text = "StubKit kill switch: no stub answers \(request.method) \(request.url.absoluteString)"
        text += bundles.isEmpty ? " (no bundles are active)" : " (active bundles: \(bundles.joined(separator: ", ")))"
        text += "; the request was not sent to the network."
        if !nearMisses.isEmpty {
            text += " Closest rules: " + nearMisses.map(\.description).joined(separator: " | ")
        }
        return text
    }
}
