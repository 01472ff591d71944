#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Checks loaded bundles' `graphql` rules against a GraphQL schema and, when given, the app's
/// operation documents: the operation exists and is valid, its type, the variables, and each
/// response (`data` against the selection set, `errors` against the spec's shape).
///
/// Diagnostics use StubKit's ``Diagnostic`` and the SK3xx codes: located at the rule (its rules file,
/// line and key path) or at the response file's offending value (with its JSON pointer), and related
/// to the schema's field or the operation's place in its `.graphql` file.
package struct GraphQLLinter: Sendable {
    package let schema: GraphQLSchemaDocument
    /// The operation documents (`--operations`); without them only what needs no document is checked.
    package let documents: GraphQLOperationDocuments?
    /// Files are named relative to this folder when inside it (as `stublint` names them).
    package var displayBase: URL?

    package init(schema: GraphQLSchemaDocument, documents: GraphQLOperationDocuments?, displayBase: URL? = nil) {
        self.schema = schema
        self.documents = documents
        self.displayBase = displayBase
    }

    package struct Report: Sendable {
        package var diagnostics: [Diagnostic]
        /// Operations at least one rule names.
        package var stubbed: Set<String>
        /// With coverage and documents: "3 of 5 operations stubbed".
        package var coverageLine: String?
    }

    /// Checks every `graphql` rule of each bundle folder (loaded as the engine loads them; rules with
    /// errors are left out, as `stublint` already reports those).
    package func lint(folders: [URL], coverage: Bool) -> Report {
        var options = BundleLoader.Options.engine
        options.displayBase = displayBase
        options.reportLegacyKeys = false
        var diagnostics = (documents?.problems ?? []).map {
            Diagnostic(.invalidGraphQLDocument, file: $0.file, position: $0.position, message: $0.message)
        }
        var stubbed = Set<String>()
        for folder in folders {
            let bundle = BundleLoader(options: options).load(folder: folder).bundle
            let tree = bundle.rulesFile.flatMap { url in (try? Data(contentsOf: url)).flatMap { try? BundleLoader.parse($0, fileName: url.lastPathComponent) } }
            let graphQLPaths = Set(bundle.rules.filter { $0.request.graphQL != nil }.compactMap { $0.request.path?.description })
            for rule in bundle.rules {
                let ruleTree = RuleTree(root: tree, source: rule.source)
                if rule.request.graphQL != nil {
                    diagnostics += check(rule, tree: ruleTree, stubbed: &stubbed)
                } else if let path = rule.request.path?.description, graphQLPaths.contains(path) {
                    diagnostics.append(Diagnostic(.graphQLRuleNotChecked, file: rule.source.file, position: ruleTree.position(of: [.path]) ?? rule.source.position,
                                                  keyPath: rule.source.keyPath,
                                                  message: "\(rule.displayName) answers on the GraphQL path \(path) without a 'graphql' condition, so the GraphQL checks cannot tell which operation it stubs",
                                                  fix: "match it with 'graphql': {\"operationName\": …}"))
                }
            }
        }
        var coverageLine: String? = nil
        if coverage, let documents {
            for (name, operation) in documents.operations.sorted(by: { $0.key < $1.key }) where !stubbed.contains(name) {
                diagnostics.append(Diagnostic(.graphQLOperationNotStubbed, file: operation.definition.file, position: operation.definition.position,
                                              message: "\(operation.type.rawValue) \(name) is not stubbed by any rule", fix: "add a rule with 'graphql': {\"operationName\": \"\(name)\"}"))
            }
            let count = documents.operations.keys.filter { stubbed.contains($0) }.count
            coverageLine = "\(count) of \(documents.operations.count) operation\(documents.operations.count == 1 ? "" : "s") stubbed"
        }
        return Report(diagnostics: diagnostics.sortedForDisplay(), stubbed: stubbed, coverageLine: coverageLine)
    }

    // MARK: One rule

    private func check(_ rule: StubRule, tree: RuleTree, stubbed: inout Set<String>) -> [Diagnostic] {
        guard let condition = rule.request.graphQL else { return [] }
        let file = rule.source.file
        let graphQLTree = tree.value(of: .graphql)
        let at = { (key: String) in graphQLTree?[key]?.position ?? tree.position(of: [.graphql]) ?? rule.source.position }
        let keyPath = { (key: String) in "\(tree.keyPath(of: .graphql)).\(key)" }
        var diagnostics: [Diagnostic] = []
        var shape: GraphQLResponseShape? = nil
        var rootFields: (type: String, names: [String])? = nil
        let rootType = schema.rootType(condition.operationType ?? .query)
        if let rootType { rootFields = (rootType.name, schema.fields(of: rootType.name).map { Array($0.keys) } ?? []) }

        if let name = condition.operationName, let documents {
            if let operation = documents.operations[name] {
                stubbed.insert(name)
                let related = Diagnostic.RelatedLocation(file: operation.definition.file, position: operation.definition.position, keyPath: "",
                                                         message: "the operation: \(operation.type.rawValue) \(name)")
                if let type = condition.operationType, type != operation.type {
                    diagnostics.append(Diagnostic(.graphQLOperationTypeMismatch, file: file, position: at("operationType"), keyPath: keyPath("operationType"),
                                                  message: "\(name) is a \(operation.type.rawValue) in the operation documents, not a \(type.rawValue)",
                                                  fix: "set 'operationType' to \"\(operation.type.rawValue)\", or leave it out", related: related))
                }
                for (key, exact) in [("variables", false), ("variablesEqual", true)] {
                    guard let written = graphQLTree?[key] else { continue }
                    for violation in GraphQLVariablesValidator.validate(written, exact: exact, definitions: operation.node.variableDefinitions, schema: schema) {
                        diagnostics.append(Diagnostic(.graphQLVariablesMismatch, file: file, position: violation.position ?? at(key), keyPath: keyPath(key) + (violation.pointer.isEmpty ? "" : violation.pointer.replacingOccurrences(of: "/", with: ".")),
                                                      message: violation.message, related: related))
                    }
                }
                do {
                    shape = try GraphQLShapeBuilder(schema: schema, documents: documents).shape(ofOperation: name)
                } catch {
                    diagnostics.append(Diagnostic(.graphQLRuleNotChecked, file: file, position: at("operationName"), keyPath: keyPath("operationName"),
                                                  message: "the response of \(name) is not checked: \(error)", related: related))
                }
            } else {
                let suggestion = Suggestion.closest(to: name, in: documents.operations.keys)
                diagnostics.append(Diagnostic(.graphQLOperationNotFound, file: file, position: at("operationName"), keyPath: keyPath("operationName"),
                                              message: "no operation named '\(name)' in the operation documents\(suggestion.map { "; did you mean '\($0)'?" } ?? "")",
                                              fix: suggestion == nil ? "add the operation's .graphql file, or fix the name" : nil))
            }
        } else if condition.operationName != nil {
            diagnostics.append(Diagnostic(.graphQLRuleNotChecked, file: file, position: at("operationName"), keyPath: keyPath("operationName"),
                                          message: "without --operations, only the response's top level is checked (its 'errors', and that 'data' holds fields of \(rootType?.name ?? "the root type"))"))
        }
        let responses = rule.sequence?.responses ?? [rule.response]
        for (i, response) in responses.enumerated() where response.error == nil {
            let responseTree = rule.sequence == nil ? tree : tree.item(i)
            diagnostics += checkResponse(response, of: rule, at: responseTree, shape: shape, rootFields: shape == nil ? rootFields : nil,
                                         operationNamed: condition.operationName != nil)
        }
        return diagnostics
    }
}
#endif
