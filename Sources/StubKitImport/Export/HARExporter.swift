#if Tools
import Foundation
import StubKit

/// Writes bundles' rules as HAR 1.2: for each rule a request that it would answer, with its response
/// (one entry per response of a sequence, in order), so stubs open in browser developer tools,
/// Charles or Proxyman, and a HAR import of the result gives the same rules back.
package struct HARExporter: Sendable {
    package init() {}

    /// The HAR document and a note for every rule or part of one that HAR cannot show.
    ///
    /// - Throws: ``ImportError`` for a bundle that does not load (its first error).
    package func export(_ bundles: [URL]) throws(ImportError) -> (data: Data, notes: [ImportNote]) {
        var entries: [HAR.Entry] = []
        var notes: [ImportNote] = []
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for folder in bundles {
            let result = BundleLoader().load(folder: folder)
            if let error = result.diagnostics.first(where: { $0.severity == .error }) {
                throw ImportError(file: folder.path, "the bundle does not load: \(error.description)")
            }
            let started = Self.recordedAt(result.bundle.rulesFile) ?? Date(timeIntervalSince1970: 0)
            for rule in result.bundle.rules {
                let source = rule.source.locationDescription
                guard let request = request(for: rule, note: { notes.append(ImportNote(source: source, message: $0)) }) else { continue }
                if rule.request.scenarioState != nil || rule.newState != nil {
                    notes.append(ImportNote(source: source, message: "scenario '\(rule.request.scenarioState?.scenario ?? "")' state conditions are not in HAR; exported as a plain request"))
                }
                for response in rule.sequence?.responses ?? [rule.response] {
                    if let error = response.error {
                        notes.append(ImportNote(source: source, message: "the simulated error '\(error.rawValue)' is exported as status 0 (no response)"))
                    }
                    if response.template != nil {
                        notes.append(ImportNote(source: source, message: "a templated response is exported as its template text"))
                    }
                    // Whole milliseconds, as HAR tools show them.
                    entries.append(HAR.Entry(startedDateTime: formatter.string(from: started), time: Double(Int(response.delay * 1000)),
                                             request: request, response: harResponse(response),
                                             comment: "\(result.bundle.template): \(rule.displayName)"))
                }
            }
        }
        let log = HAR.Log(creator: HAR.Creator(name: "stubkit export", version: StubKitVersion.current), entries: entries)
        return (HAR(log: log).encoded(), notes)
    }

    /// `recordedAt` of a JSON rules file, so re-importing the HAR keeps it.
    static func recordedAt(_ rulesFile: URL?) -> Date? {
        guard let rulesFile, rulesFile.pathExtension == "json", let data = FileManager.default.contents(atPath: rulesFile.path),
              let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return nil }
        return ExchangeBuilder.date(top["recordedAt"] as? String)
    }

    // MARK: Request

    private func request(for rule: StubRule, note: (String) -> Void) -> HAR.Request? {
        let conditions = rule.request
        // GraphQL travels in a POST's body unless the rule says otherwise.
        let method = conditions.methods?.sorted().first ?? (conditions.graphQL != nil ? "POST" : "GET")
        var url: String
        if let regex = conditions.urlPattern {
            guard let sample = RegexSample.url(matching: regex.pattern) else {
                note("no request could be made up for urlRegex '\(regex.pattern)'; rule not exported")
                return nil
            }
            url = sample
        } else {
            let scheme = conditions.scheme ?? "https"
            let host = conditions.host ?? "localhost"
            let segments = (conditions.path?.components ?? [.globstar]).compactMap { component -> String? in
                switch component {
                case .literal(let text): return text.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#"))) ?? text
                case .parameter(let name): return name
                case .wildcard: return "x"
                case .globstar: return nil
                }
            }
            url = "\(scheme)://\(host)/" + segments.joined(separator: "/")
        }
        // A URL sampled from a regex that pins the query (a repeated name) holds its items already:
        // each condition that one of them meets is not added again, or the re-imported rule would pin
        // a query with every such item twice.
        // Names and `equals` values are in comparison form (an escaped `%2B` stays one), so they are
        // written back as URL text that compares the same; a value made up for a regex is decoded text.
        let sampled = URL(string: url).map { StubRequest(url: $0) }
        var query: [(name: String, value: String)] = []
        for name in conditions.query.keys.sorted() {
            let condition = conditions.query[name]!
            if let present = sampled?.queryValue(for: condition, named: name), condition.accepts(present) { continue }
            guard let value = sample(condition, "query item '\(name)'", note: note) else { continue }
            let text = if case .equals = condition { PercentEncoding.queryText(comparable: value) } else { PercentEncoding.queryText(decoded: value) }
            query.append((PercentEncoding.queryText(comparable: name), text))
        }
        // GraphQL over GET carries its fields in the URL, as JSON text for variables and extensions.
        let graphQL = conditions.graphQL.map { self.graphQLFields($0, bodyConditions: conditions.body, note: note) }
        if method == "GET", let graphQL {
            for name in ["query", "operationName", "variables", "extensions"] {
                guard let value = graphQL[name] else { continue }
                let text = if case .string(let string) = value { string } else { value.description }
                query.append((name, PercentEncoding.queryText(decoded: text)))
            }
        }
        let queryString = (sampled?.queryItems ?? []) + query.map { (PercentEncoding.decoded($0.name[...]), PercentEncoding.decoded($0.value[...])) }
        if !query.isEmpty {
            url += (url.contains("?") ? "&" : "?") + query.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
        }
        var headers: [HAR.NameValue] = []
        for name in conditions.headers.keys.sorted() {
            guard let value = sample(conditions.headers[name]!, "request header '\(name)'", note: note) else { continue }
            headers.append(HAR.NameValue(name: name, value: value))
        }
        var harRequest = HAR.Request(method: method, url: url, headers: headers,
                                     queryString: queryString.map { HAR.NameValue(name: $0.name, value: $0.value) }, bodySize: 0)
        let graphQLBody = method == "GET" ? nil : graphQL.map { (JSONValue.object($0).description, "application/json") }
        if let (text, mimeType) = graphQLBody ?? body(conditions.body, note: note) {
            harRequest.postData = HAR.PostData(mimeType: mimeType, text: text)
            harRequest.bodySize = text.utf8.count
        }
        return harRequest
    }

    private func sample(_ matcher: ValueMatcher, _ what: String, note: (String) -> Void) -> String? {
        switch matcher {
        case .equals(let value): return value
        case .present: return Redactor.placeholder
        case .absent: return nil
        case .matches(let regex):
            guard let text = RegexSample.text(matching: regex.pattern) else {
                note("no value could be made up for \(what) matching '\(regex.pattern)'; left out of the request")
                return nil
            }
            return text
        }
    }

    /// The fields of a GraphQL request the condition accepts: the operation's name, a minimal document of
    /// its type (none for a hash-only persisted query), its variables and its hash, so an import reads
    /// the same condition back.
    private func graphQLFields(_ condition: GraphQLCondition, bodyConditions: [BodyMatcher], note: (String) -> Void) -> [String: JSONValue] {
        if !bodyConditions.isEmpty { note("the rule's requestBody conditions are not exported beside its graphql condition") }
        var fields: [String: JSONValue] = [:]
        if let name = condition.operationName { fields["operationName"] = .string(name) }
        if condition.document != .absent {
            let type = condition.operationType ?? .query
            fields["query"] = .string("\(type.rawValue)\(condition.operationName.map { " " + $0 } ?? "") { __typename }")
        } else if condition.persistedQuery == nil {
            note("a hash-only persisted query without a 'persistedQuery' hash is exported with a made-up hash")
        }
        if let variables = condition.variablesEqual ?? condition.variables { fields["variables"] = variables }
        if condition.persistedQuery != nil || condition.document == .absent {
            let hash = condition.persistedQuery ?? String(repeating: "0", count: 64)
            fields["extensions"] = .object(["persistedQuery": .object(["version": .number(1), "sha256Hash": .string(hash)])])
        }
        return fields
    }

    private func body(_ matchers: [BodyMatcher], note: (String) -> Void) -> (String, String)? {
        guard let first = matchers.first else { return nil }
        if matchers.count > 1 { note("only the first body condition shapes the exported request body") }
        switch first {
        case .equals(let text), .contains(let text): return (text, "text/plain")
        case .equalsJSON(let value): return (value.description, "application/json")
        case .containsJSON(let value):
            note("the body condition 'containsJSON' is exported as a body of just those fields; a HAR import of it requires that body exactly (equalsJSON)")
            return (value.description, "application/json")
        case .matches(let regex):
            guard let text = RegexSample.text(matching: regex.pattern) else {
                note("no body could be made up for the pattern '\(regex.pattern)'; exported without a body")
                return nil
            }
            return (text, "text/plain")
        }
    }

    // MARK: Response

    private func harResponse(_ response: StubResponse) -> HAR.Response {
        var data = Data()
        switch response.body {
        case .empty: break
        case .inline(let bytes), .json(let bytes): data = bytes
        case .file(let url): data = FileManager.default.contents(atPath: url.path) ?? Data()
        }
        let explicitType = response.headers.first { $0.name.lowercased() == "content-type" }?.value ?? response.contentType
        let content = HAR.Content(size: data.count, mimeType: explicitType ?? response.effectiveContentType ?? "x-unknown",
                                  body: data.isEmpty ? nil : data)
        var headers = response.headers.map { HAR.NameValue(name: $0.name, value: $0.value) }
        if response.contentType != nil, !response.headers.contains(where: { $0.name.lowercased() == "content-type" }) {
            headers.append(HAR.NameValue(name: "Content-Type", value: response.contentType!))
        }
        let status = response.error == nil ? response.status : 0
        return HAR.Response(status: status, statusText: "", headers: headers, content: content,
                            redirectURL: response.redirectLocation ?? "", bodySize: status == 0 ? -1 : data.count)
    }
}
#endif
