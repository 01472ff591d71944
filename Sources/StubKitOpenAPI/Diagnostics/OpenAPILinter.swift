#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Checks loaded bundles against an OpenAPI document: every rule's operation, status, content type
/// and JSON body, and (for coverage) the operations no rule stubs.
///
/// Diagnostics use StubKit's ``Diagnostic`` and the SK2xx codes: located at the rule (its rules file,
/// line and key path, or the response file and the offending value's line) with the spec's operation
/// as the related location.
package struct OpenAPILinter: Sendable {
    package let spec: OpenAPISpec
    /// Files are named relative to this folder when inside it (as `stublint` names them).
    package var displayBase: URL?

    package init(spec: OpenAPISpec, displayBase: URL? = nil) {
        self.spec = spec
        self.displayBase = displayBase
    }

    package struct Report: Sendable {
        package var diagnostics: [Diagnostic]
        /// Operations at least one rule stubs, by label (`GET /pets/{petId}`).
        package var stubbed: Set<String>
        /// With coverage: "12 of 30 operations stubbed".
        package var coverageLine: String
        /// Responses of recorded bundles (`recordedAt`) that do not fit the spec (SK217), each counted once
        /// however many findings it has.
        package var driftedResponses = 0
    }

    /// Checks the rules of each bundle folder (loaded as the engine loads them; rules with errors are
    /// left out, as `stublint` already reports those).
    package func lint(folders: [URL], coverage: Bool) -> Report {
        var options = BundleLoader.Options.engine
        options.displayBase = displayBase
        options.reportLegacyKeys = false
        var diagnostics: [Diagnostic] = []
        var stubbed = Set<String>()
        var drifted = 0
        for folder in folders {
            let bundle = BundleLoader(options: options).load(folder: folder).bundle
            let tree = bundle.rulesFile.flatMap { url in (try? Data(contentsOf: url)).flatMap { try? BundleLoader.parse($0, fileName: url.lastPathComponent) } }
            // A recording's responses are what the real backend said, so a mismatch is drift, not a wrong stub.
            let recorded = tree?["recordedAt"] != nil
            for rule in bundle.rules {
                let ruleTree = RuleTree(root: tree, source: rule.source)
                diagnostics += check(rule, tree: ruleTree, recorded: recorded, drifted: &drifted, stubbed: &stubbed)
            }
        }
        if coverage {
            for operation in spec.operations where !stubbed.contains(operation.label) {
                diagnostics.append(Diagnostic(.operationNotStubbed, file: spec.file, position: operation.position, keyPath: operation.keyPath,
                                              message: "\(operation.label)\(operation.operationID.map { " (\($0))" } ?? "") is not stubbed by any rule",
                                              fix: "add a rule, or start from 'stubkit scaffold --openapi'"))
            }
        }
        let stubbedCount = spec.operations.filter { stubbed.contains($0.label) }.count
        return Report(diagnostics: diagnostics.sortedForDisplay(), stubbed: stubbed,
                      coverageLine: "\(stubbedCount) of \(spec.operations.count) operation\(spec.operations.count == 1 ? "" : "s") stubbed",
                      driftedResponses: drifted)
    }

    // MARK: One rule

    private func check(_ rule: StubRule, tree: RuleTree, recorded: Bool, drifted: inout Int, stubbed: inout Set<String>) -> [Diagnostic] {
        let source = rule.source
        let matcher = OperationMatcher(spec: spec)
        switch matcher.match(rule) {
        case .notChecked(let reason):
            return [Diagnostic(.ruleNotChecked, file: source.file, position: tree.position(of: [.urlRegex, .matchingURL, .path]) ?? source.position,
                               keyPath: source.keyPath, message: reason)]
        case .notFound(let message, let fix):
            return [Diagnostic(.operationNotFound, file: source.file, position: tree.position(of: [.path, .method, .httpMethod]) ?? source.position,
                               keyPath: tree.keyPath(of: .path), message: "\(rule.displayName): \(message)", fix: fix,
                               related: .init(file: spec.file, position: spec.root["paths"]?.position, keyPath: "paths", message: "the OpenAPI document's paths"))]
        case .found(let operations, let literals):
            var diagnostics: [Diagnostic] = []
            for operation in operations { stubbed.insert(operation.label) }
            let validator = SchemaValidator(root: spec.root, dialect: spec.dialect)
            for literal in literals {
                let value = OperationMatcher.parameterValue(literal.literal, schema: literal.schema, spec: spec)
                for violation in validator.validate(value, against: literal.schema) where violation.isViolation {
                    diagnostics.append(Diagnostic(.pathParameterMismatch, file: source.file, position: tree.position(of: [.path]) ?? source.position,
                                                  keyPath: tree.keyPath(of: .path),
                                                  message: "'\(literal.literal)' stands where \(operations[0].label) has {\(literal.parameter)}, and does not fit its schema: \(violation.message)",
                                                  related: related(operations[0], "the operation")))
                }
            }
            let responses = rule.sequence?.responses ?? [rule.response]
            for (i, response) in responses.enumerated() where response.error == nil {
                let responseTree = rule.sequence == nil ? tree : tree.item(i)
                var found: [Diagnostic] = []
                for operation in operations {
                    found += check(response, of: rule, at: responseTree, against: operation)
                }
                if recorded {
                    found = found.map(Self.drift)
                    if found.contains(where: { $0.code == .recordedResponseDrift }) { drifted += 1 }
                }
                diagnostics += found
            }
            return diagnostics
        }
    }

    /// The spec's side of a diagnostic: the operation, or the part of it (`at`) that the rule disagrees with.
    private func related(_ operation: SpecOperation, _ what: String, suffix: String = "", at position: SourcePosition? = nil) -> Diagnostic.RelatedLocation {
        operation.related(what, in: spec.file, suffix: suffix, at: position)
    }

    private func check(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, against operation: SpecOperation) -> [Diagnostic] {
        let file = rule.source.file
        guard let documented = operation.documentedResponse(response.status) else {
            let statuses = operation.responses.map(\.key).joined(separator: ", ")
            return [Diagnostic(.undocumentedStatus, file: file, position: tree.position(of: [.status, .statusCode]) ?? tree.position ?? rule.source.position,
                               keyPath: tree.keyPath(of: .status),
                               message: "status \(response.status) is not a documented response of \(operation.label) (documented: \(statuses.isEmpty ? "none" : statuses))",
                               fix: "use a documented status, or document \(response.status) in the spec",
                               related: related(operation, "the operation", suffix: ".responses", at: operation.node["responses"]?.position))]
        }
        let responseObject = spec.resolved(documented.value)
        if let ref = responseObject["$ref"]?.stringValue {
            // The spec's fault, not the rule's: say what was not checked rather than "documents no body".
            return [Diagnostic(.ruleNotChecked, file: file, position: tree.position(of: [.status, .statusCode]) ?? tree.position ?? rule.source.position,
                               keyPath: "\(tree.keyPath)", message: "\(operation.label) \(documented.key) is a $ref '\(ref)' that names nothing in the OpenAPI document; the response is not checked",
                               related: related(operation, "the documented response", suffix: ".responses.\(documented.key)", at: documented.keyPosition))]
        }
        let bodyIsEmpty: Bool
        switch response.body {
        case .empty: bodyIsEmpty = true
        case .inline(let data), .json(let data): bodyIsEmpty = data.isEmpty
        case .file: bodyIsEmpty = false
        }
        if bodyIsEmpty { return [] }
        let suffix = ".responses.\(documented.key)"
        let bodyKeys: [RuleKey] = [.json, .body, .response, .jsonFile, .inlineResponse]
        let content = responseObject["content"]?.dictionaryValue ?? []
        guard !content.isEmpty else {
            return [Diagnostic(.undocumentedContentType, file: file, position: tree.position(of: bodyKeys) ?? tree.position,
                               keyPath: "\(tree.keyPath)", message: "\(operation.label) documents no body for \(documented.key), but the rule answers with one (\(response.effectiveContentType ?? "no Content-Type"))",
                               fix: "drop the body, or document its content in the spec", related: related(operation, "the documented response", suffix: suffix, at: documented.keyPosition))]
        }
        guard let contentType = response.effectiveContentType else {
            return [Diagnostic(.undocumentedContentType, file: file, position: tree.position(of: bodyKeys) ?? tree.position, keyPath: tree.keyPath(of: .contentType),
                               message: "the rule sends a body with no Content-Type, and \(operation.label) \(documented.key) documents \(content.map(\.key).joined(separator: ", "))",
                               fix: "set 'contentType' to \(content[0].key)",
                               related: related(operation, "the documented response", suffix: ".responses.\(documented.key)", at: documented.keyPosition))]
        }
        let essence = MediaType.essence(of: contentType)
        guard let media = SpecOperation.media(for: contentType, in: content) else {
            return [Diagnostic(.undocumentedContentType, file: file, position: tree.position(of: [.contentType, .headers] + bodyKeys) ?? tree.position,
                               keyPath: tree.keyPath(of: .contentType),
                               message: "content type \(essence) is not documented for \(operation.label) \(documented.key) (documented: \(content.map(\.key).joined(separator: ", ")))",
                               fix: "set 'contentType' to a documented one", related: related(operation, "the documented response", suffix: suffix, at: documented.keyPosition))]
        }
        guard MediaType.isJSON(essence), let schema = media.value["schema"] else { return [] }
        return checkBody(response, of: rule, at: tree, schema: schema, operation: operation,
                         related: related(operation, "the documented schema (\(documented.key) \(media.key))", suffix: "\(suffix).content.\(media.key).schema", at: schema.position))
    }
}
#endif
