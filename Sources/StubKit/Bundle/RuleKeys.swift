/// Names a rules file uses, as strings: for code that handles rules as untyped dictionaries (the legacy
/// migrator), for suggestions, and the file names and methods the loader accepts.
package enum RuleKeys {
    /// Keys that describe a response: allowed on a rule and on each item of its `responses`.
    package static let response: [String] = RuleKey.names(RuleKey.responseKeys)

    /// Keys of one rule: its request conditions and options, and the response keys.
    package static let rule: [String] = RuleKey.names(RuleKey.ruleKeys)

    /// Keys of the older Just Eat-style format, still read, each with its current form.
    package static let legacy: [String: String] = Dictionary(uniqueKeysWithValues: RuleKey.allCases.compactMap { key in
        key.current.map { (key.rawValue, $0.rawValue) }
    })

    /// Keys of the top-level dictionary form.
    package static let topLevel: [String] = RuleKey.names(RuleKey.topLevelKeys)

    /// Methods accepted in `method`.
    package static let httpMethods: [String] = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
    ]

    /// Names of rules files, in the order they are looked for.
    package static let rulesFileNames: [String] = [
        "stubsRules.json", "stubsRules.plist", "stubRules.json", "stubRules.plist",
    ]
}
