import Foundation

/// A JSON value whose object keys keep the order they were given in, rendered with two-space indents.
///
/// Written rules files are read by people: `name`, `method`, `path` first, the response last, which
/// `JSONSerialization` (unordered or alphabetical) cannot do.
indirect enum JSONText: Sendable {
    case object([(String, JSONText)])
    case array([JSONText])
    case string(String)
    case int(Int)
    case bool(Bool)
    /// A value already serialized by `JSONSerialization` (a number, `null`).
    case raw(String)

    /// Any value `JSONSerialization` produced, objects with sorted keys.
    static func from(any value: Any) -> JSONText {
        if let object = value as? [String: Any] {
            return .object(object.keys.sorted().map { ($0, from(any: object[$0]!)) })
        }
        if let array = value as? [Any] { return .array(array.map(from(any:))) }
        if let string = value as? String { return .string(string) }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed])) ?? Data("null".utf8)
        return .raw(String(decoding: data, as: UTF8.self))
    }

    func rendered(indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent + 1), end = String(repeating: "  ", count: indent)
        switch self {
        case .object(let pairs):
            guard !pairs.isEmpty else { return "{}" }
            if isShort { return "{ " + pairs.map { "\(Self.quoted($0.0)): \($0.1.rendered())" }.joined(separator: ", ") + " }" }
            return "{\n" + pairs.map { "\(pad)\(Self.quoted($0.0)): \($0.1.rendered(indent: indent + 1))" }.joined(separator: ",\n") + "\n\(end)}"
        case .array(let items):
            guard !items.isEmpty else { return "[]" }
            if items.allSatisfy({ if case .object = $0 { return false }; if case .array = $0 { return false }; return true }) {
                let line = "[" + items.map { $0.rendered() }.joined(separator: ", ") + "]"
                if line.count <= 80 { return line }
            }
            return "[\n" + items.map { pad + $0.rendered(indent: indent + 1) }.joined(separator: ",\n") + "\n\(end)]"
        case .string(let text): return Self.quoted(text)
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .raw(let text): return text
        }
    }

    /// Small flat objects (a query condition, a header list) stay on one line.
    private var isShort: Bool {
        guard case .object(let pairs) = self, pairs.count <= 3 else { return false }
        return pairs.allSatisfy {
            switch $0.1 { case .object, .array: return false; default: return true }
        } && pairs.reduce(0) { $0 + $1.0.count + $1.1.rendered().count } < 80
    }

    /// The same escaping as the source parser's canonical output, so both write identical strings.
    static func quoted(_ text: String) -> String {
        var out = ""
        SourceValue.appendQuoted(text, to: &out)
        return out
    }
}
