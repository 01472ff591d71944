import Foundation

/// Rules added while the engine serves (a test runner's runtime control): each is a one-rule layer
/// above every template, so a rule a test adds answers before the templates' rules of the same
/// priority, whatever is activated later; among added rules, the one added last comes first. A rule's
/// `priority` still orders it as in a bundle.
extension StubEngine {
    /// A rule added at runtime, with the id that removes it.
    package struct AddedRule: Sendable {
        package var id: String
        package var bundle: StubBundle
    }

    /// The bundle name that journal entries and live journal lines give a rule added at runtime.
    package static let addedRulesBundleName = "(added at runtime)"

    /// Adds a decoded rule above the active templates and returns it with the id that removes it
    /// (`rule-1`, `rule-2`, … in the order added, never reused); the id is also the rule's file in
    /// journals (`rule-1:1:1`). Scenarios, sequences and hit counts of the other rules carry on.
    @discardableResult
    package func addRule(_ rule: StubRule) -> AddedRule {
        let added = state.withLock { shared -> AddedRule in
            shared.addedRuleCount += 1
            var rule = rule
            rule.source.file = "rule-\(shared.addedRuleCount)"
            let bundle = Self.withCachedHeaderFields(StubBundle(template: Self.addedRulesBundleName, folder: URL(fileURLWithPath: "/"),
                                                                rulesFile: nil, rules: [rule]))
            let added = AddedRule(id: rule.source.file, bundle: bundle)
            shared.changeLayers { $0.addedRules.append(added) }
            return added
        }
        lookups.removeAll()
        return added
    }

    /// The scenarios the active templates and added rules name, for a suggestion when a test names
    /// one no rule uses.
    package var scenarioNames: Set<String> {
        state.withLock { shared in
            Set((shared.bundles + shared.addedRules.map(\.bundle)).flatMap(\.rules).compactMap { $0.request.scenarioState?.scenario })
        }
    }

    /// Removes a rule added at runtime; `false` when no added rule has that id.
    @discardableResult
    package func removeRule(id: String) -> Bool {
        let removed = state.withLock { shared -> Bool in
            guard shared.addedRules.contains(where: { $0.id == id }) else { return false }
            shared.changeLayers { $0.addedRules.removeAll { $0.id == id } }
            return true
        }
        lookups.removeAll()
        return removed
    }

    /// The ids of the rules added at runtime, in the order added.
    package var addedRuleIDs: [String] {
        state.withLock { $0.addedRules.map(\.id) }
    }
}

extension StubEngine.Shared {
    /// Every layer in matching order from the bottom: the templates in activation order, then the
    /// rules added at runtime.
    var layers: [StubBundle] { bundles + addedRules.map(\.bundle) }

    mutating func rebuildIndex() {
        index = RuleIndex(bundles: layers)
    }

    /// Changes the layers and rebuilds the index, keeping each stateful rule's hit count with its rule:
    /// counts are keyed by layer position, which an added or removed layer shifts.
    mutating func changeLayers(_ change: (inout Self) -> Void) {
        let before = layers
        change(&self)
        rebuildIndex()
        guard !hits.isEmpty else { return }
        let after = layers
        // Layers are told apart by their template (unique among templates) or, for added rules, the rule's file.
        func identity(_ bundle: StubBundle) -> String { bundle.template + "\u{0}" + (bundle.rules.first?.source.file ?? "") }
        var newOrder: [String: Int] = [:]
        for (order, bundle) in after.enumerated() { newOrder[identity(bundle)] = order }
        var moved: [RuleIndex.RuleKey: Int] = [:]
        for (key, count) in hits where key.bundleOrder < before.count {
            guard let order = newOrder[identity(before[key.bundleOrder])] else { continue }
            moved[RuleIndex.RuleKey(bundleOrder: order, ruleIndex: key.ruleIndex)] = count
        }
        hits = moved
    }
}
