import Foundation

extension JSONText {
    /// A parsed value with its keys in file order (an OpenAPI example, a rules-file `json`).
    static func from(_ value: SourceValue) -> JSONText {
        switch value.kind {
        case .dictionary(let entries): return .object(entries.map { ($0.key, from($0.value)) })
        case .array(let items): return .array(items.map(from))
        case .string(let text): return .string(text)
        case .integer(let n): return .int(n)
        case .bool(let b): return .bool(b)
        default: return .raw(String(decoding: value.jsonData(), as: UTF8.self))
        }
    }
}

extension SourceValue {
    /// The value as JSON for people to read and edit: keys in their order, two-space indents, a final newline,
    /// the layout of the rules files StubKit writes.
    package func readableJSON() -> String {
        JSONText.from(self).rendered() + "\n"
    }
}
