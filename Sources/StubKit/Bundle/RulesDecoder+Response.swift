import Foundation

/// The response keys of a rule or of one item of its `responses`, the sequence of responses, and
/// templated responses.
extension RulesDecoder {
    /// A string's UTF-8 bytes as `Data`, copied from its storage in one piece (the generic
    /// `Data(text.utf8)` goes byte by byte, a measurable part of loading many inline bodies).
    static func utf8Data(_ text: String) -> Data {
        var text = text
        return text.withUTF8 { Data($0) }
    }

    /// One key of a response (on the rule, or in `responses`).
    mutating func decodeResponseKey(_ key: RuleKey, _ entry: SourceValue.Entry, into response: inout StubResponse,
                                    bodySources: inout [BodySource], keyPath: String) {
        // Built only when a diagnostic needs it (every key of every rule goes through here).
        func path() -> String { "\(keyPath).\(entry.key)" }
        switch key {
        case .status, .statusCode:
            if let status = status(entry.value, keyPath: path()) { response.status = status }
        case .response:
            bodySources.append((entry.key, entry.keyPosition))
            if let relative = string(entry.value, keyPath: path()),
               let url = responseFile(relative, at: entry.value.position, keyPath: path()) {
                response.body = .file(url)
            }
        case .jsonFile:
            bodySources.append((entry.key, entry.keyPosition))
            if let base = string(entry.value, keyPath: path()),
               let url = responseFile(base + ".json", at: entry.value.position, keyPath: path()) {
                response.body = .file(url)
            }
        case .body:
            bodySources.append((entry.key, entry.keyPosition))
            if let text = string(entry.value, keyPath: path()) { response.body = .inline(Self.utf8Data(text)) }
        case .inlineResponse:
            // Real legacy files carry an empty inline_response beside json_file; only a non-empty one is a body.
            if let text = string(entry.value, keyPath: path()), !text.isEmpty {
                bodySources.append((entry.key, entry.keyPosition))
                response.body = .inline(Self.utf8Data(text))
            }
        case .json:
            bodySources.append((entry.key, entry.keyPosition))
            response.body = .json(entry.value.jsonData())
        case .headers:
            if let headers = stringPairs(entry.value, keyPath: path()) {
                // A set of names, not a scan per header: 20,000 headers over 20,000 defaults took 30 s.
                let names = Set(headers.map { $0.name.lowercased() })
                response.headers.removeAll { names.contains($0.name.lowercased()) }
                response.headers.append(contentsOf: headers)
            }
        case .contentType:
            response.contentType = string(entry.value, keyPath: path())
        case .delay:
            if case .dictionary = entry.value.kind {
                response.delayRange = delayRange(entry.value, keyPath: path())
                response.delay = 0
            } else if let delay = delay(entry.value, keyPath: path()) {
                response.delay = delay
                response.delayRange = nil
            }
        case .throttle:
            guard let bytes = integer(entry.value, keyPath: path()) else { return }
            if bytes > 0 {
                response.throttle = bytes
            } else {
                report(.invalidValue, at: entry.value.position, keyPath: path(), "a throttle of \(bytes) bytes per second would never finish",
                       fix: "give a positive number of bytes per second, such as 16384 for a slow 3G line")
            }
        case .events:
            bodySources.append((entry.key, entry.keyPosition))
            response.events = eventStream(entry.value, keepsOpen: response.events?.keepsOpen ?? false, keyPath: path())
        case .keepOpen:
            // Applied once the response's keys are read (see checkEventStream): it belongs to 'events'.
            break
        case .error:
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

    mutating func checkBodySources(_ bodySources: [BodySource], error: SimulatedNetworkError?, keyPath: String) {
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
    mutating func templates(for response: StubResponse, pathParameters: Set<String>?, keyPath: String,
                            entries: [SourceValue.Entry]) -> ResponseTemplates? {
        // Problems point at the key that holds the template (the first one found: the item's own keys come first).
        func position(_ keys: [RuleKey]) -> SourcePosition? { entries.first { entry in keys.contains { $0.rawValue == entry.key } }?.value.position }
        var result = ResponseTemplates(body: nil, headers: [:])
        var bodyText: String? = nil
        var bodyKey = RuleKey.body
        switch response.body {
        case .inline(let data): bodyText = String(decoding: data, as: UTF8.self)
        case .json(let data): bodyText = String(decoding: data, as: UTF8.self); bodyKey = .json
        case .file(let url):
            bodyKey = .response
            switch Self.templateFileText(url) {
            case .text(let text): bodyText = text
            case .notUTF8:
                report(.unknownTemplateField, at: position([.response, .jsonFile]), keyPath: "\(keyPath).response",
                       "the template file '\(url.lastPathComponent)' is not UTF-8 text", fix: TextEncoding.saveAsUTF8)
                return nil
            case .unreadable: break
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
                    report(.unknownTemplateField, at: position([bodyKey, .jsonFile, .inlineResponse]), keyPath: "\(keyPath).\(bodyKey.rawValue)", problem.message, fix: problem.fix)
                }
            }
        }
        for header in response.headers where header.value.contains("{{") {
            do {
                result.headers[header.name] = try ResponseTemplate(parsing: header.value, pathParameters: pathParameters)
            } catch {
                let headersValue = entries.first { $0.key == RuleKey.headers.rawValue }?.value
                let headerPosition = headersValue?.dictionaryValue?.first { $0.key == header.name }?.value.position ?? headersValue?.position
                for problem in error.problems {
                    report(.unknownTemplateField, at: headerPosition, keyPath: "\(keyPath).headers.\(header.name)", problem.message, fix: problem.fix)
                }
            }
        }
        return result
    }

    /// The rule's `responses`, each starting from the rule's own response keys and overriding them;
    /// `nil` without items. The first response becomes the rule's response.
    mutating func decodeSequence(of draft: inout RuleDraft, pathParameters: Set<String>?, ruleEntries: [SourceValue.Entry]) -> ResponseSequence? {
        guard let responseItems = draft.responseItems, !responseItems.isEmpty else { return nil }
        var responses: [StubResponse] = []
        for (item, itemPath) in responseItems {
            guard let itemEntries = item.dictionaryValue else {
                wrongType(item, keyPath: itemPath, expected: "a response dictionary")
                continue
            }
            var itemResponse = draft.response
            var itemSources: [BodySource] = []
            var itemSeen: SeenKeys = []
            for entry in itemEntries {
                guard checkDuplicate(entry, keyPath: itemPath, seen: &itemSeen) else { continue }
                guard let key = RuleKey(rawValue: entry.key), key.isResponse else {
                    unknownKey(entry, keyPath: itemPath, candidates: RuleKeys.response)
                    continue
                }
                decodeResponseKey(key, entry, into: &itemResponse, bodySources: &itemSources, keyPath: itemPath)
            }
            checkBodySources(itemSources, error: itemResponse.error, keyPath: itemPath)
            // An item's own body replaces the rule's event stream, as it replaces the rule's body.
            if !itemSources.isEmpty, !itemSources.contains(where: { $0.key == RuleKey.events.rawValue }) { itemResponse.events = nil }
            checkEventStream(&itemResponse, entries: itemEntries, keyPath: itemPath)
            if draft.isTemplate {
                itemResponse.template = templates(for: itemResponse, pathParameters: pathParameters, keyPath: itemPath, entries: itemEntries + ruleEntries)
                eventTemplates(of: &itemResponse, pathParameters: pathParameters, keyPath: itemPath)
            }
            itemResponse.cacheHeaderFields()
            responses.append(itemResponse)
        }
        guard !responses.isEmpty else { return nil }
        draft.response = responses[0]
        return ResponseSequence(responses: responses, whenExhausted: draft.whenExhausted)
    }

    /// A random delay: `{"min": 0.1, "max": 0.5}`.
    mutating func delayRange(_ value: SourceValue, keyPath: @autoclosure () -> String) -> ClosedRange<TimeInterval>? {
        var minimum: TimeInterval?, maximum: TimeInterval?
        var given: Set<String> = []
        var seen: SeenKeys = []
        for entry in value.dictionaryValue ?? [] {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            switch RuleKey.DelayBound(rawValue: entry.key) {
            case .min: minimum = delay(entry.value, keyPath: "\(keyPath()).min"); given.insert("min")
            case .max: maximum = delay(entry.value, keyPath: "\(keyPath()).max"); given.insert("max")
            case nil: unknownKey(entry, keyPath: keyPath(), candidates: RuleKey.DelayBound.allCases.map(\.rawValue))
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
}
