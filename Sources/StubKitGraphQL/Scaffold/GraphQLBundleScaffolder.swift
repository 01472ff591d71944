#if Tools
import Foundation
import StubKit

/// Writes a starting bundle from a GraphQL schema and an app's operation documents through StubKit's
/// bundle writer: one rule per operation, answered by an example that fits its selection set
/// (``GraphQLExampleBuilder``), and Apollo's persisted-query handshake.
///
/// An operation the schema rejects is reported with its place and left out, never guessed. A
/// subscription is left out with a note: its events arrive over a WebSocket or a streamed response,
/// which a rule's single `{"data": …}` answer is not.
package struct GraphQLBundleScaffolder {
    package let schema: GraphQLSchemaDocument
    package let documents: GraphQLOperationDocuments
    /// The rules' `host`; nil answers the path on any host.
    package var host: String?
    package var path = "/graphql"
    /// Values one example may hold (``GraphQLExampleBuilder/maximumValues``).
    package var maximumValues = GraphQLExampleBuilder.maximumValues

    package init(schema: GraphQLSchemaDocument, documents: GraphQLOperationDocuments) {
        self.schema = schema
        self.documents = documents
    }

    /// The body of the handshake rule: what Apollo's servers answer a persisted query's hash they do
    /// not know, so that the client sends the document next.
    package static let persistedQueryNotFound = #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#

    package struct Report: Sendable {
        package var bundle: URL
        package var rules: Int
        package var operations: Int
        /// What keeps operations out of the bundle, each `file:line:column: message`.
        package var problems: [String]
        /// Operations left out by design (subscriptions).
        package var notes: [String]

        package var summary: String {
            var text = "wrote \(rules) rule\(rules == 1 ? "" : "s") for \(operations) operation\(operations == 1 ? "" : "s") to \(bundle.path)\n"
            for problem in problems { text += "error: \(problem)\n" }
            for note in notes { text += "note: \(note)\n" }
            return text
        }
    }

    package struct ScaffoldError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// One operation's rule, made before anything is written.
    private struct Planned {
        var name: String
        var type: GraphQLOperationType
        var body: Data
    }

    /// Writes the bundle at `bundle` (a new or empty folder, or a bundle when `replacing`).
    ///
    /// - Throws: ``ScaffoldError`` when no operation can be written (then nothing is), or the folder
    ///   cannot be written.
    package func write(to bundle: URL, replacing: Bool = false) throws(ScaffoldError) -> Report {
        var problems = documents.problems.map(\.description)
        var notes: [String] = []
        var planned: [Planned] = []
        let shapes = GraphQLShapeBuilder(schema: schema, documents: documents)
        let examples = GraphQLExampleBuilder(maximumValues: maximumValues)
        for name in documents.operations.keys.sorted() {
            let operation = documents.operations[name]!
            let place = "\(operation.definition.file):\(operation.definition.position.line):\(operation.definition.position.column)"
            if operation.type == .subscription {
                notes.append("\(place): subscription \(name) not written: its events arrive over a WebSocket or a streamed response, which a graphql rule does not answer; write a webSocket or events rule for it by hand")
                continue
            }
            // Its problems are among `documents.problems` already, with their places.
            guard documents.validationProblems(of: name).isEmpty else { continue }
            do {
                let shape = try shapes.shape(ofOperation: name)
                let example = try examples.response(for: shape)
                planned.append(Planned(name: name, type: operation.type, body: Data(example.readableJSON().utf8)))
            } catch {
                problems.append("\(error.file == nil ? "\(place): " : "")\(error.description) (operation \(name) not written)")
            }
        }
        guard !planned.isEmpty else {
            let what = documents.operations.isEmpty ? "no named operation in the operation documents" : "no operation can be written"
            throw ScaffoldError(description: ([what + "; nothing written"] + problems.map { "error: \($0)" } + notes.map { "note: \($0)" }).joined(separator: "\n"))
        }

        let fm = FileManager.default
        if !replacing, let entries = try? fm.contentsOfDirectory(atPath: bundle.path), !entries.isEmpty {
            throw ScaffoldError(description: "\(bundle.path) is not empty; name a new folder, or pass --force to replace a bundle there")
        }
        let writer: BundleWriter
        do { writer = try BundleWriter(folder: bundle, replacing: replacing) } catch { throw ScaffoldError(description: "\(error.path): \(error.reason)") }
        writer.beginBatch()
        do {
            for operation in planned {
                var request = BundleWriter.RequestConditions(method: BundleWriter.ImportedOptions.anyMethod, host: host, path: path)
                request.options.name = "\(operation.type.rawValue) \(operation.name)"
                request.graphQL = BundleWriter.GraphQLConditions(operationName: operation.name, operationType: operation.type)
                request.options.fileBaseName = operation.name
                try writer.append(request, BundleWriter.Response(status: 200, headers: ["Content-Type": "application/json"], body: .data(operation.body), fileExtension: "json"))
            }
            // Apollo's automatic persisted queries: a hash the server does not know yet is answered so,
            // and the client sends the document next. Below every operation's rule, so that a request
            // naming its operation is answered by it.
            var handshake = BundleWriter.RequestConditions(method: BundleWriter.ImportedOptions.anyMethod, host: host, path: path)
            handshake.options.name = "persisted query not known yet"
            handshake.graphQL = BundleWriter.GraphQLConditions(document: .absent)
            handshake.options.priority = -1
            handshake.options.fileBaseName = "PersistedQueryNotFound"
            let body = Data(((try? JSONSourceParser().parse(Data(Self.persistedQueryNotFound.utf8)))?.readableJSON() ?? Self.persistedQueryNotFound).utf8)
            try writer.append(handshake, BundleWriter.Response(status: 200, headers: ["Content-Type": "application/json"], body: .data(body), fileExtension: "json"))
            try writer.endBatch()
        } catch {
            throw ScaffoldError(description: "\(error.path): \(error.reason)")
        }
        return Report(bundle: bundle.standardizedFileURL, rules: writer.ruleCount, operations: planned.count, problems: problems, notes: notes)
    }
}
#endif
