import Foundation
import StubKit

extension OpenAPILinter {
    /// Validates a JSON response body (inline, `json`, file, or a template rendered with markers).
    func checkBody(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, schema: SourceValue,
                   operation: SpecOperation, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        var markers: PlaceholderMarkers? = nil
        var instance: SourceValue
        var file = rule.source.file
        var keyPath: String
        var fallback: SourcePosition?
        let keyOfBody: String
        switch response.body {
        case .json: keyOfBody = "json"
        case .inline: keyOfBody = tree.has("inline_response") ? "inline_response" : "body"
        case .file: keyOfBody = tree.has("json_file") ? "json_file" : "response"
        case .empty: return []
        }
        keyPath = "\(tree.keyPath).\(keyOfBody)"
        fallback = tree.position(of: [keyOfBody]) ?? tree.position
        var positionsAreReal = true
        var fileName: String? = nil
        let text: Data?
        if let template = response.template?.body {
            let rendered = PlaceholderMarkers.render(template)
            markers = rendered.markers
            text = Data(rendered.text.utf8)
            positionsAreReal = false
        } else {
            switch response.body {
            case .json(let data):
                if let written = tree.value(of: "json") { text = nil; instance = written; return report(validate(instance, schema, markers), rule: rule, file: file, keyPath: keyPath, fallback: fallback, positions: true, related: related) }
                text = data
                positionsAreReal = false
            case .inline(let data): text = data; positionsAreReal = false
            case .file(let url):
                text = try? Data(contentsOf: url)
                fileName = display(url)
            case .empty: return []
            }
        }
        guard let text else { return [] }
        do {
            instance = try JSONSourceParser().parse(text)
        } catch {
            // A response file that is not JSON is already SK032; a template that renders to no JSON is a note here.
            guard fileName == nil else { return [] }
            return [Diagnostic(.ruleNotChecked, file: file, position: fallback, keyPath: keyPath,
                               message: "the body\(markers == nil ? "" : ", rendered with placeholder values,") is not JSON (\(error.message)); not checked against the schema of \(operation.label)")]
        }
        if let fileName, markers == nil {
            file = fileName
            keyPath = ""
        } else if let fileName {
            // A templated file: positions are of the rendered text, so the diagnostic names the file alone.
            file = fileName
            keyPath = ""
            fallback = nil
        }
        return report(validate(instance, schema, markers), rule: rule, file: file, keyPath: keyPath, fallback: fallback,
                      positions: positionsAreReal, related: related, servedBy: fileName == nil ? nil : "\(rule.source.file) \(rule.source.keyPath)")
    }

    private func validate(_ instance: SourceValue, _ schema: SourceValue, _ markers: PlaceholderMarkers?) -> [SchemaViolation] {
        SchemaValidator(root: spec.root, dialect: spec.dialect, markers: markers).validate(instance, against: schema)
    }

    private func report(_ violations: [SchemaViolation], rule: StubRule, file: String, keyPath: String, fallback: SourcePosition?,
                        positions: Bool, related: Diagnostic.RelatedLocation, servedBy: String? = nil) -> [Diagnostic] {
        violations.map { violation in
            let code: DiagnosticCode = violation.isPlaceholderNote ? .placeholderDecidesType : .bodySchemaViolation
            var message = violation.description
            if let servedBy { message += " (served by \(servedBy))" }
            return Diagnostic(code, file: file, position: positions ? (violation.position ?? fallback) : fallback, keyPath: keyPath,
                              message: message, related: related)
        }
    }

    /// A file as `stublint` names it: relative to the display base when inside it.
    func display(_ url: URL) -> String {
        let path = url.standardizedFileURL.path
        if let base = displayBase?.standardizedFileURL.path {
            let prefix = base.hasSuffix("/") ? base : base + "/"
            if path.hasPrefix(prefix) { return String(path.dropFirst(prefix.count)) }
        }
        return path
    }
}

/// A rule's dictionary in its rules file (or one item of its `responses`), to locate keys.
struct RuleTree {
    var value: SourceValue?
    var keyPath: String

    init(root: SourceValue?, source: RuleSource) {
        keyPath = source.keyPath
        let list = root?.arrayValue ?? root?["rules"]?.arrayValue
        value = list.flatMap { source.index < $0.count ? $0[source.index] : nil }
    }

    private init(value: SourceValue?, keyPath: String) {
        self.value = value
        self.keyPath = keyPath
    }

    /// The `responses` item `i`.
    func item(_ i: Int) -> RuleTree {
        let items = value?["responses"]?.arrayValue
        return RuleTree(value: items.flatMap { i < $0.count ? $0[i] : nil }, keyPath: "\(keyPath).responses[\(i)]")
    }

    var position: SourcePosition? { value?.position }

    func has(_ key: String) -> Bool { value?[key] != nil }

    func value(of key: String) -> SourceValue? { value?[key] }

    /// Where the first of `keys` that the rule writes has its value.
    func position(of keys: [String]) -> SourcePosition? {
        for key in keys { if let found = value?[key] { return found.position } }
        return nil
    }
}
