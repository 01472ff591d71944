import Foundation

/// Applies runtime-control commands to an app's engine: what each command means, without sockets.
///
/// Templates are found as at launch (the same search folders) and layer the same way: activating
/// one puts it on top, and activating an active one reloads it and moves it on top, as the local
/// server's admin API does. Rules and templates added here are announced on the live journal, so the
/// runner can name the rule that answered and tell which were never used.
package struct ControlCommandHandler: Sendable {
    package let engine: StubEngine
    package let locator: BundleLocator

    package init(engine: StubEngine, locator: BundleLocator) {
        self.engine = engine
        self.locator = locator
    }

    /// Applies `command` and says how it went; never throws, never stops the app.
    package func handle(_ command: ControlCommand, id: Int) -> ControlReply {
        do {
            return try apply(command, id: id)
        } catch {
            return ControlReply(id: id, ok: false, error: error.description, diagnostics: error.diagnostics)
        }
    }

    private func apply(_ command: ControlCommand, id: Int) throws(StubKitError) -> ControlReply {
        switch command {
        case .activate(let template):
            let folder = try locator.requireFolder(for: template)
            let (bundle, diagnostics) = try engine.load(folder: folder)
            engine.activateOrReload(bundle)
            engine.journal.announceRules(LiveJournalLine.Rule.rules(of: bundle))
            return ControlReply(id: id, ok: true, diagnostics: diagnostics)
        case .deactivate(let template):
            let active = engine.activeTemplates
            guard active.contains(template) else {
                return ControlReply(id: id, ok: false, error: "template '\(template)' is not active (active: \(active.isEmpty ? "none" : active.joined(separator: ", ")))")
            }
            engine.deactivate(template: template)
        case .addRule(let json):
            let (rule, diagnostics) = BundleLoader(options: .engine).decodeRule(json, file: "added rule")
            guard let rule else {
                let errors = diagnostics.errors.sortedForDisplay()
                return ControlReply(id: id, ok: false, error: "the rule has \(errors.count) error\(errors.count == 1 ? "" : "s") and was not added:\n"
                                        + errors.map { "  " + $0.description }.joined(separator: "\n"), diagnostics: diagnostics)
            }
            let added = engine.addRule(rule)
            engine.journal.announceRules(LiveJournalLine.Rule.rules(of: added.bundle))
            return ControlReply(id: id, ok: true, ruleID: added.id, diagnostics: diagnostics)
        case .removeRule(let ruleID):
            guard engine.removeRule(id: ruleID) else {
                let known = engine.addedRuleIDs
                return ControlReply(id: id, ok: false, error: "no added rule '\(ruleID)' (added: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
            }
        case .setScenarioState(let scenario, let state):
            // A name no rule uses would be set without effect: a typo the test would never hear of.
            let known = engine.scenarioNames
            guard known.contains(scenario) else {
                let suggestion = Suggestion.closest(to: scenario, in: known).map { "; did you mean '\($0)'?" } ?? ""
                return ControlReply(id: id, ok: false, error: "no active or added rule uses scenario '\(scenario)'\(suggestion) (scenarios in use: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", ")))")
            }
            engine.setScenarioState(scenario, to: state)
        case .resetState:
            engine.resetState()
        case .setKillSwitch(let on):
            engine.setKillSwitch(on)
        case .setNow(let date):
            engine.setNow(date)
        case .clearJournal:
            engine.journal.clear()
        }
        return ControlReply(id: id, ok: true)
    }
}
