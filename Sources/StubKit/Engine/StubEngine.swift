import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loads stub bundles, keeps the active set, and answers requests from it.
///
/// Thread-safe: the active bundles, the rules added at runtime, their index, the scenario states, the
/// hit counts and the fixed time sit behind one lock. When no active rule is stateful (no sequence, scenario or random delay), a lookup takes the
/// immutable index and matches without holding the lock; otherwise matching and advancing the state
/// happen under the lock, so concurrent requests never see a half-advanced sequence.
public final class StubEngine: Sendable {
    /// What to do with a bundle that has errors.
    public enum Mode: String, Sendable {
        /// Refuse to activate a bundle with any error (the default: a broken bundle fails loudly).
        case strict
        /// Activate the rules without errors, and hand back the diagnostics.
        case lenient
    }

    /// Whether bundles with errors are refused or partly served.
    public let mode: Mode
    /// The fixed "now" that templates see (`STUB_NOW`, or ``setNow(_:)`` later); `nil` means the real clock.
    public var fixedNow: Date? {
        state.withLock { $0.fixedNow }
    }
    /// The seed of random delays (`STUB_SEED`).
    public let seed: UInt64
    /// Every request the engine answered, refused or passed through, within the journal's limits.
    public let journal: StubJournal
    /// Records what goes to the network into a bundle (record mode); `nil` when not recording.
    public let recorder: Recorder?
    private let loader: BundleLoader
    /// Internal so that the engine's extensions (rules added at runtime) change it under the same lock.
    let state: Locked<Shared>
    /// What `canInit` found, for `startLoading` (see ``LookupMemo``).
    let lookups = LookupMemo()
    /// The slot this engine's own sessions route through, freed when the engine goes (see ``EngineSlots``).
    let slotLease = SlotLease()

    /// Everything that changes, replaced or updated under one lock.
    struct Shared: Sendable {
        var bundles: [StubBundle] = []
        /// Rules added at runtime (``addRule(_:)``), each a one-rule bundle, in the order added; they sit
        /// above every template in the index.
        var addedRules: [AddedRule] = []
        /// How many rules were ever added, for their ids.
        var addedRuleCount = 0
        var index = RuleIndex(bundles: [])
        var killSwitch = false
        var fixedNow: Date?
        /// Scenario name to current state; absent means ``ScenarioCondition/initialState``.
        var scenarioStates: [String: String] = [:]
        /// How many times each stateful rule has answered.
        var hits: [RuleIndex.RuleKey: Int] = [:]
    }

    /// An engine with no active bundle.
    ///
    /// - Parameters:
    ///   - mode: whether a bundle with errors is refused (``Mode/strict``) or its sound rules are served.
    ///   - killSwitch: fail every request no rule answers instead of letting it reach the network.
    ///   - now: the time templates see; `nil` for the real clock.
    ///   - seed: the seed of random delays, so a run can be repeated exactly.
    ///   - journalLimits: how many entries and body bytes the journal keeps.
    ///   - recorder: records what goes to the network into a bundle (record mode).
    public convenience init(mode: Mode = .strict, killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0,
                            journalLimits: StubJournal.Limits = .default, recorder: Recorder? = nil) {
        self.init(mode: mode, killSwitch: killSwitch, now: now, seed: seed, loaderOptions: .engine,
                  journalLimits: journalLimits, recorder: recorder)
    }

    /// The same, loading bundles with other checks (the linter's, for example).
    package init(mode: Mode = .strict, killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0,
                 loaderOptions: BundleLoader.Options, journalLimits: StubJournal.Limits = .default,
                 recorder: Recorder? = nil) {
        self.journal = StubJournal(limits: journalLimits)
        self.recorder = recorder
        self.mode = mode
        self.seed = seed
        self.loader = BundleLoader(options: loaderOptions)
        self.state = Locked(Shared(killSwitch: killSwitch, fixedNow: now))
    }

    /// The time templates see.
    public var now: Date { fixedNow ?? Date() }

    /// Fixes the time templates see from now on, or with `nil` returns them to the real clock.
    public func setNow(_ date: Date?) {
        state.withLock { $0.fixedNow = date }
    }

    // MARK: Activation

    /// Loads the bundle in `folder` and puts it on top of the active ones.
    ///
    /// - Returns: every diagnostic found (notes and warnings included).
    /// - Throws: ``StubKitError`` in strict mode when the bundle has errors; nothing is activated then.
    @discardableResult
    public func activate(folder: URL) throws(StubKitError) -> [Diagnostic] {
        let (bundle, diagnostics) = try load(folder: folder)
        activate(bundle)
        return diagnostics
    }

    /// Loads a bundle as ``activate(folder:)`` does, without activating it.
    package func load(folder: URL) throws(StubKitError) -> (StubBundle, [Diagnostic]) {
        let result = loader.load(folder: folder)
        if mode == .strict && result.diagnostics.hasErrors {
            throw .bundleHasErrors(template: result.bundle.template, diagnostics: result.diagnostics)
        }
        if result.bundle.rulesFile == nil && result.diagnostics.hasErrors {
            throw .bundleHasErrors(template: result.bundle.template, diagnostics: result.diagnostics)
        }
        return (result.bundle, result.diagnostics)
    }

    /// Puts an already loaded bundle on top of the active ones.
    package func activate(_ bundle: StubBundle) {
        let bundle = Self.withCachedHeaderFields(bundle)
        state.withLock { shared in
            shared.changeLayers { $0.bundles.append(bundle) }
        }
        lookups.removeAll()
    }

    /// Puts a freshly loaded bundle on top: a template already active is taken off first and its
    /// scenarios and sequences restart (see ``replace(template:with:)``), so activating one again
    /// reloads it and moves it up rather than stacking a second copy.
    package func activateOrReload(_ bundle: StubBundle) {
        if activeTemplates.contains(bundle.template) {
            replace(template: bundle.template, with: bundle)
        } else {
            activate(bundle)
        }
    }

    /// Deactivates every bundle of `template` in one step: a request answered meanwhile sees the
    /// active bundles before or after, never none. Scenarios and sequences restart, as after ``reset()``.
    public func deactivate(template: String) {
        replace(template: template, with: nil)
    }

    /// Takes every bundle of `template` off and puts `bundle` (its fresh load) on top, in one step, so
    /// activating an active template again never stacks a second copy. Scenarios and sequences restart.
    package func replace(template: String, with bundle: StubBundle?) {
        let bundle = bundle.map(Self.withCachedHeaderFields)
        state.withLock { shared in
            shared.bundles.removeAll { $0.template == template }
            if let bundle { shared.bundles.append(bundle) }
            shared.rebuildIndex()
            shared.scenarioStates = [:]
            shared.hits = [:]
        }
        lookups.removeAll()
    }

    /// Rules built or changed in code may not have their headers prepared; loaded ones have.
    static func withCachedHeaderFields(_ bundle: StubBundle) -> StubBundle {
        var bundle = bundle
        for i in bundle.rules.indices {
            if bundle.rules[i].response.cachedHeaderFields == nil { bundle.rules[i].response.cacheHeaderFields() }
            if var sequence = bundle.rules[i].sequence {
                for j in sequence.responses.indices where sequence.responses[j].cachedHeaderFields == nil {
                    sequence.responses[j].cacheHeaderFields()
                }
                bundle.rules[i].sequence = sequence
            }
        }
        return bundle
    }

    /// Deactivates every bundle, removes the rules added at runtime, and returns every scenario to its
    /// initial state and every sequence to its first response. The kill switch and the time keep their
    /// settings; the journal is cleared separately.
    public func reset() {
        state.withLock { shared in
            shared.bundles = []
            shared.addedRules = []
            shared.index = RuleIndex(bundles: [])
            shared.scenarioStates = [:]
            shared.hits = [:]
        }
        lookups.removeAll()
    }

    /// Returns scenarios and sequences to their start, keeping the active bundles.
    public func resetState() {
        state.withLock { shared in
            shared.scenarioStates = [:]
            shared.hits = [:]
        }
    }

    /// When on, requests that no rule answers fail at once instead of reaching the network.
    public var isKillSwitchOn: Bool {
        state.withLock { $0.killSwitch }
    }

    /// Turns the kill switch on or off for requests that start from now on.
    public func setKillSwitch(_ on: Bool) {
        state.withLock { $0.killSwitch = on }
    }

    /// Template names of the active bundles, in activation order.
    public var activeTemplates: [String] {
        state.withLock { $0.bundles.map(\.template) }
    }

    /// The active bundles, in activation order.
    package var activeBundles: [StubBundle] {
        state.withLock { $0.bundles }
    }

    /// The current state of a scenario.
    public func scenarioState(_ scenario: String) -> String {
        state.withLock { $0.scenarioStates[scenario] ?? ScenarioCondition.initialState }
    }

    /// Moves a scenario to `newState` for the requests that start from now on, as a rule's `setState`
    /// would; every scenario starts in the state `Started`.
    public func setScenarioState(_ scenario: String, to newState: String) {
        state.withLock { $0.scenarioStates[scenario] = newState }
    }

    var snapshot: Shared {
        state.withLock { $0 }
    }

    // MARK: Answering

    /// The rule that would answer a request now, without using it up (no sequence or state advances).
    package func match(_ request: StubRequest) -> StubMatch? {
        let (index, states) = state.withLock { ($0.index, $0.scenarioStates) }
        guard let (entry, parameters) = index.firstMatch(for: request, states: states) else { return nil }
        return StubMatch(rule: entry.rule, bundle: entry.bundle, parameters: parameters, response: entry.rule.response,
                         delay: entry.rule.response.delay, hit: 0)
    }

    /// What the engine does with a request: answer it (advancing sequences and scenarios), refuse it
    /// (kill switch), or let it through.
    package func decision(for request: StubRequest) -> Decision {
        decision(for: request, found: nil, bodyOnDemand: false)!
    }

    /// The same, reusing what `canInit` found for this request when it still holds (see ``LookupMemo``).
    ///
    /// With `bodyOnDemand`, the request's body is still (partly) in its stream (`bodyPending`) and can be
    /// read if needed: `nil` means "read the body and ask again", without using anything up. That is
    /// the answer unless a rule that ignores the body answers (body conditions or a template that reads
    /// it need the body; without a rule the request may be forwarded, or refused with near misses
    /// explained by the body). Decided on one look at the scenario states, so a scenario moved by
    /// another request cannot leave a body condition judged on an unread body.
    func decision(for request: StubRequest, found: LookupMemo.Found?, bodyOnDemand: Bool = false) -> Decision? {
        // Recording everything: the network answers, whatever the bundles say.
        if let recorder, recorder.recordsEverything, recorder.records(request) { return bodyOnDemand ? nil : .passThrough }
        let (index, killSwitch) = state.withLock { ($0.index, $0.killSwitch) }
        var states: [String: String] = [:]
        if index.hasStatefulRules {
            // Match and advance in one step under the lock, against the index current at that moment.
            var needsBody = false
            let answered: Decision? = state.withLock { shared in
                states = shared.scenarioStates
                guard let (entry, parameters) = shared.index.firstMatch(for: request, states: shared.scenarioStates) else { return nil }
                if bodyOnDemand && entry.rule.looksAtRequestBody {
                    needsBody = true
                    return nil
                }
                return answer(entry, parameters: parameters, shared: &shared)
            }
            if needsBody { return nil }
            if let answered { return answered }
        } else if let (entry, parameters) = found.flatMap({ $0.index === index ? $0.entry : nil })
                    .map({ ($0, Self.servingParameters(of: $0.rule, for: request)) }) ?? index.firstMatch(for: request) {
            if bodyOnDemand && entry.rule.looksAtRequestBody { return nil }
            let response = entry.rule.response
            return .answer(StubMatch(rule: entry.rule, bundle: entry.bundle, parameters: parameters, response: response,
                                     delay: response.delay, hit: 0))
        }
        if bodyOnDemand { return nil }
        if let batch = batchDecision(for: request, killSwitch: killSwitch) { return batch }
        // A recorder sends what no rule answers to the network, so it can be recorded.
        // Hosts it does not record follow the kill switch as without a recorder.
        guard killSwitch, !(recorder?.records(request) ?? false) else { return .passThrough }
        return .refuse(UnmatchedRequestReport(request: request, bundles: activeTemplates,
                                              nearMisses: NearMiss.closest(to: request, in: index, states: states)))
    }

    /// The path parameters of a rule `canInit` found, for serving: only a templated response reads
    /// them (``PreparedResponse``), so the others skip capturing them (a dictionary per request).
    /// ``decision(for:)`` and ``match(_:)`` always capture them.
    private static func servingParameters(of rule: StubRule, for request: StubRequest) -> [String: String] {
        guard rule.response.template != nil else { return [:] }
        return rule.request.path?.match(request.pathSegments) ?? [:]
    }

    /// Uses up one answer of a stateful rule: picks the sequence's response, draws the random delay,
    /// and moves the scenario. Called under the lock.
    func answer(_ entry: RuleIndex.Entry, parameters: [String: String], shared: inout Shared) -> Decision {
        let rule = entry.rule
        let hit = shared.hits[entry.key, default: 0]
        shared.hits[entry.key] = hit + 1
        if let newState = rule.newState, let scenario = rule.request.scenarioState?.scenario {
            shared.scenarioStates[scenario] = newState
        }
        let response: StubResponse
        if let sequence = rule.sequence {
            guard let next = sequence.response(forHit: hit) else {
                return .sequenceExhausted(rule: rule, bundle: entry.bundle, used: sequence.responses.count)
            }
            response = next
        } else {
            response = rule.response
        }
        var delay = response.delay
        if let range = response.delayRange {
            var random = SeededRandom(seed: seed, salt: "\(entry.bundle)|\(rule.source.file)|\(rule.source.index)", hit: hit)
            delay = range.lowerBound + (range.upperBound - range.lowerBound) * random.nextUnit()
        }
        return .answer(StubMatch(rule: rule, bundle: entry.bundle, parameters: parameters, response: response, delay: delay, hit: hit))
    }

    package enum Decision: Sendable {
        case answer(StubMatch)
        case refuse(UnmatchedRequestReport)
        /// The rule's `responses` are used up and its sequence says `fail`.
        case sequenceExhausted(rule: StubRule, bundle: String, used: Int)
        case passThrough
    }

    /// Whether the URL protocol should take the request at all. What it finds for a request that
    /// carries its whole body is kept for `startLoading` (see ``LookupMemo``).
    func handles(_ urlRequest: URLRequest) -> Bool {
        let (index, killSwitch, states) = state.withLock { ($0.index, $0.killSwitch, $0.scenarioStates) }
        // With the kill switch on every request is ours, so the request need not even be built.
        if killSwitch { return true }
        // Each part read once: a URLRequest's getters are not free in FoundationNetworking, and the
        // request and the memo's key are built from the same parts.
        let key = LookupMemo.Key(urlRequest)
        let bodyPending = key.body == nil && urlRequest.httpBodyStream != nil
        let request = StubRequest(key, bodyPending: bodyPending)
        // Recording: every http(s) request is ours, to be replayed or recorded.
        if recorder != nil { return ["http", "https"].contains(request.scheme) }
        if bodyPending || index.hasStatefulRules {
            return index.hasMatch(for: request, states: states) || answersSomeOperation(of: request, in: index, states: states)
        }
        guard let entry = index.firstEntry(for: request) else { return answersSomeOperation(of: request, in: index, states: states) }
        lookups.remember(key, LookupMemo.Found(request: request, index: index, entry: entry))
        return true
    }
}

/// The rule that answers a request, the bundle it came from, the path parameters it captured, and the
/// response chosen for this request (a sequence's next one) with its delay.
package struct StubMatch: Sendable {
    package var rule: StubRule
    package var bundle: String
    package var parameters: [String: String]
    package var response: StubResponse
    /// Seconds before the response starts (a random delay already drawn).
    package var delay: TimeInterval
    /// How many times the rule had answered before this request (0 for the first), for stateful rules.
    package var hit: Int
}
