import Foundation

/// Turns the parsed rules file of one bundle into rules, collecting every problem on the way.
///
/// It never stops at the first problem: each rule is checked fully, and a rule with an error is left
/// out of the result but reported, never dropped in silence. This file holds the walk over the file
/// and the assembly of one rule; the keys' values are read in the `RulesDecoder+…` extensions.
struct RulesDecoder {
    /// The rules file as diagnostics name it.
    let file: String
    /// The bundle folder, for response files.
    let folder: URL
    let options: BundleLoader.Options
    private(set) var diagnostics: [Diagnostic] = []
    /// Whether the bundle says it was recorded (`recordedAt`): its query values are what a client sent,
    /// written by the recorder or an importer, not by hand.
    private(set) var isRecorded = false
    private var errorCount = 0
    /// Files inside the bundle that some rule names (standardized paths).
    var referencedFiles: Set<String> = []
    /// Legacy keys used, in order of first use, with where first used and how many times: one note per file.
    var legacyUses: [(key: RuleKey, position: SourcePosition?, keyPath: String, count: Int)] = []

    init(file: String, folder: URL, options: BundleLoader.Options) {
        self.file = file
        self.folder = folder.standardizedFileURL
        self.options = options
    }

    /// What the top-level dictionary gives every rule.
    struct Defaults {
        var host: String?
        var headers: [(name: String, value: String)] = []
        var requestHeaders: [String: String] = [:]
        var delay: TimeInterval = 0
    }

    /// A key that gives a response body, and where, for the check that only one does.
    typealias BodySource = (key: String, position: SourcePosition?)

    /// What one rule's keys say, gathered before the checks that need several keys at once.
    struct RuleDraft {
        var request: RequestConditions
        var response: StubResponse
        var name: String? = nil
        var priority = 0
        var bodySources: [BodySource] = []
        var responseItems: [(value: SourceValue, keyPath: String)]? = nil
        var whenExhausted = ResponseSequence.Exhausted.repeatLast
        var scenario: String? = nil, whenState: String? = nil, newState: String? = nil
        var isTemplate = false
        /// The `webSocket` script, read once the rule's other keys are (its templates need `template`).
        var webSocketValue: SourceValue? = nil

        init(defaults: Defaults) {
            // (`mapValues` allocates even for the empty dictionary most files have.)
            request = RequestConditions(host: defaults.host, headers: defaults.requestHeaders.isEmpty ? [:] : defaults.requestHeaders.mapValues { .equals($0) })
            response = StubResponse(headers: defaults.headers, delay: defaults.delay)
        }
    }

    // MARK: Top level

    mutating func decode(_ root: SourceValue) -> [StubRule] {
        let rules = decodeTopLevel(root)
        reportLegacyKeys()
        return rules
    }

    private mutating func decodeTopLevel(_ root: SourceValue) -> [StubRule] {
        switch root.kind {
        case .array(let items) where !root.isSet:
            return decodeRules(items, keyPathPrefix: "", defaults: Defaults())
        case .dictionary(let entries):
            var defaults = Defaults()
            var rulesValue: SourceValue? = nil
            var seen: SeenKeys = []
            for entry in entries {
                guard checkDuplicate(entry, keyPath: "", seen: &seen) else { continue }
                switch RuleKey(rawValue: entry.key) {
                case .rules:
                    if entry.value.arrayValue != nil { rulesValue = entry.value }
                    else { wrongType(entry.value, keyPath: entry.key, expected: "an array of rule dictionaries") }
                case .name, .description:
                    _ = string(entry.value, keyPath: entry.key)
                case .recordedAt:
                    _ = string(entry.value, keyPath: entry.key)
                    isRecorded = true
                case .host:
                    defaults.host = host(entry.value, keyPath: entry.key)
                case .headers:
                    defaults.headers = stringPairs(entry.value, keyPath: entry.key) ?? []
                case .requestHeaders:
                    defaults.requestHeaders = stringDictionary(entry.value, keyPath: entry.key) ?? [:]
                case .delay:
                    defaults.delay = delay(entry.value, keyPath: entry.key) ?? 0
                default:
                    unknownKey(entry, keyPath: "", candidates: RuleKeys.topLevel)
                }
            }
            guard let rulesValue, let items = rulesValue.arrayValue else {
                if !entries.contains(where: { $0.key == RuleKey.rules.rawValue }) {
                    report(.missingKey, at: root.position, keyPath: "", "the top-level dictionary has no 'rules' key",
                           fix: "put the rules in an array under 'rules'")
                }
                return []
            }
            return decodeRules(items, keyPathPrefix: RuleKey.rules.rawValue, defaults: defaults)
        default:
            report(.invalidTopLevel, at: root.position, keyPath: "",
                   "the top level is \(root.typeDescription); expected an array of rules or a dictionary with 'rules'")
            return []
        }
    }

    private mutating func decodeRules(_ items: [SourceValue], keyPathPrefix: String, defaults: Defaults) -> [StubRule] {
        var rules: [StubRule] = []
        // A rule is a large value: growing the array by doubling copied 10,000 of them about 14 times.
        rules.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            let keyPath = "\(keyPathPrefix)[\(index)]"
            let errorsBefore = errorCount
            guard let rule = decodeRule(item, index: index, keyPath: keyPath, defaults: defaults) else { continue }
            // A rule with an error is reported and left out, so lenient mode serves only sound rules.
            if errorCount == errorsBefore { rules.append(rule) }
        }
        return rules
    }

    // MARK: One rule

    /// One rule object on its own, as a test runner adds it at runtime: decoded and checked as an
    /// item of a bundle's rule list (without top-level defaults), under the key path `rule`. `nil`
    /// when it has an error; the diagnostics say why.
    mutating func decodeSingleRule(_ value: SourceValue) -> StubRule? {
        let errorsBefore = errorCount
        let rule = decodeRule(value, index: 0, keyPath: "rule", defaults: Defaults())
        reportLegacyKeys()
        return errorCount == errorsBefore ? rule : nil
    }

    /// One rule: its keys read one by one, then the checks that span keys, then its templates and its
    /// sequence of responses.
    private mutating func decodeRule(_ value: SourceValue, index: Int, keyPath: String, defaults: Defaults) -> StubRule? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a rule dictionary")
            return nil
        }
        var draft = RuleDraft(defaults: defaults)
        var seen = SeenKeys(capacity: entries.count)
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            decodeRuleKey(entry, into: &draft, keyPath: keyPath)
        }
        checkURLConditions(of: draft.request, entries: entries, at: value.position, keyPath: keyPath)
        checkBodySources(draft.bodySources, error: draft.response.error, keyPath: keyPath)
        checkScenario(of: &draft, entries: entries, keyPath: keyPath)
        checkAfterLast(of: draft, entries: entries, keyPath: keyPath)
        checkEventStream(&draft.response, entries: entries, keyPath: keyPath)
        noteOperationNameInBody(draft.request, entries: entries, keyPath: keyPath)

        // Templates are parsed now, so an unknown field is reported at load time, not when served.
        let pathParameters: Set<String>? = draft.request.path.map { pattern in
            Set(pattern.components.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } })
        }
        var webSocket: WebSocketScript? = nil
        if let script = draft.webSocketValue {
            checkWebSocketRule(&draft, entries: entries, keyPath: keyPath)
            webSocket = webSocketScript(script, isTemplate: draft.isTemplate, pathParameters: pathParameters, keyPath: "\(keyPath).webSocket")
        }
        if draft.isTemplate {
            draft.response.template = templates(for: draft.response, pathParameters: pathParameters, keyPath: keyPath, entries: entries)
            eventTemplates(of: &draft.response, pathParameters: pathParameters, keyPath: keyPath)
        }
        draft.response.cacheHeaderFields()
        let sequence = decodeSequence(of: &draft, pathParameters: pathParameters, ruleEntries: entries)
        checkStreamedStates(of: draft, sequence: sequence, webSocket: webSocket, entries: entries, keyPath: keyPath)

        let source = RuleSource(file: file, position: value.position, index: index, keyPath: keyPath)
        return StubRule(name: draft.name, source: source, request: draft.request, response: draft.response, sequence: sequence,
                        newState: draft.newState, priority: draft.priority, webSocket: webSocket)
    }

    /// One key of a rule: a request condition, a response key, or one of the rule's options.
    private mutating func decodeRuleKey(_ entry: SourceValue.Entry, into draft: inout RuleDraft, keyPath: String) {
        guard let key = RuleKey(rawValue: entry.key) else {
            unknownKey(entry, keyPath: keyPath, candidates: RuleKeys.rule)
            return
        }
        if options.reportLegacyKeys, key.current != nil { noteLegacyKey(key, entry, keyPath: keyPath) }
        // Built only when a diagnostic needs it (every key of every rule goes through here).
        func path() -> String { "\(keyPath).\(entry.key)" }
        switch key {
        case .method, .httpMethod, .path, .urlRegex, .matchingURL, .host, .scheme, .query, .requestHeaders, .requestBody, .graphql:
            decodeRequestKey(key, entry, into: &draft.request, keyPath: keyPath)
        case .name:
            draft.name = string(entry.value, keyPath: path())
        case .responses:
            guard let items = entry.value.arrayValue else {
                wrongType(entry.value, keyPath: path(), expected: "an array of response dictionaries")
                return
            }
            if items.isEmpty {
                report(.invalidValue, at: entry.value.position, keyPath: path(), "the sequence has no responses",
                       fix: "give at least one response, or remove 'responses'")
            }
            draft.responseItems = items.enumerated().map { ($0.element, "\(keyPath).responses[\($0.offset)]") }
        case .afterLast:
            guard let text = string(entry.value, keyPath: path()) else { return }
            if let mode = ResponseSequence.Exhausted(rawValue: text) {
                draft.whenExhausted = mode
            } else {
                let options = ResponseSequence.Exhausted.allCases.map(\.rawValue)
                report(.invalidValue, at: entry.value.position, keyPath: path(), "'\(text)' is not a sequence mode",
                       fix: Suggestion.closest(to: text, in: options).map { "did you mean '\($0)'?" } ?? "use one of: " + options.joined(separator: ", "))
            }
        case .scenario:
            draft.scenario = string(entry.value, keyPath: path())
        case .whenState:
            draft.whenState = string(entry.value, keyPath: path())
        case .setState:
            draft.newState = string(entry.value, keyPath: path())
        case .template:
            if case .bool(let b) = entry.value.kind { draft.isTemplate = b } else { wrongType(entry.value, keyPath: path(), expected: "true or false") }
        case .priority:
            if let p = integer(entry.value, keyPath: path()) { draft.priority = p }
        case .webSocket:
            draft.webSocketValue = entry.value
        default:
            if key.isResponse {
                decodeResponseKey(key, entry, into: &draft.response, bodySources: &draft.bodySources, keyPath: keyPath)
            } else {
                // A top-level key inside a rule. Legacy keys are read, never suggested: a newcomer should learn the current ones.
                unknownKey(entry, keyPath: keyPath, candidates: RuleKeys.rule)
            }
        }
    }

    // MARK: Checks across keys

    /// A rule needs one URL condition: a `path` pattern or a `urlRegex`, not both.
    private mutating func checkURLConditions(of request: RequestConditions, entries: [SourceValue.Entry], at position: SourcePosition?, keyPath: String) {
        let urlExpression = entries.first { $0.key == RuleKey.urlRegex.rawValue || $0.key == RuleKey.matchingURL.rawValue }
        if request.path == nil && request.urlPattern == nil {
            // An unknown 'url' (or another key meaning the path) was already reported with its fix.
            let hadBadPath = entries.contains { entry in
                RuleKey(rawValue: entry.key)?.isURLCondition == true
                    || Suggestion.aliases[entry.key.lowercased()].map { $0 == .path || $0 == .urlRegex } == true
            }
            if !hadBadPath {
                report(.missingKey, at: position, keyPath: keyPath, "the rule has no 'path'",
                       fix: "add a path pattern such as \"path\": \"/restaurants/{id}\" (or \"/**\" to match every path)")
            }
        }
        if entries.contains(where: { $0.key == RuleKey.path.rawValue }), let key = urlExpression {
            report(.conflictingKeys, at: key.keyPosition, keyPath: "\(keyPath).\(key.key)", "'path' and '\(key.key)' cannot be used together",
                   fix: "keep one of them")
        }
        // A URL expression without a literal to look for costs a run on every request (SK080
        // already says so, and more, for expressions outside the linear-time subset).
        if request.path == nil, let pattern = request.urlPattern, pattern.isLinear, pattern.indexLiterals.isEmpty, let key = urlExpression {
            report(.alwaysCheckedRegex, at: key.value.position, keyPath: "\(keyPath).\(key.key)",
                   "regular expression '\(pattern.pattern)' has no literal text the index can look for in a URL, so it is checked on every request",
                   fix: "include a literal part of the URL such as '/users/' or 'api\\.example\\.com', or use a 'path' pattern")
        }
    }

    /// `whenState` and `setState` need a scenario to belong to.
    private mutating func checkScenario(of draft: inout RuleDraft, entries: [SourceValue.Entry], keyPath: String) {
        if let scenario = draft.scenario {
            draft.request.scenarioState = ScenarioCondition(scenario: scenario, state: draft.whenState)
        } else if draft.whenState != nil || draft.newState != nil {
            let key = entries.first { $0.key == RuleKey.whenState.rawValue || $0.key == RuleKey.setState.rawValue }!
            report(.missingKey, at: key.keyPosition, keyPath: "\(keyPath).\(key.key)", "'\(key.key)' needs a 'scenario' to belong to",
                   fix: "add \"scenario\": \"NAME\" to the rule")
        }
    }

    private mutating func checkAfterLast(of draft: RuleDraft, entries: [SourceValue.Entry], keyPath: String) {
        guard draft.responseItems == nil, let key = entries.first(where: { $0.key == RuleKey.afterLast.rawValue }) else { return }
        report(.conflictingKeys, at: key.keyPosition, keyPath: "\(keyPath).afterLast", "'afterLast' applies to 'responses', which the rule does not have",
               fix: "add 'responses' or remove 'afterLast'")
    }

    // MARK: Reporting

    /// Reports a repeated key; returns false for the repeat, which is then skipped.
    mutating func checkDuplicate(_ entry: SourceValue.Entry, keyPath: @autoclosure () -> String, seen: inout SeenKeys) -> Bool {
        if seen.insert(entry.key) { return true }
        report(.duplicateKey, at: entry.keyPosition, keyPath: keyPath().isEmpty ? entry.key : "\(keyPath()).\(entry.key)",
               "key '\(entry.key)' appears twice in the same dictionary; the first one is used", fix: "remove one of them")
        return false
    }

    mutating func unknownKey(_ entry: SourceValue.Entry, keyPath: @autoclosure () -> String, candidates: [String]) {
        let suggestion = Suggestion.closest(to: entry.key, in: candidates)
        var fix = suggestion.map { "did you mean '\($0)'?" }
        if suggestion == RuleKey.path.rawValue, candidates.contains(RuleKey.urlRegex.rawValue) {
            fix = "did you mean 'path' (a pattern over the URL path, such as \"/orders/{id}\") or 'urlRegex' (a regular expression over the whole URL)?"
        }
        // A megabyte-long key is quoted by its start only, so one bad key cannot make a megabyte of output.
        let shown = entry.key.utf8.count > 200 ? String(entry.key.prefix(60)) + "… (\(entry.key.utf8.count) bytes)" : entry.key
        report(.unknownKey, at: entry.keyPosition, keyPath: keyPath().isEmpty ? shown : "\(keyPath()).\(shown)",
               "unknown key '\(shown)'", fix: fix)
    }

    mutating func wrongType(_ value: SourceValue, keyPath: @autoclosure () -> String, expected: String) {
        report(.wrongType, at: value.position, keyPath: keyPath(), "expected \(expected), found \(value.typeDescription)")
    }

    mutating func report(_ code: DiagnosticCode, at position: SourcePosition?, keyPath: @autoclosure () -> String, _ message: String, fix: String? = nil) {
        let diagnostic = Diagnostic(code, file: file, position: position, keyPath: keyPath(), message: message, fix: fix)
        if diagnostic.severity == .error { errorCount += 1 }
        diagnostics.append(diagnostic)
    }
}
