#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension GraphQLLinter {
    /// Checks one response body (inline, `json`, a response file, or a template rendered with markers),
    /// with problems placed as ``ResponseBodySource`` says.
    func checkResponse(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, shape: GraphQLResponseShape?,
                       rootFields: (type: String, names: [String])?, operationNamed: Bool) -> [Diagnostic] {
        if case .empty = response.body {
            guard (200..<300).contains(response.status) else { return [] }
            return [Diagnostic(.graphQLResponseMalformed, file: rule.source.file, position: tree.position(of: [.status]) ?? tree.position ?? rule.source.position,
                               keyPath: tree.keyPath, message: "status \(response.status) with an empty body: a GraphQL response has 'data', 'errors' or both",
                               fix: "answer with {\"data\": …} or {\"errors\": [{\"message\": …}]}, or simulate a network failure with 'error'")]
        }
        // A response file that cannot be read: the bundle's own checks report it (SK030).
        guard let body = ResponseBodySource(response, of: rule, at: tree, displayBase: displayBase) else { return [] }
        let value: SourceValue
        switch body.parse() {
        case .value(let parsed): value = parsed
        // A response file that is not JSON: the bundle's own check reports it (SK032), except for a `.txt` file.
        case .reportedByBundle: return []
        case .notJSON(let problem):
            return [Diagnostic(.graphQLRuleNotChecked, file: body.bodyKey.file, position: body.bodyKey.position, keyPath: body.bodyKey.keyPath,
                               message: "\(problem); not checked as a GraphQL response")]
        }
        var diagnostics: [Diagnostic] = []
        if shape == nil, !operationNamed, let data = value["data"], !(data.dictionaryValue?.isEmpty ?? true) {
            diagnostics.append(Diagnostic(.graphQLRuleNotChecked, file: rule.source.file, position: tree.position(of: [.graphql]) ?? rule.source.position,
                                          keyPath: tree.keyPath(of: .graphql),
                                          message: "the rule names no operation ('graphql.operationName'), so its 'data' is checked only against the root type's fields"))
        }
        for violation in GraphQLResponseValidator.validate(value, shape: shape, rootFields: rootFields, markers: body.markers) {
            let code: DiagnosticCode
            switch violation.kind {
            case .data: code = .graphQLDataMismatch
            case .malformed: code = .graphQLResponseMalformed
            case .placeholder: code = .placeholderDecidesType
            }
            diagnostics.append(Diagnostic(code, severity: violation.severity, file: body.values.file, position: body.position(of: violation.position),
                                          keyPath: body.values.keyPath, message: body.message(violation.description), related: violation.field.flatMap(related)))
        }
        return diagnostics
    }

    /// The schema's definition of the field a value answers.
    private func related(_ field: GraphQLResponseField) -> Diagnostic.RelatedLocation? {
        guard field.fieldName != "__typename", let location = schema.location(ofField: field.fieldName, in: field.definedOn) else { return nil }
        return Diagnostic.RelatedLocation(file: location.file, position: location.position, keyPath: "",
                                          message: "the schema's \(field.definedOn).\(field.fieldName): \(field.type)")
    }
}
#endif
