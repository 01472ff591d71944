#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// The example body of a documented response: the media type's `example`, the first of its
/// `examples`, else one put together from the schema's own examples and types (as Prism does).
struct ExampleBuilder {
    let spec: OpenAPISpec

    /// What the example came from, for the scaffold's report.
    enum Origin: String { case mediaExample = "example", namedExample = "examples", schema = "schema" }

    func example(for media: SourceValue) -> (SourceValue, Origin)? {
        if let example = media["example"] { return (example, .mediaExample) }
        if let first = media["examples"]?.dictionaryValue?.first {
            let resolved = spec.resolved(first.value)
            if let value = resolved["value"] { return (value, .namedExample) }
        }
        var budget = Self.maximumValues
        guard let schema = media["schema"], let built = build(schema, depth: 0, expanding: [], budget: &budget) else { return nil }
        return (built, .schema)
    }

    /// Values one example may be made of: a schema whose optional properties fan out (five at each of
    /// twelve levels is 5^12) would otherwise take hours and write a body of gigabytes.
    static let maximumValues = 2_000

    /// A value for a schema: its example, else built from its parts; `nil` when none can be made.
    ///
    /// `expanding` holds the `$ref`s being built on the way here: a recursive schema (a `Person` whose
    /// optional `mother` is a `Person`) stops at its first repetition, which leaves the optional
    /// property out, as an example would.
    private func build(_ schema: SourceValue, depth: Int, expanding: Set<String>, budget: inout Int) -> SourceValue? {
        guard depth < 12, budget > 0 else { return nil }
        budget -= 1
        var expanding = expanding
        if let ref = schema["$ref"]?.stringValue, !expanding.insert(ref).inserted { return nil }
        let schema = spec.resolved(schema)
        if let example = schema["example"] { return example }
        if let first = schema["examples"]?.arrayValue?.first { return first }
        if let constant = schema["const"] { return constant }
        if let first = schema["enum"]?.arrayValue?.first { return first }
        if let parts = schema["allOf"]?.arrayValue {
            var entries: [SourceValue.Entry] = []
            for part in parts {
                guard let built = build(part, depth: depth + 1, expanding: expanding, budget: &budget) else { return nil }
                for entry in built.dictionaryValue ?? [] where !entries.contains(where: { $0.key == entry.key }) { entries.append(entry) }
            }
            return SourceValue(.dictionary(entries))
        }
        if let first = (schema["oneOf"] ?? schema["anyOf"])?.arrayValue?.first {
            guard let built = build(first, depth: depth + 1, expanding: expanding, budget: &budget) else { return nil }
            // With a discriminator, the object names its branch (its mapping key, else the schema's name).
            guard let discriminator = schema["discriminator"], let property = discriminator["propertyName"]?.stringValue,
                  let ref = first["$ref"]?.stringValue, var entries = built.dictionaryValue else { return built }
            let name = discriminator["mapping"]?.dictionaryValue?.first { $0.value.stringValue == ref }?.key
                ?? ref.split(separator: "/").last.map(String.init) ?? ref
            entries.removeAll { $0.key == property }
            entries.insert(SourceValue.Entry(key: property, keyPosition: nil, value: SourceValue(.string(name))), at: 0)
            return SourceValue(.dictionary(entries))
        }
        let types: [String] = schema["type"]?.stringValue.map { [$0] } ?? schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let type = types.first { $0 != "null" } ?? (schema["properties"] != nil || schema["required"] != nil ? "object" : schema["items"] != nil ? "array" : nil)
        switch type {
        case "object":
            let required = Set(schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            let properties = Set((schema["properties"]?.dictionaryValue ?? []).map(\.key))
            // A required property the schema does not describe: no value can be made up for it.
            guard required.isSubset(of: properties) else { return nil }
            var entries: [SourceValue.Entry] = []
            for property in schema["properties"]?.dictionaryValue ?? [] {
                if let value = build(property.value, depth: depth + 1, expanding: expanding, budget: &budget) {
                    entries.append(SourceValue.Entry(key: property.key, keyPosition: nil, value: value))
                } else if required.contains(property.key) {
                    return nil
                }
            }
            return SourceValue(.dictionary(entries))
        case "array":
            let minimum = Int(schema["minItems"]?.numberValue ?? 0)
            guard let items = schema["items"], let item = build(items, depth: depth + 1, expanding: expanding, budget: &budget) else { return minimum == 0 ? SourceValue(.array([])) : nil }
            return SourceValue(.array([item]))
        case "string":
            switch schema["format"]?.stringValue {
            case "date-time": return SourceValue(.string("2024-01-01T00:00:00Z"))
            case "date": return SourceValue(.string("2024-01-01"))
            case "uuid": return SourceValue(.string("00000000-0000-4000-8000-000000000000"))
            default: return SourceValue(.string(String(repeating: "x", count: max(1, Int(schema["minLength"]?.numberValue ?? 1)))))
            }
        case "integer": return SourceValue(.integer(Int(schema["minimum"]?.numberValue ?? 0)))
        case "number": return SourceValue(.real(schema["minimum"]?.numberValue ?? 0))
        case "boolean": return SourceValue(.bool(true))
        case "null": return SourceValue(.null)
        default: return nil
        }
    }
}
#endif
