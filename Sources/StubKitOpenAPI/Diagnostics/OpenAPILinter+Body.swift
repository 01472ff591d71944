#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension OpenAPILinter {
    /// Validates a JSON response body (inline, `json`, file, or a template rendered with markers).
    ///
    /// Where a violation is reported: a `json` value at its own line in the rules file; a response file's
    /// value at its line in that file; an inline `body` string or a rendered template at the rule's key
    /// (their text has no lines of its own to point at).
    func checkBody(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, schema: SourceValue,
                   operation: SpecOperation, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        let keyOfBody: RuleKey
        switch response.body {
        case .json: keyOfBody = .json
        case .inline: keyOfBody = tree.has(.inlineResponse) ? .inlineResponse : .body
        case .file: keyOfBody = tree.has(.jsonFile) ? .jsonFile : .response
        case .empty: return []
        }
        let keyPath = tree.keyPath(of: keyOfBody)
        let atKey = tree.position(of: [keyOfBody]) ?? tree.position
        let atRule = Location(file: rule.source.file, keyPath: keyPath, fallback: atKey, positionsAreReal: false, servedBy: nil)

        // The text to parse, and where its positions point.
        let text: Data
        var location = atRule
        var markers: PlaceholderMarkers? = nil
        if let template = response.template?.body {
            let rendered = PlaceholderMarkers.render(template)
            markers = rendered.markers
            text = Data(rendered.text.utf8)
        } else {
            switch response.body {
            case .json(let data):
                if let written = tree.value(of: .json) {
                    location.positionsAreReal = true
                    return report(validate(written, schema, nil), at: location, related: related)
                }
                text = data
            case .inline(let data):
                text = data
            case .file(let url):
                // Unreadable or not JSON: the bundle's own checks report it (SK030, SK032).
                guard let data = try? Data(contentsOf: url) else { return [] }
                text = data
                location = Location(file: display(url), keyPath: "", fallback: nil, positionsAreReal: true,
                                    servedBy: "\(rule.source.file) \(rule.source.keyPath)")
            case .empty:
                return []
            }
        }
        let instance: SourceValue
        do {
            instance = try JSONSourceParser().parse(text)
        } catch {
            // A response file that is not JSON: the bundle's own check reports it (SK032), except for
            // a `.txt` file, which it takes as text on purpose; then say here that it was not checked.
            if case .file(let url) = response.body, markers == nil, url.pathExtension.lowercased() != "txt" { return [] }
            return [Diagnostic(.ruleNotChecked, file: atRule.file, position: atKey, keyPath: keyPath,
                               message: "the body\(markers == nil ? "" : ", rendered with placeholder values,") is not JSON (\(error.message)); not checked against the schema of \(operation.label)")]
        }
        return report(validate(instance, schema, markers), at: location, related: related)
    }

    /// Where a body's violations are reported.
    struct Location {
        var file: String
        var keyPath: String
        /// Used when positions are not real, or a violation has none.
        var fallback: SourcePosition?
        /// Whether the parsed value's positions are lines of `file`.
        var positionsAreReal: Bool
        /// For a response file: the rule that serves it.
        var servedBy: String?
    }

    private func validate(_ instance: SourceValue, _ schema: SourceValue, _ markers: PlaceholderMarkers?) -> [SchemaViolation] {
        SchemaValidator(root: spec.root, dialect: spec.dialect, markers: markers).validate(instance, against: schema)
    }

    private func report(_ violations: [SchemaViolation], at location: Location, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        violations.map { violation in
            let code: DiagnosticCode = violation.isPlaceholderNote ? .placeholderDecidesType : violation.isUncheckedNote ? .ruleNotChecked : .bodySchemaViolation
            var message = violation.description
            if let servedBy = location.servedBy { message += " (served by \(servedBy))" }
            return Diagnostic(code, file: location.file, position: location.positionsAreReal ? (violation.position ?? location.fallback) : location.fallback,
                              keyPath: location.keyPath, message: message, related: related)
        }
    }

    /// A file as `stublint` names it: relative to the display base when inside it.
    func display(_ url: URL) -> String {
        url.displayPath(relativeTo: displayBase)
    }
}

#endif
