import Foundation

/// Turns the parsed rules file of one bundle into rules, collecting every problem on the way.
///
/// It never stops at the first problem: each rule is checked fully, and a rule with an error is left
/// out of the result but reported, never dropped in silence.
struct RulesDecoder {
    /// The rules file as diagnostics name it.
    let file: String
    /// The bundle folder, for response files.
    let folder: URL
    let options: BundleLoader.Options
    private(set) var diagnostics: [Diagnostic] = []
    /// Whether the bundle says it was recorded (`recordedAt`): its query values are what a client sent,
    /// written by the recorder or an importer, not by hand.
    private var isRecorded = false
    private var errorCount = 0
    /// Files inside the bundle that some rule names (standardized paths).
    private(set) var referencedFiles: Set<String> = []
    /// Legacy keys used, in order of first use, with where first used and how many times: one note per file.
    private var legacyUses: [(key: String, position: SourcePosition?, keyPath: String, count: Int)] = []

    init(file: String, folder: URL, options: BundleLoader.Options) {
        self.file = file
        self.folder = folder.standardizedFileURL
        self.options = options
    }

    private struct Defaults {
        var host: String?
        var headers: [(name: String, value: String)] = []
        var requestHeaders: [String: String] = [:]
        var delay: TimeInterval = 0
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
                switch entry.key {
                case "rules":
                    if entry.value.arrayValue != nil { rulesValue = entry.value }
                    else { wrongType(entry.value, keyPath: "rules", expected: "an array of rule dictionaries") }
                case "name", "description", "recordedAt":
                    _ = string(entry.value, keyPath: entry.key)
                    if entry.key == "recordedAt" { isRecorded = true }
                case "host":
                    defaults.host = host(entry.value, keyPath: "host")
                case "headers":
                    defaults.headers = stringPairs(entry.value, keyPath: "headers") ?? []
                case "requestHeaders":
                    defaults.requestHeaders = stringDictionary(entry.value, keyPath: "requestHeaders") ?? [:]
                case "delay":
                    defaults.delay = delay(entry.value, keyPath: "delay") ?? 0
                default:
                    unknownKey(entry, keyPath: "", candidates: RuleKeys.topLevel)
                }
            }
            guard let rulesValue, let items = rulesValue.arrayValue else {
                if !entries.contains(where: { $0.key == "rules" }) {
                    report(.missingKey, at: root.position, keyPath: "", "the top-level dictionary has no 'rules' key",
                           fix: "put the rules in an array under 'rules'")
                }
                return []
            }
            return decodeRules(items, keyPathPrefix: "rules", defaults: defaults)
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

    static func isResponseKey(_ key: String) -> Bool {
        RuleKeys.responseAndLegacy.contains(key)
    }

    private mutating func decodeRule(_ value: SourceValue, index: Int, keyPath: String, defaults: Defaults) -> StubRule? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath, expected: "a rule dictionary")
            return nil
        }
        // (`mapValues` allocates even for the empty dictionary most files have.)
        var request = RequestConditions(host: defaults.host, headers: defaults.requestHeaders.isEmpty ? [:] : defaults.requestHeaders.mapValues { .equals($0) })
        var response = StubResponse(headers: defaults.headers, delay: defaults.delay)
        var name: String? = nil
        var priority = 0
        var bodySources: [(key: String, position: SourcePosition?)] = []
        var seen = SeenKeys(capacity: entries.count)
        var responseItems: [(value: SourceValue, keyPath: String)]? = nil
        var whenExhausted = ResponseSequence.Exhausted.repeatLast
        var scenario: String? = nil, whenState: String? = nil, newState: String? = nil
        var isTemplate = false

        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath, seen: &seen) else { continue }
            // Every legacy key has an underscore; checking for one first spares a hash per key.
            if options.reportLegacyKeys, entry.key.utf8.contains(UInt8(ascii: "_")), RuleKeys.legacy[entry.key] != nil {
                noteLegacyKey(entry, keyPath: keyPath)
            }
            if Self.isResponseKey(entry.key) {
                decodeResponseKey(entry, into: &response, bodySources: &bodySources, keyPath: keyPath)
                continue
            }
            switch entry.key {
            case "name":
                name = string(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "method", "http_method":
                request.methods = methods(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "path":
                guard let text = string(entry.value, keyPath: "\(keyPath).\(entry.key)") else { continue }
                do {
                    request.path = try PathPattern(parsing: text)
                } catch {
                    report(.invalidPathPattern, at: entry.value.position, keyPath: "\(keyPath).\(entry.key)", "invalid path pattern '\(text)': \(error.message)", fix: error.fix)
                }
            case "urlRegex", "matching_url":
                request.urlPattern = regex(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "host":
                request.host = host(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "scheme":
                guard let text = string(entry.value, keyPath: "\(keyPath).\(entry.key)") else { continue }
                if ["http", "https"].contains(text.lowercased()) {
                    request.scheme = text.lowercased()
                } else {
                    report(.invalidValue, at: entry.value.position, keyPath: "\(keyPath).\(entry.key)", "scheme '\(text)' is not http or https", fix: "write \"http\" or \"https\"")
                }
            case "query":
                if let matchers = valueMatchers(entry.value, keyPath: "\(keyPath).\(entry.key)", areQuery: true) { request.query = matchers }
            case "requestHeaders":
                if let matchers = valueMatchers(entry.value, keyPath: "\(keyPath).\(entry.key)", areHeaders: true) {
                    request.headers.merge(matchers) { _, new in new }
                }
            case "requestBody":
                request.body = bodyMatchers(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "responses":
                guard let items = entry.value.arrayValue else {
                    wrongType(entry.value, keyPath: "\(keyPath).\(entry.key)", expected: "an array of response dictionaries")
                    continue
                }
                if items.isEmpty {
                    report(.invalidValue, at: entry.value.position, keyPath: "\(keyPath).\(entry.key)", "the sequence has no responses",
                           fix: "give at least one response, or remove 'responses'")
                }
                responseItems = items.enumerated().map { ($0.element, "\(keyPath).responses[\($0.offset)]") }
            case "afterLast":
                guard let text = string(entry.value, keyPath: "\(keyPath).\(entry.key)") else { continue }
                if let mode = ResponseSequence.Exhausted(rawValue: text) {
                    whenExhausted = mode
                } else {
                    let options = ResponseSequence.Exhausted.allCases.map(\.rawValue)
                    report(.invalidValue, at: entry.value.position, keyPath: "\(keyPath).\(entry.key)", "'\(text)' is not a sequence mode",
                           fix: Suggestion.closest(to: text, in: options).map { "did you mean '\($0)'?" } ?? "use one of: " + options.joined(separator: ", "))
                }
            case "scenario":
                scenario = string(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "whenState":
                whenState = string(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "setState":
                newState = string(entry.value, keyPath: "\(keyPath).\(entry.key)")
            case "template":
                if case .bool(let b) = entry.value.kind { isTemplate = b } else { wrongType(entry.value, keyPath: "\(keyPath).\(entry.key)", expected: "true or false") }
            case "priority":
                if let p = integer(entry.value, keyPath: "\(keyPath).\(entry.key)") { priority = p }
            default:
                // Legacy keys are read, never suggested: a newcomer should learn the current ones.
                unknownKey(entry, keyPath: keyPath, candidates: RuleKeys.rule)
            }
        }

        if request.path == nil && request.urlPattern == nil {
            // An unknown 'url' (or another key meaning the path) was already reported with its fix.
            let hadBadPath = entries.contains {
                ["path", "urlRegex", "matching_url"].contains($0.key) || ["path", "urlRegex"].contains(Suggestion.aliases[$0.key.lowercased()] ?? "")
            }
            if !hadBadPath {
                report(.missingKey, at: value.position, keyPath: keyPath, "the rule has no 'path'",
                       fix: "add a path pattern such as \"path\": \"/restaurants/{id}\" (or \"/**\" to match every path)")
            }
        }
        if entries.contains(where: { $0.key == "path" }) && entries.contains(where: { $0.key == "urlRegex" || $0.key == "matching_url" }) {
            let key = entries.first { $0.key == "urlRegex" || $0.key == "matching_url" }!
            report(.conflictingKeys, at: key.keyPosition, keyPath: "\(keyPath).\(key.key)", "'path' and '\(key.key)' cannot be used together",
                   fix: "keep one of them")
        }
        // A URL expression without a literal to look for costs a run on every request (SK080
        // already says so, and more, for expressions outside the linear-time subset).
        if request.path == nil, let pattern = request.urlPattern, pattern.isLinear, pattern.indexLiterals.isEmpty,
           let key = entries.first(where: { $0.key == "urlRegex" || $0.key == "matching_url" }) {
            report(.alwaysCheckedRegex, at: key.value.position, keyPath: "\(keyPath).\(key.key)",
                   "regular expression '\(pattern.pattern)' has no literal text the index can look for in a URL, so it is checked on every request",
                   fix: "include a literal part of the URL such as '/users/' or 'api\\.example\\.com', or use a 'path' pattern")
        }
        checkBodySources(bodySources, error: response.error, keyPath: keyPath)

        // Scenarios: whenState and setState need a scenario to belong to.
        if let scenario {
            request.scenarioState = ScenarioCondition(scenario: scenario, state: whenState)
        } else if whenState != nil || newState != nil {
            let key = entries.first { $0.key == "whenState" || $0.key == "setState" }!
            report(.missingKey, at: key.keyPosition, keyPath: "\(keyPath).\(key.key)", "'\(key.key)' needs a 'scenario' to belong to",
                   fix: "add \"scenario\": \"NAME\" to the rule")
        }
        if entries.contains(where: { $0.key == "afterLast" }) && responseItems == nil {
            let key = entries.first { $0.key == "afterLast" }!
            report(.conflictingKeys, at: key.keyPosition, keyPath: "\(keyPath).afterLast", "'afterLast' applies to 'responses', which the rule does not have",
                   fix: "add 'responses' or remove 'afterLast'")
        }

        // Templates are parsed now, so an unknown field is reported at load time, not when served.
        let pathParameters: Set<String>? = request.path.map { pattern in
            Set(pattern.components.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } })
        }
        if isTemplate { response.template = templates(for: response, pathParameters: pathParameters, keyPath: keyPath, entries: entries) }
        response.cacheHeaderFields()

        var sequence: ResponseSequence? = nil
        if let responseItems, !responseItems.isEmpty {
            var responses: [StubResponse] = []
            for (item, itemPath) in responseItems {
                guard let itemEntries = item.dictionaryValue else {
                    wrongType(item, keyPath: itemPath, expected: "a response dictionary")
                    continue
                }
                // Each response starts from the rule's own response keys and overrides them.
                var itemResponse = response
                var itemSources: [(key: String, position: SourcePosition?)] = []
                var itemSeen: SeenKeys = []
                for entry in itemEntries {
                    guard checkDuplicate(entry, keyPath: itemPath, seen: &itemSeen) else { continue }
                    guard Self.isResponseKey(entry.key) else {
                        unknownKey(entry, keyPath: itemPath, candidates: RuleKeys.response)
                        continue
                    }
                    decodeResponseKey(entry, into: &itemResponse, bodySources: &itemSources, keyPath: itemPath)
                }
                checkBodySources(itemSources, error: itemResponse.error, keyPath: itemPath)
                if isTemplate { itemResponse.template = templates(for: itemResponse, pathParameters: pathParameters, keyPath: itemPath, entries: itemEntries + entries) }
                itemResponse.cacheHeaderFields()
                responses.append(itemResponse)
            }
            if !responses.isEmpty {
                response = responses[0]
                sequence = ResponseSequence(responses: responses, whenExhausted: whenExhausted)
            }
        }
        let source = RuleSource(file: file, position: value.position, index: index, keyPath: keyPath)
        return StubRule(name: name, source: source, request: request, response: response, sequence: sequence, newState: newState, priority: priority)
    }

    /// A string's UTF-8 bytes as `Data`, copied from its storage in one piece (the generic
    /// `Data(text.utf8)` goes byte by byte, a measurable part of loading many inline bodies).
    static func utf8Data(_ text: String) -> Data {
        var text = text
        return text.withUTF8 { Data($0) }
    }

    /// One key of a response (on the rule, or in `responses`).
    private mutating func decodeResponseKey(_ entry: SourceValue.Entry, into response: inout StubResponse,
                                            bodySources: inout [(key: String, position: SourcePosition?)], keyPath: String) {
        // Built only when a diagnostic needs it (every key of every rule went through here).
        func path() -> String { "\(keyPath).\(entry.key)" }
        switch entry.key {
        case "status", "status_code":
            if let status = status(entry.value, keyPath: path()) { response.status = status }
        case "response":
            bodySources.append((entry.key, entry.keyPosition))
            if let relative = string(entry.value, keyPath: path()),
               let url = responseFile(relative, at: entry.value.position, keyPath: path()) {
                response.body = .file(url)
            }
        case "json_file":
            bodySources.append((entry.key, entry.keyPosition))
            if let base = string(entry.value, keyPath: path()),
               let url = responseFile(base + ".json", at: entry.value.position, keyPath: path()) {
                response.body = .file(url)
            }
        case "body":
            bodySources.append((entry.key, entry.keyPosition))
            if let text = string(entry.value, keyPath: path()) { response.body = .inline(Self.utf8Data(text)) }
        case "inline_response":
            // Real legacy files carry an empty inline_response beside json_file; only a non-empty one is a body.
            if let text = string(entry.value, keyPath: path()), !text.isEmpty {
                bodySources.append((entry.key, entry.keyPosition))
                response.body = .inline(Self.utf8Data(text))
            }
        case "json":
            bodySources.append((entry.key, entry.keyPosition))
            response.body = .json(entry.value.jsonData())
        case "headers":
            if let headers = stringPairs(entry.value, keyPath: path()) {
                // A set of names, not a scan per header: 20,000 headers over 20,000 defaults took 30 s.
                let names = Set(headers.map { $0.name.lowercased() })
                response.headers.removeAll { names.contains($0.name.lowercased()) }
                response.headers.append(contentsOf: headers)
            }
        case "contentType":
            response.contentType = string(entry.value, keyPath: path())
        case "delay":
            if case .dictionary = entry.value.kind {
                response.delayRange = delayRange(entry.value, keyPath: path())
                response.delay = 0
            } else if let delay = delay(entry.value, keyPath: path()) {
                response.delay = delay
                response.delayRange = nil
            }
        case "throttle":
            guard let bytes = integer(entry.value, keyPath: path()) else { return }
            if bytes > 0 {
                response.throttle = bytes
            } else {
                report(.invalidValue, at: entry.value.position, keyPath: path(), "a throttle of \(bytes) bytes per second would never finish",
                       fix: "give a positive number of bytes per second, such as 16384 for a slow 3G line")
            }
        case "error":
            guard let text = string(entry.value, keyPath: path()) else { return }
            if let error = SimulatedNetworkError(rawValue: text) {
                response.error = error
            } else {
                let suggestion = Suggestion.closest(to: text, in: SimulatedNetworkError.allCases.map(\.rawValue))
                report(.unknownError, at: entry.value.position, keyPath: path(), "unknown simulated error '\(text)'",
                       fix: suggestion.map { "did you mean '\($0)'?" } ?? "use one of: " + SimulatedNetworkError.allCases.map(\.rawValue).joined(separator: ", "))
            }
        default:
            break
        }
    }

    private mutating func checkBodySources(_ bodySources: [(key: String, position: SourcePosition?)], error: SimulatedNetworkError?, keyPath: String) {
        if bodySources.count > 1 {
            let second = bodySources[1]
            report(.conflictingKeys, at: second.position, keyPath: "\(keyPath).\(second.key)",
                   "'\(bodySources[0].key)' and '\(second.key)' both give the response body",
                   fix: "keep one of them")
        }
        if error != nil, let first = bodySources.first {
            report(.conflictingKeys, at: first.position, keyPath: "\(keyPath).\(first.key)",
                   "'error' simulates a network failure, so the body in '\(first.key)' would never be sent",
                   fix: "remove '\(first.key)' or 'error'")
        }
    }

    /// Parses the templated parts of a response; an unknown field is a diagnostic.
    private mutating func templates(for response: StubResponse, pathParameters: Set<String>?, keyPath: String,
                                    entries: [SourceValue.Entry]) -> ResponseTemplates? {
        // Problems point at the key that holds the template (the first one found: the item's own keys come first).
        func position(_ keys: [String]) -> SourcePosition? { entries.first { keys.contains($0.key) }?.value.position }
        var result = ResponseTemplates(body: nil, headers: [:])
        var bodyText: String? = nil
        var bodyKey = "body"
        switch response.body {
        case .inline(let data): bodyText = String(decoding: data, as: UTF8.self)
        case .json(let data): bodyText = String(decoding: data, as: UTF8.self); bodyKey = "json"
        case .file(let url):
            bodyKey = "response"
            if let data = try? Data(contentsOf: url) {
                // A template is text: a file that is not UTF-8 would render as mojibake.
                if TextEncoding.wideEncoding(of: [UInt8](data.prefix(4))) != nil || TextEncoding.firstInvalidUTF8(in: [UInt8](data)) != nil {
                    report(.unknownTemplateField, at: position(["response", "json_file"]), keyPath: "\(keyPath).response",
                           "the template file '\(url.lastPathComponent)' is not UTF-8 text", fix: TextEncoding.saveAsUTF8)
                    return nil
                }
                bodyText = String(decoding: data, as: UTF8.self)
            }
        case .empty: break
        }
        if let bodyText {
            // `json` bodies and JSON files or bodies are JSON: values are escaped (or typed) to keep it valid.
            let isJSON: Bool
            if case .json = response.body { isJSON = true } else { isJSON = MediaType.isJSON(response.effectiveContentType) }
            do {
                result.body = try ResponseTemplate(parsing: bodyText, pathParameters: pathParameters, syntax: isJSON ? .json : .text)
            } catch {
                for problem in error.problems {
                    report(.unknownTemplateField, at: position([bodyKey, "json_file", "inline_response"]), keyPath: "\(keyPath).\(bodyKey)", problem.message, fix: problem.fix)
                }
            }
        }
        for header in response.headers where header.value.contains("{{") {
            do {
                result.headers[header.name] = try ResponseTemplate(parsing: header.value, pathParameters: pathParameters)
            } catch {
                let headersValue = entries.first { $0.key == "headers" }?.value
                let headerPosition = headersValue?.dictionaryValue?.first { $0.key == header.name }?.value.position ?? headersValue?.position
                for problem in error.problems {
                    report(.unknownTemplateField, at: headerPosition, keyPath: "\(keyPath).headers.\(header.name)", problem.message, fix: problem.fix)
                }
            }
        }
        return result
    }

    /// Records a legacy key for the one note per file; an empty `inline_response` gets its own note.
    private mutating func noteLegacyKey(_ entry: SourceValue.Entry, keyPath: String) {
        // By index, not `firstIndex(where:)`, whose closure copied every use (keys and paths) per rule.
        var known = false
        for i in legacyUses.indices where legacyUses[i].key == entry.key {
            legacyUses[i].count += 1
            known = true
            break
        }
        if !known { legacyUses.append((entry.key, entry.keyPosition, "\(keyPath).\(entry.key)", 1)) }
        if entry.key == "inline_response", entry.value.stringValue == "" {
            report(.legacyKey, at: entry.keyPosition, keyPath: "\(keyPath).\(entry.key)", "'inline_response' is empty, so it does nothing",
                   fix: "remove it")
        }
    }

    /// One note for the whole file, at the first legacy key, listing every legacy key used and its current form.
    private mutating func reportLegacyKeys() {
        guard let first = legacyUses.first else { return }
        let used = legacyUses.map { use in "'\(use.key)'" + (use.count > 1 ? " (\(use.count) times)" : "") }
        let forms = legacyUses.map { use in "\(use.key) → \(Self.currentForm(ofLegacyKey: use.key))" }
        report(.legacyKey, at: first.position, keyPath: first.keyPath,
               "this file uses legacy keys, which still work: " + used.joined(separator: ", "),
               fix: "the current forms: " + forms.joined(separator: "; "))
    }

    static func currentForm(ofLegacyKey key: String) -> String {
        switch key {
        case "json_file": return "'response' with the file name and its '.json'"
        case "status_code": return "'status' as an integer"
        case "matching_url": return "'urlRegex' (same meaning), or a 'path' pattern, which is faster and can be checked for shadowing"
        case "inline_response": return "'body' (an empty one does nothing)"
        default: return "'\(RuleKeys.legacy[key] ?? key)'"
        }
    }

    // MARK: Values

    private mutating func string(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        if case .string(let s) = value.kind { return s }
        wrongType(value, keyPath: keyPath(), expected: "a string")
        return nil
    }

    private mutating func integer(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Int? {
        switch value.kind {
        case .integer(let i): return i
        case .real(let d) where d == d.rounded() && abs(d) < 1e15: return Int(d)
        default:
            wrongType(value, keyPath: keyPath(), expected: "an integer")
            return nil
        }
    }

    private mutating func status(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Int? {
        let status: Int
        switch value.kind {
        case .integer(let i): status = i
        case .string(let s):
            guard let i = Int(s.trimmingCharacters(in: .whitespaces)) else {
                report(.invalidStatus, at: value.position, keyPath: keyPath(), "status '\(s)' is not a number", fix: "write an HTTP status code such as 200")
                return nil
            }
            status = i
        default:
            wrongType(value, keyPath: keyPath(), expected: "an integer such as 200")
            return nil
        }
        guard (100...599).contains(status) else {
            report(.invalidStatus, at: value.position, keyPath: keyPath(), "status \(status) is not an HTTP status code", fix: "use a code from 100 to 599")
            return nil
        }
        return status
    }

    /// The longest delay (and random delay bound) a rule may ask for. Longer ones are typos (milliseconds
    /// written as seconds) or attempts to hang the app; a test waiting an hour has failed anyway.
    static let maximumDelay: TimeInterval = 3600

    private mutating func delay(_ value: SourceValue, keyPath: @autoclosure () -> String) -> TimeInterval? {
        let seconds: Double
        switch value.kind {
        case .integer(let i): seconds = Double(i)
        case .real(let d): seconds = d
        default:
            wrongType(value, keyPath: keyPath(), expected: "a number of seconds")
            return nil
        }
        guard seconds >= 0, seconds.isFinite else {
            report(.negativeDelay, at: value.position, keyPath: keyPath(), seconds.isFinite ? "delay \(seconds) is negative" : "delay \(seconds) is not a finite number", fix: "use 0 or more seconds")
            return nil
        }
        guard seconds <= Self.maximumDelay else {
            report(.delayTooLong, at: value.position, keyPath: keyPath(), "a delay of \(seconds) seconds is longer than the maximum of \(Int(Self.maximumDelay)) seconds (one hour)",
                   fix: "use a shorter delay; to make a request never answer, use \"error\": \"timedOut\"")
            return nil
        }
        return seconds
    }

    private mutating func methods(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Set<String>? {
        var names: [(String, SourcePosition?)] = []
        switch value.kind {
        case .string(let s): names = [(s, value.position)]
        case .array(let items) where !value.isSet:
            for (i, item) in items.enumerated() {
                if let s = string(item, keyPath: "\(keyPath())[\(i)]") { names.append((s, item.position)) }
            }
            if items.isEmpty {
                report(.invalidValue, at: value.position, keyPath: keyPath(), "the method list is empty", fix: "remove 'method' to match any method")
                return nil
            }
        default:
            wrongType(value, keyPath: keyPath(), expected: "a method name or a list of them")
            return nil
        }
        var result = Set<String>()
        for (name, position) in names {
            let upper = name.uppercased()
            if RuleKeys.httpMethods.contains(upper) {
                result.insert(upper)
            } else {
                let suggestion = Suggestion.closest(to: upper, in: RuleKeys.httpMethods)
                report(.unknownMethod, at: position, keyPath: keyPath(), "unknown HTTP method '\(name)'",
                       fix: suggestion.map { "did you mean '\($0)'?" } ?? "use one of: " + RuleKeys.httpMethods.joined(separator: ", "))
            }
        }
        return result.isEmpty ? nil : result
    }

    private mutating func regex(_ value: SourceValue, keyPath: @autoclosure () -> String) -> RegexPattern? {
        guard let text = string(value, keyPath: keyPath()) else { return nil }
        do {
            let regex = try RegexPattern(text)
            if let reason = regex.backtrackingReason {
                report(.backtrackingRegex, at: value.position, keyPath: keyPath(),
                       "regular expression '\(text)' uses \(reason), outside the subset StubKit matches in linear time; it runs on NSRegularExpression, and a match that takes over \(RegexPattern.defaultBudget) counts as a miss",
                       fix: "rewrite it with literals, '.', classes, groups, '|', '* + ? {m,n}' and '^ $' only")
            }
            return regex
        } catch {
            report(.invalidRegex, at: value.position, keyPath: keyPath(), "regular expression '\(text)' does not compile",
                   fix: "check brackets and escape special characters such as '?' and '(' with a backslash")
            return nil
        }
    }

    /// Query items or headers: a string means "equals"; a dictionary says `equals`, `matches`, `present` or `absent`.
    private mutating func valueMatchers(_ value: SourceValue, keyPath: @autoclosure () -> String, areHeaders: Bool = false,
                                        areQuery: Bool = false) -> [String: ValueMatcher]? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath(), expected: "a dictionary of names to values or conditions")
            return nil
        }
        var result: [String: ValueMatcher] = [:]
        result.reserveCapacity(entries.count)
        var seen = SeenKeys(capacity: entries.count)
        // Query names compare in their comparison form: `%71` and `q` are one name.
        var comparableNames: [String: String] = [:]
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            let path = "\(keyPath()).\(entry.key)"
            if areQuery {
                let name = PercentEncoding.comparable(entry.key)
                if let first = comparableNames[name] {
                    report(.duplicateKey, at: entry.keyPosition, keyPath: path,
                           "the query names '\(first)' and '\(entry.key)' are the same name once percent-decoded; the first one is used",
                           fix: "remove one of them")
                    continue
                }
                comparableNames[name] = entry.key
            }
            if areHeaders, !validHeader(entry, value: entry.value.stringValue ?? "", keyPath: path) { continue }
            if case .dictionary(let conditions) = entry.value.kind {
                guard conditions.count == 1, let condition = conditions.first else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "give exactly one condition",
                           fix: "use one of {\"equals\": \"…\"}, {\"matches\": \"regex\"}, {\"present\": true}, {\"absent\": true}")
                    continue
                }
                let conditionPath = "\(path).\(condition.key)"
                switch condition.key {
                case "equals":
                    if let text = scalarText(condition.value, keyPath: conditionPath) { result[entry.key] = .equals(text) }
                case "matches":
                    if let regex = regex(condition.value, keyPath: conditionPath) { result[entry.key] = .matches(regex) }
                case "present", "absent":
                    guard case .bool(true) = condition.value.kind else {
                        wrongType(condition.value, keyPath: conditionPath, expected: "true")
                        continue
                    }
                    result[entry.key] = condition.key == "present" ? .present : .absent
                default:
                    unknownKey(condition, keyPath: path, candidates: ["equals", "matches", "present", "absent"])
                }
            } else if let text = scalarText(entry.value, keyPath: path) {
                result[entry.key] = .equals(text)
                if areQuery { notePlus(text, at: entry.value.position, keyPath: path) }
            }
        }
        return result
    }

    /// A query value with `+` in the short form answers `?q=a+b` only: clients that escape the plus
    /// (Alamofire does) send `a%2Bb`, which compares differently. The explicit `{"equals": …}` form, which
    /// recordings and importers write, says the `+` is meant; recorded bundles hold what was sent.
    private mutating func notePlus(_ text: String, at position: SourcePosition?, keyPath: String) {
        guard !isRecorded, text.utf8.contains(UInt8(ascii: "+")) else { return }
        let escaped = text.replacingOccurrences(of: "+", with: "%2B")
        report(.plusInQueryValue, at: position, keyPath: keyPath,
               "query value '\(text)' matches only a '+' sent as it is; a client that escapes it (Alamofire does) sends '%2B', which does not match",
               fix: "write '\(escaped)' for the escaped form, {\"equals\": \"\(text)\"} to mean '+' as sent (and quiet this note), or {\"matches\": …} for both (a regular expression sees '+' either way)")
    }

    private mutating func bodyMatchers(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [BodyMatcher] {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath(), expected: "a dictionary of body conditions (equals, contains, matches, equalsJSON, containsJSON)")
            return []
        }
        if entries.isEmpty {
            report(.invalidValue, at: value.position, keyPath: keyPath(), "no body condition given", fix: "add equals, contains, matches, equalsJSON or containsJSON")
        }
        var result: [BodyMatcher] = []
        var seen: SeenKeys = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            let path = "\(keyPath()).\(entry.key)"
            switch entry.key {
            case "equals": if let text = string(entry.value, keyPath: path) { result.append(.equals(text)) }
            case "contains": if let text = string(entry.value, keyPath: path) { result.append(.contains(text)) }
            case "matches": if let regex = regex(entry.value, keyPath: path) { result.append(.matches(regex)) }
            case "equalsJSON": result.append(.equalsJSON(JSONValue(entry.value)))
            case "containsJSON":
                guard case .dictionary = entry.value.kind else {
                    wrongType(entry.value, keyPath: path, expected: "a JSON object of the fields that must be present")
                    continue
                }
                result.append(.containsJSON(JSONValue(entry.value)))
            default:
                unknownKey(entry, keyPath: keyPath(), candidates: ["equals", "contains", "matches", "equalsJSON", "containsJSON"])
            }
        }
        return result
    }

    /// A random delay: `{"min": 0.1, "max": 0.5}`.
    private mutating func delayRange(_ value: SourceValue, keyPath: @autoclosure () -> String) -> ClosedRange<TimeInterval>? {
        var minimum: TimeInterval?, maximum: TimeInterval?
        var given: Set<String> = []
        var seen: SeenKeys = []
        for entry in value.dictionaryValue ?? [] {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            switch entry.key {
            case "min": minimum = delay(entry.value, keyPath: "\(keyPath()).min"); given.insert("min")
            case "max": maximum = delay(entry.value, keyPath: "\(keyPath()).max"); given.insert("max")
            default: unknownKey(entry, keyPath: keyPath(), candidates: ["min", "max"])
            }
        }
        guard let minimum, let maximum else {
            // A bound that is there but invalid was reported already; only a missing one is reported here.
            guard given.count < 2 else { return nil }
            report(.missingKey, at: value.position, keyPath: keyPath(), "a random delay needs both 'min' and 'max'", fix: "write {\"min\": 0.1, \"max\": 0.5}")
            return nil
        }
        guard minimum <= maximum else {
            report(.invalidValue, at: value.position, keyPath: keyPath(), "'min' (\(minimum)) is greater than 'max' (\(maximum))", fix: "swap them")
            return nil
        }
        return minimum...maximum
    }

    private mutating func host(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        guard let text = string(value, keyPath: keyPath()) else { return nil }
        if text.isEmpty || text.contains("/") || text.contains(" ") {
            report(.invalidValue, at: value.position, keyPath: keyPath(), "'\(text)' is not a host name",
                   fix: "write the host alone, without scheme or path, such as api.example.com")
            return nil
        }
        return text.lowercased()
    }

    private mutating func scalarText(_ value: SourceValue, keyPath: @autoclosure () -> String) -> String? {
        switch value.kind {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .bool(let b): return b ? "true" : "false"
        default:
            wrongType(value, keyPath: keyPath(), expected: "a string")
            return nil
        }
    }

    private mutating func stringPairs(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [(name: String, value: String)]? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath(), expected: "a dictionary of names to strings")
            return nil
        }
        var seen: SeenKeys = []
        var pairs: [(name: String, value: String)] = []
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            // Only headers come through here (response, bundle-wide and bundle request headers).
            if let text = scalarText(entry.value, keyPath: "\(keyPath()).\(entry.key)"),
               validHeader(entry, value: text, keyPath: "\(keyPath()).\(entry.key)") {
                pairs.append((entry.key, text))
            }
        }
        return pairs
    }

    /// A header name must be an HTTP token and a value must hold no line break or NUL: served over
    /// HTTP, a CR or LF would end the header and start another (header injection).
    private mutating func validHeader(_ entry: SourceValue.Entry, value: String, keyPath: @autoclosure () -> String) -> Bool {
        let tokenSymbols = Set("!#$%&'*+-.^_`|~".utf8)
        let nameIsToken = !entry.key.isEmpty && entry.key.utf8.allSatisfy { b in
            (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || tokenSymbols.contains(b)
        }
        if !nameIsToken {
            report(.invalidHeader, at: entry.keyPosition, keyPath: keyPath(), "header name '\(Self.escaped(entry.key))' is not a valid HTTP header name",
                   fix: "use letters, digits and - only, such as X-Request-Id")
            return false
        }
        if let bad = value.unicodeScalars.first(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            report(.invalidHeader, at: entry.value.position, keyPath: keyPath(),
                   "the value of header '\(entry.key)' contains \(bad == "\0" ? "a NUL character" : "a line break (\(bad == "\r" ? "CR" : "LF"))"), which would end the header and inject another",
                   fix: "put the value on one line; for several values, separate them with commas")
            return false
        }
        return true
    }

    /// Text for a message, with control characters shown as escapes.
    static func escaped(_ text: String) -> String {
        var out = ""
        SourceValue.appendQuoted(String(text.prefix(200)), to: &out)
        return String(out.dropFirst().dropLast())
    }

    private mutating func stringDictionary(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [String: String]? {
        guard let pairs = stringPairs(value, keyPath: keyPath()) else { return nil }
        return Dictionary(pairs, uniquingKeysWith: { _, last in last })
    }

    // MARK: Response files

    /// Resolves a response file inside the bundle folder, refusing any path that leaves it.
    private mutating func responseFile(_ relative: String, at position: SourcePosition?, keyPath: @autoclosure () -> String) -> URL? {
        if relative.isEmpty {
            report(.invalidValue, at: position, keyPath: keyPath(), "the response file name is empty", fix: "name a file in the bundle folder")
            return nil
        }
        if relative.hasPrefix("/") || relative.hasPrefix("~") {
            report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' is an absolute path",
                   fix: "copy the file into the bundle folder and name it relative to the folder")
            return nil
        }
        var depth = 0
        for component in relative.split(separator: "/") {
            if component == ".." { depth -= 1 } else if component != "." { depth += 1 }
            if depth < 0 {
                report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' lies outside the bundle folder",
                       fix: "copy the file into the bundle folder; bundles must be self-contained")
                return nil
            }
        }
        let url = folder.appendingPathComponent(relative).standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            let siblings = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
            let suggestion = Suggestion.closest(to: url.lastPathComponent, in: siblings.filter { !RuleKeys.rulesFileNames.contains($0) })
            report(.missingResponseFile, at: position, keyPath: keyPath(), "response file '\(relative)' does not exist",
                   fix: suggestion.map { "did you mean '\($0)'?" } ?? "add the file to the bundle folder or correct the name")
            return nil
        }
        // Named by a rule, so never reported as unused, even when refused below.
        referencedFiles.insert(url.path)
        let resolved = url.resolvingSymlinksInPath().path
        guard FileContainment.isInside(url, folder: folder) else {
            report(.responseOutsideBundle, at: position, keyPath: keyPath(), "response file '\(relative)' is a symbolic link to a file outside the bundle folder",
                   fix: "replace the link with a copy of the file")
            return nil
        }
        if isDirectory.boolValue {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' is a folder", fix: "name a file")
            return nil
        }
        // Links are resolved once, here: size, streaming, the journal and limits all use the target.
        let target = URL(fileURLWithPath: resolved)
        referencedFiles.insert(target.standardizedFileURL.path)
        if let kind = Self.nonRegularKind(atPath: resolved) {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' is \(kind), not a regular file; reading it could block the app",
                   fix: "replace it with a regular file holding the response body")
            return nil
        }
        guard FileManager.default.isReadableFile(atPath: resolved) else {
            report(.unreadableFile, at: position, keyPath: keyPath(), "response file '\(relative)' cannot be read", fix: "check its permissions")
            return nil
        }
        return target
    }

    /// What a path is when it is not a regular file (following links), or `nil` for a regular file.
    static func nonRegularKind(atPath path: String) -> String? {
        guard let type = (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType else { return "unreadable" }
        switch type {
        case .typeRegular: return nil
        case .typeDirectory: return "a folder"
        case .typeCharacterSpecial, .typeBlockSpecial: return "a device"
        case .typeSocket: return "a socket"
        case .typeSymbolicLink: return "a broken symbolic link"
        default:
            var info = stat()
            if stat(path, &info) == 0, (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFIFO) { return "a named pipe (FIFO)" }
            return "not a regular file"
        }
    }

    // MARK: Reporting

    /// Reports a repeated key; returns false for the repeat, which is then skipped.
    private mutating func checkDuplicate(_ entry: SourceValue.Entry, keyPath: @autoclosure () -> String, seen: inout SeenKeys) -> Bool {
        if seen.insert(entry.key) { return true }
        report(.duplicateKey, at: entry.keyPosition, keyPath: keyPath().isEmpty ? entry.key : "\(keyPath()).\(entry.key)",
               "key '\(entry.key)' appears twice in the same dictionary; the first one is used", fix: "remove one of them")
        return false
    }

    private mutating func unknownKey(_ entry: SourceValue.Entry, keyPath: @autoclosure () -> String, candidates: [String]) {
        let suggestion = Suggestion.closest(to: entry.key, in: candidates)
        var fix = suggestion.map { "did you mean '\($0)'?" }
        if suggestion == "path", candidates.contains("urlRegex") {
            fix = "did you mean 'path' (a pattern over the URL path, such as \"/orders/{id}\") or 'urlRegex' (a regular expression over the whole URL)?"
        }
        // A megabyte-long key is quoted by its start only, so one bad key cannot make a megabyte of output.
        let shown = entry.key.utf8.count > 200 ? String(entry.key.prefix(60)) + "… (\(entry.key.utf8.count) bytes)" : entry.key
        report(.unknownKey, at: entry.keyPosition, keyPath: keyPath().isEmpty ? shown : "\(keyPath()).\(shown)",
               "unknown key '\(shown)'", fix: fix)
    }

    private mutating func wrongType(_ value: SourceValue, keyPath: @autoclosure () -> String, expected: String) {
        report(.wrongType, at: value.position, keyPath: keyPath(), "expected \(expected), found \(value.typeDescription)")
    }

    private mutating func report(_ code: DiagnosticCode, at position: SourcePosition?, keyPath: @autoclosure () -> String, _ message: String, fix: String? = nil) {
        let diagnostic = Diagnostic(code, file: file, position: position, keyPath: keyPath(), message: message, fix: fix)
        if diagnostic.severity == .error { errorCount += 1 }
        diagnostics.append(diagnostic)
    }
}
