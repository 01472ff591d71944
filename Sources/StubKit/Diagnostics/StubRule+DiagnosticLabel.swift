extension StubRule {
    /// How a diagnostic names this rule: by its `name` when it has one, always with its index and where it
    /// is written, `rule 'menu (legacy)' [1] (b/stubsRules.json:9:5)`; a rule without a name shows what it
    /// matches instead, `rule [1] GET /menu (b/stubsRules.json:9:5)`.
    var diagnosticLabel: String {
        "\(diagnosticShortLabel) (\(source.position.map { "\(source.file):\($0.line):\($0.column)" } ?? source.file))"
    }

    /// ``diagnosticLabel`` without the location, for a second mention in the same message.
    var diagnosticShortLabel: String {
        if let name { return "rule '\(name)' \(source.keyPath)" }
        return "rule \(source.keyPath) \(displayName)"
    }
}
