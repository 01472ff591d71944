import Foundation

/// What a recorded request's rule matches on: built from the request, with secrets and volatile
/// fields left out.
extension Recorder {
    /// The conditions a replay of `request` must meet: method, scheme, host, literal path, query items
    /// (order-insensitive), and the body; volatile and secret fields left out.
    ///
    /// The body is read first, so a secret it holds is known when the same value reappears in a path
    /// segment or a query item under an innocent name: such a segment matches any value, such an
    /// item only needs to be present, and a body that holds one has no exact condition.
    func conditions(for request: StubRequest, redacted: inout Int) -> BundleWriter.RequestConditions {
        if case .single(let operation)? = request.graphQL, let graphQL = graphQLConditions(for: operation, redacted: &redacted) {
            return conditions(for: request, graphQL: graphQL, redacted: &redacted)
        }
        return conditions(for: request, graphQL: nil, redacted: &redacted)
    }

    /// The conditions of `request`, with `graphQL` (when given) in place of the body and of the
    /// query items GraphQL over HTTP sends (``graphQLQueryNames``).
    func conditions(for request: StubRequest, graphQL: BundleWriter.GraphQLConditions?, redacted: inout Int) -> BundleWriter.RequestConditions {
        var body: BundleWriter.RequestConditions.Body? = nil
        if graphQL == nil {
            body = bodyCondition(for: request, redacted: &redacted)
        } else {
            // Only for the secrets it learns (a token under an innocent name in the document): the
            // body is not written, so nothing of it counts as redacted.
            var unwritten = 0
            _ = bodyCondition(for: request, redacted: &unwritten)
        }
        var query: [String: BundleWriter.RequestConditions.QueryValue] = [:]
        let ignoredQuery = configuration.ignoredQueryNames.union(graphQL == nil ? [] : Self.graphQLQueryNames)
        // The items as sent, split as StubRequest splits them (so in step with its items): names and
        // values are written as rule text that compares as the request's do (`a%2Bb` stays escaped).
        let rawItems = request.url.query(percentEncoded: true)?.split(separator: "&", omittingEmptySubsequences: true) ?? []
        let rawParts = rawItems.map { $0.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false) }
        let rawAligned = rawParts.count == request.queryItems.count
        for item in request.queryItems where !ignoredQuery.contains(item.name) && redactor.isSecret(item.name) { remember(item.value) }
        // Per item in order: its condition, or nil when ignored.
        let itemConditions = request.queryItems.enumerated().map { index, item -> BundleWriter.RequestConditions.QueryValue? in
            if ignoredQuery.contains(item.name) { return nil }
            if redactor.isSecret(item.name) {
                redacted += 1
                return .present
            } else if let inner = redactor.embedded(item.value) {
                inner.values.forEach(remember)
                redacted += inner.redacted
                return .present
            } else if scrub(item.value).1 > 0 {
                redacted += 1
                return .present
            }
            guard rawAligned, rawParts[index].count > 1 else { return .equals(item.value) }
            return .equals(PercentEncoding.ruleText(ofQuery: rawParts[index][1]))
        }
        for (index, (item, condition)) in zip(request.queryItems, itemConditions).enumerated() {
            let name = rawAligned ? PercentEncoding.ruleText(ofQuery: rawParts[index][0]) : item.name
            if query[name] == nil, let condition { query[name] = condition }
        }
        // A name given more than once: a query condition sees only its first value, so the whole query
        // is pinned in its recorded order (items left out or secret match any value).
        // Escapes match in either case there, as query conditions compare them.
        var recordedQuery: String? = nil
        if rawAligned, !rawItems.isEmpty {
            recordedQuery = zip(rawItems, itemConditions).map { rawItem, condition -> String in
                if case .equals? = condition { return PercentEncoding.escapeCaseInsensitive(pattern: BundleWriter.regexEscaped(String(rawItem))) }
                let name = rawItem.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
                return PercentEncoding.escapeCaseInsensitive(pattern: BundleWriter.regexEscaped(String(name))) + "(=[^&#]*)?"
            }.joined(separator: "&")
        }
        let repeats = Set(request.queryItems.map(\.name)).count < request.queryItems.count
        // Path segments that hold a known secret are written as the placeholder and match any value.
        var segments = request.url.path(percentEncoded: true).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var anySegments: Set<Int> = []
        var index = 0
        for (i, segment) in segments.enumerated() where !segment.isEmpty {
            if scrub(PercentEncoding.decoded(segment[...])).1 > 0 {
                segments[i] = Redactor.placeholder
                anySegments.insert(index)
                redacted += 1
            }
            index += 1
        }
        var conditions = BundleWriter.RequestConditions(method: request.method, host: request.host.isEmpty ? nil : request.host,
                                                        path: segments.joined(separator: "/"), query: query)
        conditions.anySegments = anySegments
        conditions.body = body
        conditions.graphQL = graphQL
        conditions.scheme = request.scheme.isEmpty ? nil : request.scheme
        let defaultPort = request.scheme == "https" ? 443 : 80
        conditions.port = request.url.port.flatMap { $0 == defaultPort ? nil : $0 }
        conditions.recordedQuery = recordedQuery
        conditions.exactQuery = repeats ? recordedQuery : nil
        return conditions
    }

    /// The condition on a body (a request's, or a WebSocket client message's): exact text, JSON equal or,
    /// with volatile or secret fields left out, JSON containing the rest; `nil` when a secret leaves
    /// nothing a replay would equal.
    func bodyCondition(for request: StubRequest, redacted: inout Int) -> BundleWriter.RequestConditions.Body? {
        guard let body = request.body, !body.isEmpty else { return nil }
        // A multipart body carries a boundary the app makes anew for each request (usually a UUID), so
        // no replay would ever equal the recorded bytes: uploads match on method, path and query, and
        // repeated ones replay in order. Secrets in its parts are still found, for the known-secret scrub.
        if request.header("content-type")?.lowercased().hasPrefix("multipart/") == true {
            if let text = String(data: body, encoding: .utf8) {
                let result = redactor.text(text, contentType: request.header("content-type"))
                result.values.forEach(remember)
                redacted += result.redacted
            }
            return nil
        }
        if let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
           value is [String: Any] || value is [Any] {
            let result = redactor.json(value)
            redacted += result.redacted
            result.values.forEach(remember)
            // Known secrets under innocent names (a token echoed in a `note`) are left out too.
            let known = scrubbed(result.value, path: [])
            redacted += known.count
            let secretPaths = result.paths + known.paths
            let leaveOut = configuration.ignoredBodyPaths + secretPaths
            if !secretPaths.isEmpty && (!(value is [String: Any]) || secretPaths.contains(where: { $0.contains("[]") })) {
                // A secret the condition cannot leave out (inside an array): no body condition at all,
                // rather than the secret on disk or a placeholder no replay would ever equal.
                return nil
            } else if var object = known.value as? [String: Any], leaveOut.contains(where: { Self.has($0, in: object) }) {
                // Built from the redacted tree, so nothing secret survives whatever is left out.
                for path in leaveOut { object = Self.removing(path, from: object) }
                return .containsJSON(CanonicalJSON.string(object))
            } else {
                return .equalsJSON(CanonicalJSON.string(known.value))
            }
        }
        guard let text = String(data: body, encoding: .utf8) else { return nil }
        let result = redactor.text(text, contentType: request.header("content-type"))
        result.values.forEach(remember)
        // A body with a secret matches on everything else, with no body condition: the placeholder
        // would never equal the real value a replay sends.
        if result.redacted > 0 { redacted += result.redacted; return nil }
        let known = scrub(text).1
        if known > 0 { redacted += known; return nil }
        return .equals(text)
    }

    static func has(_ path: [String], in object: [String: Any]) -> Bool {
        guard let first = path.first, let child = object[first] else { return false }
        if path.count == 1 { return true }
        return (child as? [String: Any]).map { has(Array(path.dropFirst()), in: $0) } ?? false
    }

    static func removing(_ path: [String], from object: [String: Any]) -> [String: Any] {
        guard let first = path.first, object[first] != nil else { return object }
        var result = object
        if path.count == 1 {
            result[first] = nil
        } else if let child = object[first] as? [String: Any] {
            result[first] = removing(Array(path.dropFirst()), from: child)
        }
        return result
    }
}
