#if Tools
import Foundation
import GraphQL
import StubKit

/// Checks the GraphQL requests of recorded traffic against a schema: each operation's document parses
/// and is valid (SK218), and its variables fit the operation's variable definitions (SK219). A
/// persisted query sent as its hash alone is a note (SK215): there is no document to check.
///
/// A request is GraphQL when it carries a GraphQL over HTTP payload (``GraphQLPayload``) on any path:
/// a JSON body with `query` or a persisted query's hash (or an array of them), an `application/graphql`
/// body, or a GET whose `query` reads as a GraphQL document (a REST search's `?query=pizza` does not).
package struct GraphQLRequestValidator: @unchecked Sendable {
    // @unchecked: the schema is immutable once built.
    package let schema: GraphQLSchemaDocument

    package init(schema: GraphQLSchemaDocument) {
        self.schema = schema
    }

    /// Where the request is written, and how diagnostics name it (`#3 POST https://…`).
    package struct Place: Sendable {
        package var file: String
        package var position: SourcePosition?
        package var keyPath: String
        package var label: String

        package init(file: String, position: SourcePosition?, keyPath: String, label: String) {
            self.file = file
            self.position = position
            self.keyPath = keyPath
            self.label = label
        }
    }

    /// The findings for one request, or `nil` when it is not a GraphQL request.
    /// - Parameter bodyTruncated: the input kept only the start of the body (the live journal keeps 4 KB).
    package func validate(_ request: StubRequest, bodyTruncated: Bool = false, at place: Place) -> [Diagnostic]? {
        let endpoint = Self.isGraphQLEndpoint(request)
        if bodyTruncated {
            // A cut-off JSON body does not parse; one to a GraphQL endpoint, or that holds a persisted
            // query's hash, is a note, not a guess.
            guard let text = request.body.map({ String(decoding: $0, as: UTF8.self) }),
                  (endpoint && text.contains("\"query\"")) || text.contains("\"persistedQuery\"") else { return nil }
            return [diagnostic(.trafficNotChecked, place, "the GraphQL request body was cut off when it was recorded (\(request.body?.count ?? 0) bytes kept); not checked against the schema")]
        }
        guard let payload = GraphQLPayload(request) else { return nil }
        // A search API's `{"query": "pizza"}` is no GraphQL request: the payload must read as one (a
        // document that scans, an operation's name, a persisted query's hash), or go to a GraphQL
        // endpoint, where a document that does not parse is the app's bug to report.
        guard endpoint || payload.operations.contains(where: \.isRecognized) else { return nil }
        let operations = payload.operations
        var diagnostics: [Diagnostic] = []
        for (i, operation) in operations.enumerated() {
            let name = operations.count > 1 ? "operation \(i + 1) of the batch (\(operation.summary))" : operation.summary
            diagnostics += check(operation, named: name, at: place)
        }
        return diagnostics
    }

    /// Whether the request goes where GraphQL is served: a host or path naming it (`/graphql`,
    /// `/api/gql`, `graphql.example.com`), or a GraphQL media type.
    static func isGraphQLEndpoint(_ request: StubRequest) -> Bool {
        let path = request.url.path.lowercased()
        if path.contains("graphql") || path.split(separator: "/").contains("gql") { return true }
        if request.url.host?.lowercased().split(separator: ".").contains(where: { $0 == "graphql" || $0 == "gql" }) == true { return true }
        return request.headers.first { $0.key.lowercased() == "content-type" }?.value.lowercased().contains("graphql") ?? false
    }

    /// A validation message without the literal values the app wrote into its document (GraphQL's
    /// `Int cannot represent non-integer value: "…"`): an inline argument may be a credential; the
    /// line and column say where it is.
    static func withoutLiterals(_ message: String) -> String {
        guard let regex = try? NSRegularExpression(pattern: #"(value: |found )("(?:[^"\\]|\\.)*"|[^\s,.;]+(?:\.[0-9]+)?)"#) else { return message }
        return regex.stringByReplacingMatches(in: message, range: NSRange(message.startIndex..., in: message), withTemplate: "$1(a literal, not shown)")
    }

    private func check(_ operation: GraphQLOperation, named name: String, at place: Place) -> [Diagnostic] {
        guard let text = operation.document else {
            let hash = operation.persistedQueryHash.map { " (sha256 \($0.prefix(12))…)" } ?? ""
            return [diagnostic(.trafficNotChecked, place, "\(name): a persisted query sent as its hash alone\(hash); the document was not sent, so it is not checked against the schema")]
        }
        let document: Document, source: GraphQLSourceText
        switch GraphQLFileReader.parse(document: text, display: "document") {
        case .failure(let problem):
            return [diagnostic(.trafficGraphQLDocumentInvalid, place, "\(name): the document\(Self.at(problem)) does not parse: \(problem.message)")]
        case .success(let parsed):
            (document, source) = parsed
        }
        var diagnostics = GraphQLOperationDocuments.validate(document, in: source, schema: schema).map { item in
            diagnostic(.trafficGraphQLDocumentInvalid, place, "\(name): the document\(Self.at(item.problem)) is not valid against the schema: \(Self.withoutLiterals(item.problem.message))")
        }
        let definitions = document.definitions.compactMap { $0 as? OperationDefinition }
        let definition = operation.name.flatMap { wanted in definitions.first { $0.name?.value == wanted } } ?? (definitions.count == 1 ? definitions.first : nil)
        guard let definition else {
            // Which operation the server would run cannot be told: the scanner says why.
            let reason = operation.problem ?? "the document defines no operation the request names"
            diagnostics.append(diagnostic(.trafficGraphQLDocumentInvalid, place, "\(name): \(reason)", fix: "send 'operationName' with one of the document's operations"))
            return diagnostics
        }
        let variables = operation.variables.map(SourceValue.init(json:))
        for violation in GraphQLVariablesValidator.validate(sent: variables, definitions: definition.variableDefinitions, schema: schema) {
            let pointer = violation.pointer.isEmpty ? "" : " at \(violation.pointer)"
            diagnostics.append(diagnostic(.trafficGraphQLVariablesInvalid, place, "\(name): the variables do not fit\(pointer): \(violation.message)"))
        }
        return diagnostics
    }

    /// ` at 3:7` (line and column in the request's document), or nothing when the problem has no place.
    private static func at(_ problem: GraphQLProblem) -> String {
        problem.position.map { " at \($0.line):\($0.column)" } ?? ""
    }

    private func diagnostic(_ code: DiagnosticCode, _ place: Place, _ message: String, fix: String? = nil) -> Diagnostic {
        Diagnostic(code, file: place.file, position: place.position, keyPath: place.keyPath, message: "\(place.label): \(message)", fix: fix)
    }
}

extension SourceValue {
    /// A request's JSON value, without places: whole numbers as integers, as GraphQL's `Int` reads them.
    init(json: JSONValue) {
        switch json {
        case .null: self.init(.null)
        case .bool(let value): self.init(.bool(value))
        case .number(let value):
            if value.rounded() == value, abs(value) < 9.0e15 { self.init(.integer(Int(value))) } else { self.init(.real(value)) }
        case .string(let value): self.init(.string(value))
        case .array(let items): self.init(.array(items.map(SourceValue.init(json:))))
        case .object(let fields):
            self.init(.dictionary(fields.sorted { $0.key < $1.key }.map { Entry(key: $0.key, keyPosition: nil, value: SourceValue(json: $0.value)) }))
        }
    }
}
#endif
