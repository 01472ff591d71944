import Foundation

/// The request keys of a rule: URL conditions, methods, host and scheme, query items, headers and
/// body conditions.
extension RulesDecoder {
    /// One request key of a rule.
    mutating func decodeRequestKey(_ key: RuleKey, _ entry: SourceValue.Entry, into request: inout RequestConditions, keyPath: String) {
        // Built only when a diagnostic needs it (every key of every rule goes through here).
        func path() -> String { "\(keyPath).\(entry.key)" }
        switch key {
        case .method, .httpMethod:
            request.methods = methods(entry.value, keyPath: path())
        case .path:
            guard let text = string(entry.value, keyPath: path()) else { return }
            do {
                request.path = try PathPattern(parsing: text)
            } catch {
                report(.invalidPathPattern, at: entry.value.position, keyPath: path(), "invalid path pattern '\(text)': \(error.message)", fix: error.fix)
            }
        case .urlRegex, .matchingURL:
            request.urlPattern = regex(entry.value, keyPath: path())
        case .host:
            request.host = host(entry.value, keyPath: path())
        case .scheme:
            guard let text = string(entry.value, keyPath: path()) else { return }
            if ["http", "https"].contains(text.lowercased()) {
                request.scheme = text.lowercased()
            } else {
                report(.invalidValue, at: entry.value.position, keyPath: path(), "scheme '\(text)' is not http or https", fix: "write \"http\" or \"https\"")
            }
        case .query:
            if let matchers = valueMatchers(entry.value, keyPath: path(), areQuery: true) { request.query = matchers }
        case .requestHeaders:
            if let matchers = valueMatchers(entry.value, keyPath: path(), areHeaders: true) {
                request.headers.merge(matchers) { _, new in new }
            }
        case .requestBody:
            request.body = bodyMatchers(entry.value, keyPath: path())
        case .graphql:
            request.graphQL = graphQLCondition(entry.value, keyPath: path())
        default:
            preconditionFailure("'\(key.rawValue)' is not a request key")
        }
    }

    mutating func methods(_ value: SourceValue, keyPath: @autoclosure () -> String) -> Set<String>? {
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

    mutating func regex(_ value: SourceValue, keyPath: @autoclosure () -> String) -> RegexPattern? {
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
    mutating func valueMatchers(_ value: SourceValue, keyPath: @autoclosure () -> String, areHeaders: Bool = false,
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
                switch RuleKey.ValueCondition(rawValue: condition.key) {
                case .equals:
                    if let text = scalarText(condition.value, keyPath: conditionPath) { result[entry.key] = .equals(text) }
                case .matches:
                    if let regex = regex(condition.value, keyPath: conditionPath) { result[entry.key] = .matches(regex) }
                case .present, .absent:
                    guard case .bool(true) = condition.value.kind else {
                        wrongType(condition.value, keyPath: conditionPath, expected: "true")
                        continue
                    }
                    result[entry.key] = condition.key == RuleKey.ValueCondition.present.rawValue ? .present : .absent
                case nil:
                    unknownKey(condition, keyPath: path, candidates: RuleKey.ValueCondition.allCases.map(\.rawValue))
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
    mutating func notePlus(_ text: String, at position: SourcePosition?, keyPath: String) {
        guard !isRecorded, text.utf8.contains(UInt8(ascii: "+")) else { return }
        let escaped = text.replacingOccurrences(of: "+", with: "%2B")
        report(.plusInQueryValue, at: position, keyPath: keyPath,
               "query value '\(text)' matches only a '+' sent as it is; a client that escapes it (Alamofire does) sends '%2B', which does not match",
               fix: "write '\(escaped)' for the escaped form, {\"equals\": \"\(text)\"} to mean '+' as sent (and quiet this note), or {\"matches\": …} for both (a regular expression sees '+' either way)")
    }

    mutating func bodyMatchers(_ value: SourceValue, keyPath: @autoclosure () -> String) -> [BodyMatcher] {
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
            switch RuleKey.BodyCondition(rawValue: entry.key) {
            case .equals: if let text = string(entry.value, keyPath: path) { result.append(.equals(text)) }
            case .contains: if let text = string(entry.value, keyPath: path) { result.append(.contains(text)) }
            case .matches: if let regex = regex(entry.value, keyPath: path) { result.append(.matches(regex)) }
            case .equalsJSON: result.append(.equalsJSON(JSONValue(entry.value)))
            case .containsJSON:
                guard case .dictionary = entry.value.kind else {
                    wrongType(entry.value, keyPath: path, expected: "a JSON object of the fields that must be present")
                    continue
                }
                result.append(.containsJSON(JSONValue(entry.value)))
            case nil:
                unknownKey(entry, keyPath: keyPath(), candidates: RuleKey.BodyCondition.allCases.map(\.rawValue))
            }
        }
        return result
    }
}
