/// A rule that almost answered a request, with the conditions that failed.
///
/// Computed only on a miss, so a matched request never pays for it.
package struct NearMiss: Sendable, CustomStringConvertible {
    package var bundle: String
    package var rule: StubRule
    package var mismatches: [Mismatch]

    package var description: String {
        "\(bundle): \(rule.displayName) (\(rule.source.locationDescription)): " + mismatches.map(\.description).joined(separator: "; ")
    }

    /// The rules with the fewest failed conditions, best first (ties in precedence order).
    static func closest(to request: StubRequest, in index: RuleIndex, states: [String: String] = [:], limit: Int = 3) -> [NearMiss] {
        var scored: [(score: Int, rank: Int, miss: NearMiss)] = []
        for entry in index.entries {
            let mismatches = RequestMatcher.allMismatches(entry.rule.request, request, states: states)
            guard !mismatches.isEmpty else { continue }
            // A path that matches further before it differs is closer.
            var score = mismatches.count * 100 - (mismatches.first { $0.field == "path" } == nil ? 99 : pathCloseness(entry.rule.request.path, request))
            // Of the rules on one GraphQL endpoint, one for an operation spelt like the request's says
            // most, the closer the spelling the more.
            if let operation = mismatches.first(where: { $0.field == "graphql operation" }) {
                score -= 50 - min(Suggestion.editDistance(operation.expected, operation.actual), 50)
            }
            scored.append((score, entry.rank, NearMiss(bundle: entry.bundle, rule: entry.rule, mismatches: mismatches)))
        }
        scored.sort { ($0.score, $0.rank) < ($1.score, $1.rank) }
        return scored.prefix(limit).map(\.miss)
    }

    /// Higher for a path that agrees longer before it differs and has about as many segments.
    private static func pathCloseness(_ pattern: PathPattern?, _ request: StubRequest) -> Int {
        guard let pattern else { return 0 }
        var shared = 0
        for (component, segment) in zip(pattern.components, request.pathSegments) {
            if case .literal(let literal) = component, literal != segment { break }
            if case .globstar = component { break }
            shared += 1
        }
        let closeness = 2 * shared - abs(pattern.components.count - request.pathSegments.count)
        return max(0, min(closeness, 98))
    }
}

/// Why a request was refused by the kill switch: the request, the active bundles, the near misses.
package struct UnmatchedRequestReport: Sendable, CustomStringConvertible {
    package var request: StubRequest
    package var bundles: [String]
    /// Every near miss the report names (those of each operation, for a GraphQL batch).
    package var nearMisses: [NearMiss]
    /// The operations of a GraphQL batch that no rule answers, in order; empty for any other request.
    package var operations: [UnansweredOperation] = []
    /// How many operations the batch holds.
    package var operationCount = 0

    /// An operation of a GraphQL batch that no rule answers, and the rules that came closest.
    package struct UnansweredOperation: Sendable {
        /// `operation 2 (query Search)`.
        package var label: String
        package var nearMisses: [NearMiss]
    }

    package var description: String {
        guard operations.isEmpty else { return batchDescription }
        var text = "StubKit kill switch: no stub answers \(request.method) \(request.url.absoluteString)"
        // Only what reads as GraphQL: a REST call with `?query=pizza` is no operation.
        if let graphQL = request.graphQL, graphQL.operations.allSatisfy(\.isRecognized) {
            text += " (GraphQL " + graphQL.operations.map(\.summary).joined(separator: ", ") + ")"
        }
        text += bundlesText + "; the request was not sent to the network."
        if !nearMisses.isEmpty {
            text += " Closest rules: " + nearMisses.map(\.description).joined(separator: " | ")
        }
        return text
    }

    private var bundlesText: String {
        bundles.isEmpty ? " (no bundles are active)" : " (active bundles: \(bundles.joined(separator: ", ")))"
    }

    /// A batch is answered whole or not at all: the report names each operation no rule answers.
    private var batchDescription: String {
        var text = "StubKit kill switch: no stub answers \(operations.count) of the \(operationCount) operations of the GraphQL batch "
            + "\(request.method) \(request.url.absoluteString)" + bundlesText + "; the request was not sent to the network."
        for operation in operations {
            text += " No rule answers \(operation.label)"
            text += operation.nearMisses.isEmpty ? "." : "; closest rules: " + operation.nearMisses.map(\.description).joined(separator: " | ") + "."
        }
        return text
    }
}
