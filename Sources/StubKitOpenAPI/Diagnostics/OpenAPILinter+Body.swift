#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension OpenAPILinter {
    /// Validates a JSON response body (inline, `json`, file, or a template rendered with markers), with
    /// problems placed as ``ResponseBodySource`` says.
    func checkBody(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, schema: SourceValue,
                   operation: SpecOperation, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        // Empty, or a response file that cannot be read: the bundle's own checks report it (SK030).
        guard let body = ResponseBodySource(response, of: rule, at: tree, displayBase: displayBase) else { return [] }
        let instance: SourceValue
        switch body.parse() {
        case .value(let value): instance = value
        // A response file that is not JSON: the bundle's own check reports it (SK032), except for a `.txt` file.
        case .reportedByBundle: return []
        case .notJSON(let problem):
            return [Diagnostic(.ruleNotChecked, file: body.bodyKey.file, position: body.bodyKey.position, keyPath: body.bodyKey.keyPath,
                               message: "\(problem); not checked against the schema of \(operation.label)")]
        }
        return report(validate(instance, schema, body.markers), of: body, related: related)
    }

    private func validate(_ instance: SourceValue, _ schema: SourceValue, _ markers: PlaceholderMarkers?) -> [SchemaViolation] {
        SchemaValidator(root: spec.root, dialect: spec.dialect, markers: markers).validate(instance, against: schema)
    }

    private func report(_ violations: [SchemaViolation], of body: ResponseBodySource, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        violations.map { violation in
            let code: DiagnosticCode = violation.isPlaceholderNote ? .placeholderDecidesType : violation.isUncheckedNote ? .ruleNotChecked : .bodySchemaViolation
            return Diagnostic(code, file: body.values.file, position: body.position(of: violation.position),
                              keyPath: body.values.keyPath, message: body.message(violation.description), related: related)
        }
    }
}

#endif
