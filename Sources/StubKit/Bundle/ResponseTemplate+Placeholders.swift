import Foundation

/// Rendering without a request, for checks that read a templated body (`stublint lint --openapi`).
extension ResponseTemplate {
    /// One placeholder as the template writes it, and how its value goes in.
    package struct Placeholder: Sendable, Hashable, CustomStringConvertible {
        package enum Insertion: Sendable, Hashable {
            /// Inside a JSON string, or as plain text: the value is always text there.
            case text
            /// As a JSON value whose type the request decides (`| json`, or unfiltered outside a string).
            case anyJSON
            /// As a JSON number, or `null` when the value is not a number (`| number`).
            case number
        }

        /// `{{path.id}}`, `{{body.total | number}}`, as it would be written.
        package var written: String
        package var insertion: Insertion
        /// Whether the placeholder stands inside a JSON string (so its value only adds text to it).
        package var insideString: Bool

        package var description: String { written }
    }

    /// The placeholders in order, each with how its value goes in.
    package var placeholders: [Placeholder] {
        parts.compactMap { part in
            guard case .field(let field, let filter, let insertion) = part else { return nil }
            return Self.placeholder(field, filter, insertion)
        }
    }

    /// The output with each placeholder replaced by `value(index, placeholder)`, written as it is.
    package func render(placeholderValue value: (Int, Placeholder) -> String) -> String {
        var out = ""
        var index = 0
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let field, let filter, let insertion):
                out += value(index, Self.placeholder(field, filter, insertion))
                index += 1
            }
        }
        return out
    }

    private static func placeholder(_ field: Field, _ filter: Filter?, _ insertion: Insertion) -> Placeholder {
        let name: String
        switch field {
        case .path(let n): name = "path.\(n)"
        case .query(let n): name = "query.\(n)"
        case .header(let n): name = "header.\(n)"
        case .body(let path): name = (["body"] + path).joined(separator: ".")
        case .now(.iso8601): name = "now"
        case .now(let format): name = "now.\(format.rawValue)"
        case .request(let n): name = "request.\(n)"
        case .hit: name = "hit"
        case .graphQL(let path): name = (["graphql"] + path).joined(separator: ".")
        }
        let written = "{{\(name)\(filter.map { " | \($0.rawValue)" } ?? "")}}"
        switch insertion {
        case .jsonStringContent: return Placeholder(written: written, insertion: .text, insideString: true)
        case .raw: return Placeholder(written: written, insertion: .anyJSON, insideString: false)
        case .jsonValue: return Placeholder(written: written, insertion: filter == .number ? .number : .anyJSON, insideString: false)
        }
    }
}
