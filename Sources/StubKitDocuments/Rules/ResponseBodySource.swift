#if Tools
import Foundation
import StubKit

/// A rule's response body as text, and where the positions of a value parsed from it point: what the
/// checks of bodies against a schema (OpenAPI, GraphQL) read before they validate.
///
/// Where a problem is reported: a `json` value at its own line in the rules file; a response file's
/// value at its line in that file (naming the rule that serves it); an inline `body` string or a
/// rendered template at the rule's body key (their text has no lines of its own to point at).
package struct ResponseBodySource: Sendable {
    /// A place in a file: where a problem is reported.
    package struct Place: Sendable {
        package var file: String
        package var keyPath: String
        package var position: SourcePosition?

        package init(file: String, keyPath: String, position: SourcePosition?) {
            self.file = file
            self.keyPath = keyPath
            self.position = position
        }
    }

    /// The body's bytes; a template's text rendered with ``markers``.
    package var text: Data
    /// For a template: the markers its placeholders became.
    package var markers: PlaceholderMarkers?
    /// The value as the rules file holds it, with its own positions (a `json` body), so it need not be parsed again.
    package var written: SourceValue?
    /// The body's key in the rules file: where a note on the body as a whole goes (it is not JSON).
    package var bodyKey: Place
    /// Where a parsed value's problems go; its position is the fallback for a problem with none, or
    /// for every problem when ``positionsAreReal`` is false.
    package var values: Place
    /// Whether a parsed value's positions are lines of ``values``'s file.
    package var positionsAreReal: Bool
    /// For a response file: the rule that serves it (`stubsRules.json [2]`).
    package var servedBy: String?
    /// Whether the bundle's own checks report this text when it is not JSON (SK032: a response file
    /// other than `.txt`, which they take as text on purpose), so a body check should stay silent.
    package var notJSONIsReportedByBundle: Bool

    package init(text: Data, markers: PlaceholderMarkers? = nil, written: SourceValue? = nil, bodyKey: Place, values: Place,
                 positionsAreReal: Bool, servedBy: String? = nil, notJSONIsReportedByBundle: Bool = false) {
        self.text = text
        self.markers = markers
        self.written = written
        self.bodyKey = bodyKey
        self.values = values
        self.positionsAreReal = positionsAreReal
        self.servedBy = servedBy
        self.notJSONIsReportedByBundle = notJSONIsReportedByBundle
    }

    /// The body `response` answers with, as `rule` at `tree` writes it; nil for an empty body or a
    /// response file that cannot be read (the bundle's own checks report that: SK030).
    package init?(_ response: StubResponse, of rule: StubRule, at tree: RuleTree, displayBase: URL?) {
        let keyOfBody: RuleKey
        switch response.body {
        case .json: keyOfBody = .json
        case .inline: keyOfBody = tree.has(.inlineResponse) ? .inlineResponse : .body
        case .file: keyOfBody = tree.has(.jsonFile) ? .jsonFile : .response
        case .empty: return nil
        }
        let atKey = Place(file: rule.source.file, keyPath: tree.keyPath(of: keyOfBody), position: tree.position(of: [keyOfBody]) ?? tree.position)
        if let template = response.template?.body {
            let rendered = PlaceholderMarkers.render(template)
            self.init(text: Data(rendered.text.utf8), markers: rendered.markers, bodyKey: atKey, values: atKey, positionsAreReal: false)
            return
        }
        switch response.body {
        case .json(let data):
            let written = tree.value(of: .json)
            self.init(text: data, written: written, bodyKey: atKey, values: atKey, positionsAreReal: written != nil)
        case .inline(let data):
            self.init(text: data, bodyKey: atKey, values: atKey, positionsAreReal: false)
        case .file(let url):
            guard let data = try? Data(contentsOf: url) else { return nil }
            self.init(text: data, bodyKey: atKey, values: Place(file: url.displayPath(relativeTo: displayBase), keyPath: "", position: nil),
                      positionsAreReal: true, servedBy: "\(rule.source.file) \(rule.source.keyPath)",
                      notJSONIsReportedByBundle: url.pathExtension.lowercased() != "txt")
        case .empty:
            return nil
        }
    }

    /// The body read as JSON.
    package enum Parsed: Sendable {
        case value(SourceValue)
        /// Not JSON, and nothing else reports it: `the body is not JSON (…)`, for a note at ``bodyKey``.
        case notJSON(String)
        /// Not JSON, which the bundle's own checks report (SK032).
        case reportedByBundle
    }

    /// The body as a JSON value: the written one, or the text parsed.
    package func parse() -> Parsed {
        if let written { return .value(written) }
        do {
            return .value(try JSONSourceParser().parse(text))
        } catch {
            if notJSONIsReportedByBundle { return .reportedByBundle }
            return .notJSON("the body\(markers == nil ? "" : ", rendered with placeholder values,") is not JSON (\(error.message))")
        }
    }

    /// Where a problem found at `position` of the parsed value is reported.
    package func position(of position: SourcePosition?) -> SourcePosition? {
        positionsAreReal ? (position ?? values.position) : values.position
    }

    /// A problem's message, naming the rule that serves a response file.
    package func message(_ text: String) -> String {
        servedBy.map { "\(text) (served by \($0))" } ?? text
    }
}
#endif
