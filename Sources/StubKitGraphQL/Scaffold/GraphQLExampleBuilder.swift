#if Tools
import Foundation
import StubKit

/// An example answer to an operation, made from its response shape: every selected key filled, so a
/// screen built on the stub shows something in every place.
///
/// Keys are the response keys (aliases) in the order selected. On an interface or union the value is
/// of the possible type the operation selects the most keys of (its inline fragments' fields), the
/// name that sorts first among equals; `__typename` says which. Not simply the first type: a search
/// over a union of eight types that selects fields of two would otherwise show an empty row. By name,
/// not the schema's order, so splitting or reordering the schema's files does not change the example. Lists hold one element; nullable fields are filled; `@skip`/`@include`
/// fields are included; enums take their first value; an `ID` is `<type>-1`; custom scalars are strings
/// (a date, a URL, an e-mail address where the scalar's name says so, else the scalar's name).
/// The same inputs always give the same value.
struct GraphQLExampleBuilder {
    /// Values one example may hold. Shapes are shared between the places a fragment is spread, so an
    /// example (a tree) can be exponentially larger than its shape: two aliases of a field that spreads
    /// a fragment doing the same, thirty levels deep, is a billion values.
    static let maximumValues = 100_000

    var maximumValues = GraphQLExampleBuilder.maximumValues

    /// `{"data": …}` for the operation.
    func response(for shape: GraphQLResponseShape) throws(GraphQLShapeError) -> SourceValue {
        var budget = maximumValues
        let data = try object(shape.data, budget: &budget)
        return SourceValue(.dictionary([SourceValue.Entry(key: "data", keyPosition: nil, value: data)]))
    }

    private func object(_ shape: GraphQLSelectionShape, budget: inout Int) throws(GraphQLShapeError) -> SourceValue {
        let chosen = shape.fieldsByType.min { a, b in a.fields.count != b.fields.count ? a.fields.count > b.fields.count : a.typeName < b.typeName }
        guard let typeName = chosen?.typeName, let fields = chosen?.fields else {
            // An interface nothing implements: no value of it can exist.
            return SourceValue(.null)
        }
        var entries: [SourceValue.Entry] = []
        for field in fields {
            budget -= 1
            guard budget >= 0 else {
                throw GraphQLShapeError(message: "the example answer would hold more than \(maximumValues) values (fragments spread in several places multiply them)",
                                        file: field.file.isEmpty ? nil : field.file, position: field.position)
            }
            let value: SourceValue
            if field.fieldName == "__typename" {
                value = SourceValue(.string(typeName))
            } else {
                value = try self.value(of: field.type, field: field, on: typeName, budget: &budget)
            }
            entries.append(SourceValue.Entry(key: field.key, keyPosition: nil, value: value))
        }
        return SourceValue(.dictionary(entries))
    }

    private func value(of type: GraphQLTypeReference, field: GraphQLResponseField, on typeName: String, budget: inout Int) throws(GraphQLShapeError) -> SourceValue {
        switch type {
        case .nonNull(let inner):
            return try value(of: inner, field: field, on: typeName, budget: &budget)
        case .list(let item):
            return SourceValue(.array([try value(of: item, field: field, on: typeName, budget: &budget)]))
        case .named:
            if let selection = field.selection { return try object(selection, budget: &budget) }
            return Self.leaf(field.leaf ?? .string, fieldName: field.fieldName, on: typeName)
        }
    }

    /// A leaf value that reads as what the field holds.
    static func leaf(_ leaf: GraphQLLeafType, fieldName: String, on typeName: String) -> SourceValue {
        switch leaf {
        case .string:
            return SourceValue(.string(formatted(fieldName, fieldName: fieldName) ?? sentence(words(typeName) + words(fieldName))))
        case .id:
            let owner = fieldName.lowercased() == "id" ? typeName : fieldName.hasSuffix("Id") || fieldName.hasSuffix("ID") ? String(fieldName.dropLast(2)) : fieldName
            return SourceValue(.string(words(owner).joined(separator: "-") + "-1"))
        case .int: return SourceValue(.integer(1))
        case .float: return SourceValue(.real(4.5))
        case .boolean: return SourceValue(.bool(true))
        case .enumeration(_, let values):
            return values.first.map { SourceValue(.string($0)) } ?? SourceValue(.null)
        case .customScalar(let name):
            return SourceValue(.string(formatted(name, fieldName: fieldName) ?? name))
        }
    }

    /// A realistic string for a scalar or field whose name says what it holds: dates and times, URLs,
    /// e-mail addresses, UUIDs.
    static func formatted(_ name: String, fieldName: String) -> String? {
        let parts = words(name)
        guard let last = parts.last else { return nil }
        let lastTwo = parts.suffix(2).joined()
        if last == "datetime" || lastTwo == "datetime" || last == "timestamp" || last == "instant" { return "2024-05-01T12:30:00Z" }
        if last == "date" { return "2024-05-01" }
        if last == "time" { return "12:30:00" }
        if last == "url" || last == "uri" { return "https://example.com/" + words(fieldName).joined(separator: "-") }
        if last == "email" || lastTwo == "emailaddress" { return "someone@example.com" }
        if last == "uuid" { return "00000000-0000-4000-8000-000000000001" }
        return nil
    }

    /// `MenuItem` → `["menu", "item"]`, `placedAt` → `["placed", "at"]`, `HTTPStatus` → `["http", "status"]`.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let characters = Array(name)
        for (i, character) in characters.enumerated() {
            if character == "_" || character == "-" {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            let startsWord = character.isUppercase && !current.isEmpty
                && (!(characters[i - 1].isUppercase) || (i + 1 < characters.count && characters[i + 1].isLowercase))
            if startsWord {
                words.append(current)
                current = ""
            }
            current.append(character)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }
    }

    /// `["menu", "item", "name"]` → `Menu item name`.
    static func sentence(_ words: [String]) -> String {
        guard let first = words.first else { return "text" }
        return ([first.prefix(1).uppercased() + first.dropFirst()] + words.dropFirst()).joined(separator: " ")
    }
}
#endif
