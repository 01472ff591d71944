import Foundation

/// GraphQL batches: a request whose body is a JSON array of operations, which no rule answers as a
/// whole, is answered operation by operation (see ``GraphQLBatch``).
extension StubEngine {
    /// The decision for a GraphQL batch no rule answers as a whole; `nil` when the request is not one.
    ///
    /// Every operation goes through the same lookup as a request of its own, in array order, under one
    /// hold of the lock: each operation's rule is used up once (a sequence used twice in a batch gives
    /// its first then its second response; a `setState` of one operation is seen by the next), and no
    /// other request can come in between. The batch is answered only when every operation is; then the
    /// state moves. Otherwise nothing is used up, and the whole request is refused with the kill switch
    /// on (naming each operation no rule answers, with its near misses) or goes to the network as it
    /// is (a real server's answer cannot be merged with stubbed parts). An operation whose sequence is
    /// used up and says `fail` fails the whole request, as it would fail the operation sent alone.
    func batchDecision(for request: StubRequest, killSwitch: Bool) -> Decision? {
        guard let batch = GraphQLBatch(request) else { return nil }
        var states: [String: String] = [:]
        let (index, decisions) = state.withLock { shared -> (RuleIndex, [Decision?]) in
            states = shared.scenarioStates
            var trial = shared
            let decisions = batch.requests.map { operation -> Decision? in
                guard let (entry, parameters) = trial.index.firstMatch(for: operation, states: trial.scenarioStates) else { return nil }
                guard trial.index.hasStatefulRules else {
                    let response = entry.rule.response
                    return .answer(StubMatch(rule: entry.rule, bundle: entry.bundle, parameters: parameters, response: response,
                                             delay: response.delay, hit: 0))
                }
                return answer(entry, parameters: parameters, shared: &trial)
            }
            if decisions.allSatisfy({ if case .answer? = $0 { true } else { false } }) { shared = trial }
            return (shared.index, decisions)
        }
        var matches: [StubMatch] = []
        var unansweredPositions: [Int] = []
        var failed: Decision?
        for (position, decision) in decisions.enumerated() {
            switch decision {
            case .answer(let match)?:
                matches.append(match)
            case nil:
                unansweredPositions.append(position)
            case let other?:
                failed = failed ?? other
            }
        }
        guard unansweredPositions.isEmpty else {
            guard killSwitch, !(recorder?.records(request) ?? false) else { return .passThrough }
            // Near misses look at every rule: for the first few unanswered operations only, so a batch of
            // thousands costs no more to refuse than a few requests.
            let unanswered = unansweredPositions.enumerated().map { n, position in
                UnmatchedRequestReport.UnansweredOperation(
                    label: batch.label(position),
                    nearMisses: n < Self.batchOperationsExplained ? NearMiss.closest(to: batch.requests[position], in: index, states: states) : [])
            }
            return .refuse(UnmatchedRequestReport(request: request, bundles: activeTemplates,
                                                  nearMisses: unanswered.flatMap(\.nearMisses), operations: unanswered,
                                                  operationCount: batch.operations.count))
        }
        if let failed { return failed }
        return .answer(batch.answer(matches, now: now))
    }

    /// How many unanswered operations of a refused batch get their near misses.
    static let batchOperationsExplained = 10

    /// Whether some operation of a GraphQL batch could be answered: `canInit` then takes the request,
    /// which no rule answers as a whole.
    func answersSomeOperation(of request: StubRequest, in index: RuleIndex, states: [String: String]) -> Bool {
        guard let batch = GraphQLBatch(request) else { return false }
        return batch.requests.contains { index.hasMatch(for: $0, states: states) }
    }
}
