import Foundation

/// A JSON value compared by meaning: object key order and whitespace do not matter, and numbers
/// compare by value (`1` equals `1.0`).
package indirect enum JSONValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Converts a parsed value; dates and data (plist only) become strings.
    package init(_ value: SourceValue) {
        switch value.kind {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .number(Double(i))
        case .real(let d): self = .number(d)
        case .string(let s): self = .string(s)
        case .date(let d): self = .string(ISO8601DateFormatter().string(from: d))
        case .data(let d): self = .string(d.base64EncodedString())
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .dictionary(let entries):
            var object: [String: JSONValue] = [:]
            for entry in entries { object[entry.key] = JSONValue(entry.value) }
            self = .object(object)
        }
    }

    /// Parses JSON text; `nil` when it is not JSON.
    package init?(parsing data: Data) {
        guard let value = try? JSONSourceParser().parse(data) else { return nil }
        self.init(value)
    }

    /// Whether `self` holds every field of `subset` with the same value (arrays: element by element
    /// as a subset, same length). "These fields have these values."
    package func contains(_ subset: JSONValue) -> Bool {
        switch (self, subset) {
        case (.object(let whole), .object(let part)):
            for (key, value) in part {
                guard let mine = whole[key], mine.contains(value) else { return false }
            }
            return true
        case (.array(let whole), .array(let part)):
            guard whole.count == part.count else { return false }
            return zip(whole, part).allSatisfy { $0.contains($1) }
        default:
            return self == subset
        }
    }

    /// The value at a dot-separated path (`items.0.id`), for templates.
    package func value(at path: [Substring]) -> JSONValue? {
        var current = self
        for component in path {
            switch current {
            case .object(let object):
                guard let next = object[String(component)] else { return nil }
                current = next
            case .array(let items):
                guard let index = Int(component), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// Compact JSON text, keys sorted.
    package var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d):
            if d == d.rounded(), abs(d) < 1e15 { return String(Int(d)) }
            return String(d)
        case .string(let s):
            var out = ""
            SourceValue.appendQuoted(s, to: &out)
            return out
        case .array(let items): return "[" + items.map(\.description).joined(separator: ",") + "]"
        case .object(let object):
            return "{" + object.keys.sorted().map { key -> String in
                var out = ""
                SourceValue.appendQuoted(key, to: &out)
                return out + ":" + object[key]!.description
            }.joined(separator: ",") + "}"
        }
    }

    /// The value as template output: strings without quotes, everything else as JSON.
    var templateText: String {
        if case .string(let s) = self { return s }
        return description
    }
}
