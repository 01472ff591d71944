#if Tools
import Foundation
import StubKit

/// A templated body rendered without a request (for the OpenAPI and GraphQL checks): each placeholder becomes a marker the validator
/// recognises, so it can say when a placeholder, not the stub, decides a value.
///
/// Markers are private-use characters around the placeholder's index: text no real body holds. A
/// placeholder that is a whole JSON value (`{{body.id | json}}`, or unfiltered outside a string) becomes
/// a string holding only its marker; one inside a string adds its marker to the string's text; one
/// with `| number` becomes `0`, the type it always has (or `null`).
package struct PlaceholderMarkers: Sendable {
    package let placeholders: [ResponseTemplate.Placeholder]

    package static let open: Character = "\u{E000}"
    package static let close: Character = "\u{E001}"

    /// Renders the template with markers; the text is then parsed as JSON.
    package static func render(_ template: ResponseTemplate) -> (text: String, markers: PlaceholderMarkers) {
        let text = template.render { index, placeholder in
            let marker = "\(open)\(index)\(close)"
            switch placeholder.insertion {
            case .text: return placeholder.insideString ? marker : "\"\(marker)\""
            case .anyJSON: return "\"\(marker)\""
            case .number: return "0"
            }
        }
        return (text, PlaceholderMarkers(placeholders: template.placeholders))
    }

    /// The placeholder a string stands for as a whole JSON value, if it is one.
    package func wholeValue(_ text: String) -> ResponseTemplate.Placeholder? {
        guard text.first == Self.open, text.last == Self.close, let index = Int(text.dropFirst().dropLast()),
              placeholders.indices.contains(index), !placeholders[index].insideString else { return nil }
        return placeholders[index]
    }

    /// The placeholders whose text a string holds.
    package func placeholders(in text: String) -> [ResponseTemplate.Placeholder] {
        guard text.contains(Self.open) else { return [] }
        var found: [ResponseTemplate.Placeholder] = []
        var rest = Substring(text)
        while let start = rest.firstIndex(of: Self.open), let end = rest[start...].firstIndex(of: Self.close) {
            if let index = Int(rest[rest.index(after: start)..<end]), placeholders.indices.contains(index) { found.append(placeholders[index]) }
            rest = rest[rest.index(after: end)...]
        }
        return found
    }
}
#endif
