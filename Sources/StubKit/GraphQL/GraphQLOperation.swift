import Foundation

/// The three kinds of GraphQL operation.
package enum GraphQLOperationType: String, Sendable, Hashable, CaseIterable {
    case query, mutation, subscription
}

/// One GraphQL operation as a request carries it: the fields GraphQL over HTTP sends (`query`,
/// `operationName`, `variables`, `extensions`), and the name and type read from them.
package struct GraphQLOperation: Sendable, Hashable {
    /// `operationName` as sent; `nil` when absent, null or empty.
    package var sentName: String?
    /// The document (`query`), when the request sends one: a persisted query may send only its hash.
    package var document: String?
    /// `variables`; `nil` when absent or null.
    package var variables: JSONValue?
    /// `extensions`; `nil` when absent or null.
    package var extensions: JSONValue?
    /// The name the operation goes by: `operationName`, or else the name of the document's only
    /// operation. `nil` for an anonymous operation, or when neither says.
    package var name: String?
    /// The type of the operation named (or the only one); `nil` when the request sends no document.
    package var type: GraphQLOperationType?
    /// Apollo's automatic persisted query hash (`extensions.persistedQuery.sha256Hash`), lower-cased.
    package var persistedQueryHash: String?
    /// Why the name or type could not be read from the document (it does not parse, it holds several
    /// operations and the request names none, or none of the name sent).
    package var problem: String?

    /// Reads an operation from its fields, resolving its name and type from the document.
    package init(document: String?, sentName: String?, variables: JSONValue?, extensions: JSONValue?) {
        self.document = document
        self.sentName = sentName.flatMap { $0.isEmpty ? nil : $0 }
        self.variables = Self.object(variables)
        self.extensions = Self.object(extensions)
        if case .object(let fields)? = extensions, case .object(let persisted)? = fields["persistedQuery"],
           case .string(let hash)? = persisted["sha256Hash"] {
            persistedQueryHash = hash.lowercased()
        }
        name = self.sentName
        guard let document else { return }
        switch GraphQLDocumentScanner.scan(document) {
        case .failure(let problem):
            self.problem = "the document does not parse: \(problem)"
        case .success(let summary):
            if let sentName = self.sentName {
                if let definition = summary.operations.first(where: { $0.name == sentName }) {
                    type = definition.type
                } else {
                    problem = "the document defines no operation named '\(sentName)'"
                }
            } else if summary.operations.count == 1 {
                name = summary.operations[0].name
                type = summary.operations[0].type
            } else if summary.operations.isEmpty {
                problem = "the document defines no operation"
            } else {
                problem = "the document defines \(summary.operations.count) operations and the request names none in 'operationName'"
            }
        }
    }

    /// A value that should be a JSON object: `nil` for null; a string holding a JSON object is read as
    /// that object (older servers accepted variables so, and some clients still send them so); any
    /// other value is kept, so a condition on it reports what was sent.
    private static func object(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?:
            if case .object(let object)? = JSONValue(parsing: Data(text.utf8)) { return .object(object) }
            return value
        default: return value
        }
    }

    /// Whether the request really reads as a GraphQL operation: its document parsed, or it names an
    /// operation or sends a persisted query's hash. (A REST call's `?query=pizza` does not.)
    package var isRecognized: Bool {
        type != nil || sentName != nil || persistedQueryHash != nil
    }

    /// `query GetMenu`, `anonymous mutation`, `operation GetMenu` (no document): how reports name it.
    package var summary: String {
        let kind = type?.rawValue ?? "operation"
        if let name { return "\(kind) \(name)" }
        if persistedQueryHash != nil, document == nil { return "persisted \(kind) \(persistedQueryHash!.prefix(12))… without a name" }
        return "anonymous \(kind)"
    }

    /// The operation a JSON object of GraphQL over HTTP describes; `nil` when the object is not one
    /// (it has neither a `query` string nor a persisted query's hash).
    package init?(fields: [String: JSONValue]) {
        let document: String?
        switch fields["query"] {
        case .string(let text)?: document = text
        case nil, .null?: document = nil
        default: return nil
        }
        var hasHash = false
        if case .object(let extensions)? = fields["extensions"], case .object? = extensions["persistedQuery"] { hasHash = true }
        guard document != nil || hasHash else { return nil }
        var sentName: String? = nil
        if case .string(let name)? = fields["operationName"] { sentName = name }
        self.init(document: document, sentName: sentName, variables: fields["variables"], extensions: fields["extensions"])
    }
}

/// The GraphQL a request carries: one operation, or a batch of them (a JSON array body, as Apollo's
/// batching link and others send).
package enum GraphQLPayload: Sendable, Hashable {
    case single(GraphQLOperation)
    case batch([GraphQLOperation])

    /// Reads a request as GraphQL over HTTP: a `GET` with `query` (or a persisted query's
    /// `extensions`) in its URL; a JSON body with `query` or a persisted query's hash, or an array of
    /// them; an `application/graphql` body holding the document. `nil` for any other request.
    package init?(_ request: StubRequest) {
        if let body = request.body, !body.isEmpty {
            if let contentType = request.header("content-type"), MediaType.essence(of: contentType) == "application/graphql" {
                let variables = Self.formValue("variables", of: request).flatMap { JSONValue(parsing: Data($0.utf8)) }
                self = .single(GraphQLOperation(document: request.bodyText, sentName: Self.formValue("operationName", of: request),
                                                variables: variables, extensions: nil))
                return
            }
            switch request.bodyJSON {
            case .object(let fields)?:
                guard let operation = GraphQLOperation(fields: fields) else { return nil }
                self = .single(operation)
            case .array(let items)? where !items.isEmpty:
                var operations: [GraphQLOperation] = []
                operations.reserveCapacity(items.count)
                for item in items {
                    guard case .object(let fields) = item, let operation = GraphQLOperation(fields: fields) else { return nil }
                    operations.append(operation)
                }
                self = .batch(operations)
            default:
                return nil
            }
            return
        }
        // GraphQL over HTTP, GET: every field in the URL, variables and extensions as JSON text.
        let document = Self.formValue("query", of: request)
        let extensions = Self.formValue("extensions", of: request).flatMap { JSONValue(parsing: Data($0.utf8)) }
        guard document != nil || extensions != nil else { return nil }
        var fields: [String: JSONValue] = [:]
        if let document { fields["query"] = .string(document) }
        if let extensions { fields["extensions"] = extensions }
        if let name = Self.formValue("operationName", of: request) { fields["operationName"] = .string(name) }
        if let variables = Self.formValue("variables", of: request) {
            // Read as JSON by the operation; text that is not JSON stays a string, so a variables
            // condition reports what was sent.
            fields["variables"] = .string(variables)
        }
        guard let operation = GraphQLOperation(fields: fields) else { return nil }
        self = .single(operation)
    }

    /// The value of a GraphQL field in the URL's query, decoded as a form (`+` is a space), as GraphQL
    /// servers decode it: browsers' `URLSearchParams`, curl's `--data-urlencode` and Apollo Client send
    /// spaces so. (Rules' `query` conditions keep `+` as sent, for clients that mean a plus; a GraphQL
    /// server would read it as a space all the same.)
    private static func formValue(_ name: String, of request: StubRequest) -> String? {
        guard let query = request.url.query(percentEncoded: true) else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard PercentEncoding.decoded(parts[0].replacingOccurrences(of: "+", with: " ")[...]) == name else { continue }
            return parts.count > 1 ? PercentEncoding.decoded(parts[1].replacingOccurrences(of: "+", with: " ")[...]) : ""
        }
        return nil
    }

    /// The operations, in order.
    package var operations: [GraphQLOperation] {
        switch self {
        case .single(let operation): return [operation]
        case .batch(let operations): return operations
        }
    }
}
