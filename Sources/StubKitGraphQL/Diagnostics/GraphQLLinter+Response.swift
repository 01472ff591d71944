#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension GraphQLLinter {
    /// Checks one response body: inline, `json`, a response file, or a template rendered with markers.
    ///
    /// Where a problem is reported, as the OpenAPI checks do: a `json` value at its own line in the rules
    /// file; a response file's value at its line in that file; an inline `body` string or a rendered
    /// template at the rule's key (their text has no lines of its own to point at).
    func checkResponse(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, shape: GraphQLResponseShape?,
                       rootFields: (type: String, names: [String])?, operationNamed: Bool) -> [Diagnostic] {
        let keyOfBody: RuleKey
        switch response.body {
        case .json: keyOfBody = .json
        case .inline: keyOfBody = tree.has(.inlineResponse) ? .inlineResponse : .body
        case .file: keyOfBody = tree.has(.jsonFile) ? .jsonFile : .response
        case .empty:
            guard (200..<300).contains(response.status) else { return [] }
            return [Diagnostic(.graphQLResponseMalformed, file: rule.source.file, position: tree.position(of: [.status]) ?? tree.position ?? rule.source.position,
                               keyPath: tree.keyPath, message: "status \(response.status) with an empty body: a GraphQL response has 'data', 'errors' or both",
                               fix: "answer with {\"data\": …} or {\"errors\": [{\"message\": …}]}, or simulate a network failure with 'error'")]
        }
        let keyPath = tree.keyPath(of: keyOfBody)
        let atKey = tree.position(of: [keyOfBody]) ?? tree.position
        var file = rule.source.file
        var positionsAreReal = false
        var servedBy: String? = nil
        let text: Data
        var markers: PlaceholderMarkers? = nil
        var written: SourceValue? = nil
        if let template = response.template?.body {
            let rendered = PlaceholderMarkers.render(template)
            markers = rendered.markers
            text = Data(rendered.text.utf8)
        } else {
            switch response.body {
            case .json(let data):
                written = tree.value(of: .json)
                positionsAreReal = written != nil
                text = data
            case .inline(let data):
                text = data
            case .file(let url):
                // Unreadable: the bundle's own checks report it (SK030).
                guard let data = try? Data(contentsOf: url) else { return [] }
                text = data
                file = url.displayPath(relativeTo: displayBase)
                positionsAreReal = true
                servedBy = "\(rule.source.file) \(rule.source.keyPath)"
            case .empty:
                return []
            }
        }
        let value: SourceValue
        if let written {
            value = written
        } else {
            do {
                value = try JSONSourceParser().parse(text)
            } catch {
                return [Diagnostic(.graphQLRuleNotChecked, file: rule.source.file, position: atKey, keyPath: keyPath,
                                   message: "the body\(markers == nil ? "" : ", rendered with placeholder values,") is not JSON (\(error.message)); not checked as a GraphQL response")]
            }
        }
        var diagnostics: [Diagnostic] = []
        if shape == nil, !operationNamed, let data = value["data"], !(data.dictionaryValue?.isEmpty ?? true) {
            diagnostics.append(Diagnostic(.graphQLRuleNotChecked, file: rule.source.file, position: tree.position(of: [.graphql]) ?? rule.source.position,
                                          keyPath: tree.keyPath(of: .graphql),
                                          message: "the rule names no operation ('graphql.operationName'), so its 'data' is checked only against the root type's fields"))
        }
        for violation in GraphQLResponseValidator.validate(value, shape: shape, rootFields: rootFields, markers: markers) {
            let code: DiagnosticCode
            switch violation.kind {
            case .data: code = .graphQLDataMismatch
            case .malformed: code = .graphQLResponseMalformed
            case .placeholder: code = .placeholderDecidesType
            }
            var message = violation.description
            if let servedBy { message += " (served by \(servedBy))" }
            diagnostics.append(Diagnostic(code, severity: violation.severity, file: file, position: positionsAreReal ? (violation.position ?? atKey) : atKey,
                                          keyPath: servedBy == nil ? keyPath : "", message: message, related: violation.field.flatMap(related)))
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
