import Foundation

/// What a recorded GraphQL request's rule matches on: the operation, not the bytes of its body.
///
/// A body match pins the document's whitespace, the order of its fields and whatever a client adds to
/// `extensions`, so a replay fails as soon as the client library changes how it prints a document.
/// The `graphql` condition matches what selects the answer: the operation's name and type, and the
/// variables it was sent with.
extension Recorder {
    /// The query items of GraphQL over HTTP `GET`: the `graphql` condition reads them, so they are no
    /// query conditions of their own.
    static let graphQLQueryNames: Set<String> = ["query", "operationName", "variables", "extensions"]

    /// The `graphql` condition for one operation; `nil` when the body or query match stays (the
    /// request then records as any other).
    ///
    /// - The name: `operationName`, or the name of the document's only operation. An anonymous
    ///   operation has nothing but its document to go by, and a body match compares that document
    ///   exactly, so it keeps the body match; so does a document that does not parse or names no
    ///   operation the request picks. An anonymous persisted query sent as its hash alone goes by its
    ///   hash (`persistedQuery`).
    /// - `document: absent` for a request that sends only a persisted query's hash: the answer to it
    ///   (often Apollo's `PersistedQueryNotFound`) then replays only for such a request, never for the
    ///   retry that sends the document.
    /// - `extensions` is left out: it carries protocol metadata (the persisted query's hash, client
    ///   and tracing details), not what selects the answer; the hash is covered by the name and
    ///   `document`.
    /// - The variables are written as `variablesEqual`, exactly as sent: a replay answers the same
    ///   request, two calls of one operation with different variables become two rules, and no rule
    ///   accepts a call another was recorded for, so their order cannot matter (a `variables` subset
    ///   recorded from `{"id": 1}` would also answer `{"id": 1, "page": 2}`, and shadow its rule
    ///   whenever it came first). A secret (or an ignored body path under `variables`) cannot be
    ///   compared exactly, as a replay sends the real value and not the placeholder: those variables
    ///   are written as the `variables` subset without it, ordered after the exact rules. A secret
    ///   inside an array leaves no subset to write: the rule then matches on the operation alone.
    func graphQLConditions(for operation: GraphQLOperation, redacted: inout Int) -> BundleWriter.GraphQLConditions? {
        guard operation.problem == nil else { return nil }
        var condition = BundleWriter.GraphQLConditions(operationType: operation.type)
        if let name = operation.name {
            condition.operationName = name
        } else if operation.document == nil, let hash = operation.persistedQueryHash {
            condition.persistedQuery = hash
        } else {
            return nil
        }
        if operation.document == nil { condition.document = .absent }
        // A document with `login(password: "…")` inline: the value is learnt, so a response that
        // echoes it has it replaced too.
        if let document = operation.document, let inner = redactor.embedded(document) { inner.values.forEach(remember) }
        guard let variables = operation.variables else { return condition }
        guard case .object(let fields) = variables else { return nil }
        guard !fields.isEmpty else { return condition }
        var leaveOut: [[String]] = []
        for path in configuration.ignoredBodyPaths where path.first == "variables" {
            if path.count == 1 { return condition }
            leaveOut.append(Array(path.dropFirst()))
        }
        let result = redactor.json(Self.foundationValue(variables))
        redacted += result.redacted
        result.values.forEach(remember)
        let known = scrubbed(result.value, path: [])
        redacted += known.count
        let secretPaths = result.paths + known.paths
        guard var object = known.value as? [String: Any] else { return condition }
        if secretPaths.contains(where: { $0.contains("[]") }) { return condition }
        leaveOut += secretPaths
        if leaveOut.contains(where: { Self.has($0, in: object) }) {
            // Built from the redacted tree, so nothing secret survives whatever is left out.
            for path in leaveOut { object = Self.removing(path, from: object) }
            if !object.isEmpty { condition.variables = CanonicalJSON.string(object) }
        } else {
            condition.variablesEqual = CanonicalJSON.string(object)
        }
        return condition
    }

    /// The rules of a recorded batch, one per operation, each with its element of the response; `nil`
    /// to record the batch as one rule matching its body.
    ///
    /// The engine answers a batch operation by operation, each with the rule that matches it, and
    /// sends the answers as an array in order: one rule per operation replays the batch and each of
    /// its operations sent alone. That needs the response to be an array with one answer per
    /// operation; anything else (an error object for the whole batch, a count that differs) cannot be
    /// split, and is replayed whole for the same body.
    func batchParts(of request: StubRequest, operations: [GraphQLOperation], body: URL, size: Int,
                    redacted: inout Int) -> [(conditions: BundleWriter.RequestConditions, body: Data)]? {
        guard size <= Self.jsonLimit, let data = try? Data(contentsOf: body),
              let answers = try? JSONSerialization.jsonObject(with: data) as? [Any], answers.count == operations.count else { return nil }
        var count = 0
        var graphQLs: [BundleWriter.GraphQLConditions] = []
        for operation in operations {
            guard let condition = graphQLConditions(for: operation, redacted: &count) else { return nil }
            graphQLs.append(condition)
        }
        var options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        if configuration.prettyJSON { options.insert(.prettyPrinted) }
        var parts: [(conditions: BundleWriter.RequestConditions, body: Data)] = []
        for (graphQL, answer) in zip(graphQLs, answers) {
            guard let text = try? JSONSerialization.data(withJSONObject: answer, options: options) else { return nil }
            parts.append((conditions(for: request, graphQL: graphQL, redacted: &count), text))
        }
        redacted += count
        return parts
    }

    /// A parsed JSON value as `JSONSerialization` gives it, for the redactor: whole numbers as integers.
    static func foundationValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: return NSNull()
        case .bool(let flag): return flag
        case .number(let number):
            if number == number.rounded(), abs(number) < 1e15 { return Int(number) }
            return number
        case .string(let text): return text
        case .array(let items): return items.map(foundationValue)
        case .object(let fields): return fields.mapValues(foundationValue)
        }
    }
}
