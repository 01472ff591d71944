/// What a rule requires of a GraphQL request (`graphql`): the operation's name and type, its
/// variables, its persisted query hash, and whether it sends its document. All present fields must hold.
///
/// A request is read as GraphQL over HTTP (``GraphQLPayload``): a POST with a JSON body, a GET with
/// the fields in its URL, or an `application/graphql` body. A batch (a JSON array) never matches a
/// rule as a whole; the engine answers each of its operations with the rule that matches it.
package struct GraphQLCondition: Sendable, Hashable {
    /// Whether the request sends its document (`query`): a persisted query's first request sends only its hash.
    package enum DocumentPresence: String, Sendable, Hashable, CaseIterable {
        case present, absent
    }

    /// The operation's name: `operationName`, or the name of the document's only operation.
    package var operationName: String?
    package var operationType: GraphQLOperationType?
    /// Fields the variables must hold, with these values (as `containsJSON`).
    package var variables: JSONValue?
    /// The variables must be exactly these (as `equalsJSON`; absent variables equal `{}`).
    package var variablesEqual: JSONValue?
    /// Apollo's persisted query hash, lower-cased.
    package var persistedQuery: String?
    package var document: DocumentPresence?

    package init(operationName: String? = nil, operationType: GraphQLOperationType? = nil, variables: JSONValue? = nil,
                 variablesEqual: JSONValue? = nil, persistedQuery: String? = nil, document: DocumentPresence? = nil) {
        self.operationName = operationName
        self.operationType = operationType
        self.variables = variables
        self.variablesEqual = variablesEqual
        self.persistedQuery = persistedQuery?.lowercased()
        self.document = document
    }

    /// Calls `report` for each field the request's GraphQL fails, until it returns false.
    func check(_ payload: GraphQLPayload?, report: (Mismatch) -> Bool) {
        guard let payload else {
            _ = report(Mismatch(field: "graphql", expected: "a GraphQL request (a JSON body with 'query' or a persisted query's hash, or a GET with ?query=)",
                                actual: "a request that is not GraphQL over HTTP"))
            return
        }
        guard case .single(let operation) = payload else {
            _ = report(Mismatch(field: "graphql", expected: "one operation", actual: "a batch of \(payload.operations.count) operations",
                                detail: "the engine answers each operation of a batch with its own rule"))
            return
        }
        if let operationName, operation.name != operationName {
            guard report(Mismatch(field: "graphql operation", expected: operationName, actual: operation.name ?? "no operation name",
                                  detail: operation.problem)) else { return }
        }
        if let operationType, operation.type != operationType {
            guard report(Mismatch(field: "graphql operationType", expected: operationType.rawValue,
                                  actual: operation.type?.rawValue ?? (operation.document == nil ? "unknown (the request sends no document)" : "unknown"),
                                  detail: operation.type == nil ? operation.problem : nil)) else { return }
        }
        if let variables, !(operation.variables ?? .object([:])).contains(variables) {
            guard report(Mismatch(field: "graphql variables", expected: "containing \(variables)",
                                  actual: Self.preview(operation.variables))) else { return }
        }
        if let variablesEqual, (operation.variables ?? .object([:])) != variablesEqual {
            guard report(Mismatch(field: "graphql variables", expected: "equal to \(variablesEqual)",
                                  actual: Self.preview(operation.variables))) else { return }
        }
        if let persistedQuery, operation.persistedQueryHash != persistedQuery {
            guard report(Mismatch(field: "graphql persistedQuery", expected: persistedQuery,
                                  actual: operation.persistedQueryHash ?? "no persisted query hash")) else { return }
        }
        if let document, (operation.document != nil) != (document == .present) {
            guard report(Mismatch(field: "graphql document", expected: document == .present ? "the document sent" : "only the persisted query hash",
                                  actual: operation.document == nil ? "no document" : "the document")) else { return }
        }
    }

    /// The request's variables as a report shows them: cut as a body preview is, so a report (which an
    /// app may log) never carries a large or sensitive payload whole.
    static func preview(_ variables: JSONValue?) -> String {
        guard let text = variables?.description else { return "no variables" }
        guard text.utf8.count > 120 else { return text }
        return String(decoding: text.utf8.prefix(120), as: UTF8.self) + "…"
    }

    /// Whether every request `other` accepts is accepted by this condition (for the overlap check):
    /// each field this one sets, `other` sets the same or narrower.
    func covers(_ other: GraphQLCondition?) -> Bool {
        guard let other else { return false }
        if let operationName, other.operationName != operationName { return false }
        if let operationType, other.operationType != operationType { return false }
        if let persistedQuery, other.persistedQuery != persistedQuery { return false }
        if let document, other.document != document { return false }
        if let variablesEqual, other.variablesEqual != variablesEqual { return false }
        if let variables {
            guard let theirs = other.variablesEqual ?? other.variables, theirs.contains(variables) else { return false }
        }
        return true
    }
}
