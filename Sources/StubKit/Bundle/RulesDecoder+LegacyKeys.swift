import Foundation

/// The older Just Eat-style keys: read like the current ones, and noted once per file with their
/// current forms.
extension RulesDecoder {
    /// Records a legacy key for the one note per file; an empty `inline_response` gets its own note.
    mutating func noteLegacyKey(_ key: RuleKey, _ entry: SourceValue.Entry, keyPath: String) {
        // By index, not `firstIndex(where:)`, whose closure copied every use (keys and paths) per rule.
        var known = false
        for i in legacyUses.indices where legacyUses[i].key == key {
            legacyUses[i].count += 1
            known = true
            break
        }
        if !known { legacyUses.append((key, entry.keyPosition, "\(keyPath).\(entry.key)", 1)) }
        if key == .inlineResponse, entry.value.stringValue == "" {
            report(.legacyKey, at: entry.keyPosition, keyPath: "\(keyPath).\(entry.key)", "'inline_response' is empty, so it does nothing",
                   fix: "remove it")
        }
    }

    /// One note for the whole file, at the first legacy key, listing every legacy key used and its current form.
    mutating func reportLegacyKeys() {
        guard let first = legacyUses.first else { return }
        let used = legacyUses.map { use in "'\(use.key.rawValue)'" + (use.count > 1 ? " (\(use.count) times)" : "") }
        let forms = legacyUses.map { use in "\(use.key.rawValue) → \(Self.currentForm(ofLegacyKey: use.key))" }
        report(.legacyKey, at: first.position, keyPath: first.keyPath,
               "this file uses legacy keys, which still work: " + used.joined(separator: ", "),
               fix: "the current forms: " + forms.joined(separator: "; "))
    }

    /// How to write a legacy key today, for the note's fix.
    static func currentForm(ofLegacyKey key: RuleKey) -> String {
        switch key {
        case .jsonFile: return "'response' with the file name and its '.json'"
        case .statusCode: return "'status' as an integer"
        case .matchingURL: return "'urlRegex' (same meaning), or a 'path' pattern, which is faster and can be checked for shadowing"
        case .inlineResponse: return "'body' (an empty one does nothing)"
        default: return "'\((key.current ?? key).rawValue)'"
        }
    }
}
