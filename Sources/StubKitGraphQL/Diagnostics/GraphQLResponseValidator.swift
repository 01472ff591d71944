#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// One thing wrong with a stubbed GraphQL response (or a note on what was not checked), with the
/// JSON pointer of the value and where it is written.
package struct GraphQLResponseViolation: Sendable {
    package enum Kind: Sendable {
        /// `data` does not fit the selection set.
        case data
        /// Not a GraphQL response (the top level, `errors`).
        case malformed
        /// A placeholder decides the value at serve time.
        case placeholder
    }

    package var kind: Kind
    /// `/data/restaurants/1/rating`.
    package var pointer: String
    package var message: String
    package var position: SourcePosition?
    /// The selected field the value answers (for the schema's location).
    package var field: GraphQLResponseField?
    package var severity: Diagnostic.Severity?

    /// `/data/x: message`.
    package var description: String { "\(pointer.isEmpty ? "(body)" : pointer): \(message)" }
}

/// Checks a response body against the GraphQL spec's response format and an operation's shape.
///
/// `data` must fit the selection: every selected key (alias-aware; a key under `@skip`/`@include` may
/// be absent), no other key, leaf types (`String`, `ID` as strings, `Int` in 32 bits, `Float`, `Boolean`,
/// an enum's values; a custom scalar accepts any JSON value, as its serialization is the server's),
/// null only where the type is nullable, lists as arrays, and `__typename` naming a possible type
/// (which decides the keys of an interface's or union's fragments). `data: null` needs `errors`.
/// Recursion follows the value, which the JSON reader bounds at 256 levels.
package struct GraphQLResponseValidator {
    /// More are summed up in one line, so a wrong list of 10,000 items stays readable.
    package static let maximumViolations = 50

    let markers: PlaceholderMarkers?
    private(set) var violations: [GraphQLResponseViolation] = []
    private var dropped = 0

    package init(markers: PlaceholderMarkers?) {
        self.markers = markers
    }

    /// Checks the whole response; `shape` nil checks only the top level and `errors` (and, with
    /// `rootFields`, that `data`'s keys are fields of the root type).
    package static func validate(_ response: SourceValue, shape: GraphQLResponseShape?, rootFields: (type: String, names: [String])?,
                                 markers: PlaceholderMarkers?) -> [GraphQLResponseViolation] {
        var validator = GraphQLResponseValidator(markers: markers)
        validator.checkTopLevel(response, shape: shape, rootFields: rootFields)
        if validator.dropped > 0 {
            validator.violations.append(GraphQLResponseViolation(kind: .data, pointer: "", message: "and \(validator.dropped) more problems like these", position: response.position))
        }
        return validator.violations
    }

    private mutating func report(_ kind: GraphQLResponseViolation.Kind, _ pointer: String, _ message: String, at value: SourceValue?,
                                 field: GraphQLResponseField? = nil, severity: Diagnostic.Severity? = nil) {
        guard violations.count < Self.maximumViolations else {
            dropped += 1
            return
        }
        violations.append(GraphQLResponseViolation(kind: kind, pointer: pointer, message: message, position: value?.position, field: field, severity: severity))
    }

    private mutating func checkTopLevel(_ response: SourceValue, shape: GraphQLResponseShape?, rootFields: (type: String, names: [String])?) {
        guard let entries = response.dictionaryValue else {
            report(.malformed, "", "a GraphQL response is a JSON object with 'data' and/or 'errors', not \(response.typeDescription)", at: response)
            return
        }
        let data = entries.first { $0.key == "data" }?.value
        let errors = entries.first { $0.key == "errors" }?.value
        for entry in entries where !["data", "errors", "extensions"].contains(entry.key) {
            report(.malformed, "/\(Self.escape(entry.key))", "'\(entry.key)' is not a key of a GraphQL response (data, errors, extensions)", at: entry.value)
        }
        if data == nil && errors == nil {
            report(.malformed, "", "a GraphQL response has 'data', 'errors' or both; this one has neither", at: response)
        }
        if let extensions = entries.first(where: { $0.key == "extensions" })?.value, extensions.dictionaryValue == nil {
            report(.malformed, "/extensions", "'extensions' is an object, not \(extensions.typeDescription)", at: extensions)
        }
        if let errors { checkErrors(errors) }
        guard let data else { return }
        if case .null = data.kind {
            if errors == nil {
                report(.data, "/data", "'data' is null, which a server sends only with 'errors' (the error that nulled it)", at: data)
            }
            return
        }
        if let shape {
            checkObject(data, shape.data, pointer: "/data", typeLabel: shape.rootType)
        } else if let rootFields {
            guard let dataEntries = data.dictionaryValue else {
                report(.data, "/data", "'data' is an object, not \(data.typeDescription)", at: data)
                return
            }
            for entry in dataEntries where !rootFields.names.contains(entry.key) {
                let suggestion = Suggestion.closest(to: entry.key, in: rootFields.names).map { "; did you mean '\($0)'?" } ?? ""
                report(.data, "/data/\(Self.escape(entry.key))", "'\(entry.key)' is not a field of \(rootFields.type) (an alias needs the operation documents to check)\(suggestion)",
                       at: entry.value, severity: .warning)
            }
        }
    }

    /// `errors`: a non-empty list of objects with a string `message`, optional `locations`
    /// (`{line, column}`, both positive integers), `path` (strings and integers) and `extensions` (an object).
    private mutating func checkErrors(_ errors: SourceValue) {
        guard let items = errors.arrayValue else {
            report(.malformed, "/errors", "'errors' is a list of error objects, not \(errors.typeDescription)", at: errors)
            return
        }
        if items.isEmpty {
            report(.malformed, "/errors", "'errors' is present but empty; the spec says a response without errors leaves the key out", at: errors)
        }
        for (i, item) in items.enumerated() {
            let pointer = "/errors/\(i)"
            guard let entries = item.dictionaryValue else {
                report(.malformed, pointer, "an error is an object with 'message', not \(item.typeDescription)", at: item)
                continue
            }
            if let message = entries.first(where: { $0.key == "message" })?.value {
                if message.stringValue == nil && !isWholePlaceholder(message) {
                    report(.malformed, pointer + "/message", "'message' is a string, not \(message.typeDescription)", at: message)
                }
            } else {
                report(.malformed, pointer, "an error needs a string 'message'", at: item)
            }
            for entry in entries {
                let at = "\(pointer)/\(Self.escape(entry.key))"
                switch entry.key {
                case "message": break
                case "locations":
                    guard let locations = entry.value.arrayValue else {
                        report(.malformed, at, "'locations' is a list of {line, column}, not \(entry.value.typeDescription)", at: entry.value)
                        continue
                    }
                    for (j, location) in locations.enumerated() {
                        let keys = location.dictionaryValue ?? []
                        let valid = location.dictionaryValue != nil && ["line", "column"].allSatisfy { key in
                            keys.first { $0.key == key }.map { entry in if case .integer(let n) = entry.value.kind { return n >= 1 } else { return false } } ?? false
                        }
                        if !valid {
                            report(.malformed, "\(at)/\(j)", "a location is {\"line\": n, \"column\": n} with positive integers", at: location)
                        }
                    }
                case "path":
                    guard let path = entry.value.arrayValue else {
                        report(.malformed, at, "'path' is a list of field names and list indexes, not \(entry.value.typeDescription)", at: entry.value)
                        continue
                    }
                    for (j, element) in path.enumerated() {
                        switch element.kind {
                        case .string, .integer: break
                        default: report(.malformed, "\(at)/\(j)", "a path element is a field name (string) or a list index (integer), not \(element.typeDescription)", at: element)
                        }
                    }
                case "extensions":
                    if entry.value.dictionaryValue == nil {
                        report(.malformed, at, "'extensions' is an object, not \(entry.value.typeDescription)", at: entry.value)
                    }
                default:
                    report(.malformed, at, "'\(entry.key)' is not a key of a GraphQL error (message, locations, path, extensions); put it under 'extensions'",
                           at: entry.value, severity: .warning)
                }
            }
        }
    }

    /// An object answering a selection set.
    private mutating func checkObject(_ value: SourceValue, _ shape: GraphQLSelectionShape, pointer: String, typeLabel: String) {
        guard let entries = value.dictionaryValue else {
            report(.data, pointer, "expected an object (\(typeLabel)), got \(Self.describe(value))", at: value)
            return
        }
        let present = Set(entries.map(\.key))
        var typeName = shape.possibleTypes.first ?? shape.parentType
        if let named = entries.first(where: { $0.key == "__typename" })?.value, let name = named.stringValue, !isWholePlaceholder(named) {
            if shape.possibleTypes.contains(name) {
                typeName = name
            } else {
                report(.data, pointer + "/__typename", "'\(name)' is not a possible type of \(shape.parentType) (possible: \(shape.possibleTypes.joined(separator: ", ")))", at: named)
                return
            }
        } else if !shape.isUniform {
            // Which possible type's keys the object has; the closest when none fits.
            let scored = shape.fieldsByType.map { item -> (String, Int) in
                let required = Set(item.fields.filter { !$0.isConditional }.map(\.key))
                let allowed = Set(item.fields.map(\.key))
                return (item.typeName, required.subtracting(present).count + present.subtracting(allowed).count)
            }
            let best = scored.min { $0.1 < $1.1 }!
            let fitting = scored.filter { $0.1 == 0 }
            typeName = best.0
            if fitting.count > 1, Set(fitting.map { shape.fields(for: $0.0)!.map(\.key) }).count > 1 {
                report(.data, pointer, "the object could be \(fitting.map(\.0).joined(separator: " or ")), whose selected keys differ; select __typename so that the response says which", at: value)
                return
            }
        }
        let fields = shape.fields(for: typeName) ?? []
        let keys = fields.map(\.key)
        for field in fields where !present.contains(field.key) && !field.isConditional {
            report(.data, pointer, "'\(field.key)' is selected (\(field.file)\(field.position.map { ":\($0.line):\($0.column)" } ?? "")) but missing\(shape.possibleTypes.count > 1 ? " for \(typeName)" : "")",
                   at: value, field: field)
        }
        for entry in entries {
            let at = "\(pointer)/\(Self.escape(entry.key))"
            guard let field = fields.first(where: { $0.key == entry.key }) else {
                let suggestion = Suggestion.closest(to: entry.key, in: keys).map { "; did you mean '\($0)'?" } ?? ""
                report(.data, at, "'\(entry.key)' is not selected\(shape.possibleTypes.count > 1 ? " for \(typeName)" : " on \(typeName)"); a server sends only the keys the operation selects\(suggestion)", at: entry.value)
                continue
            }
            checkValue(entry.value, type: field.type, field: field, pointer: at)
        }
    }

    private mutating func checkValue(_ value: SourceValue, type: GraphQLTypeReference, field: GraphQLResponseField, pointer: String) {
        if let markers, let text = value.stringValue, let placeholder = markers.wholeValue(text) {
            report(.placeholder, pointer, "the value is \(placeholder.written), whose type the request decides; not checked against \(type)", at: value, field: field)
            return
        }
        switch type {
        case .nonNull(let inner):
            if case .null = value.kind {
                report(.data, pointer, "null where \(field.definedOn).\(field.fieldName) is \(field.type): a server never sends it (a field error makes the nearest nullable parent null instead, with 'errors')",
                       at: value, field: field)
                return
            }
            checkValue(value, type: inner, field: field, pointer: pointer)
        case .list(let item):
            if case .null = value.kind { return }
            guard let items = value.arrayValue else {
                report(.data, pointer, "expected a list (\(type)), got \(Self.describe(value))", at: value, field: field)
                return
            }
            for (i, element) in items.enumerated() {
                checkValue(element, type: item, field: field, pointer: "\(pointer)/\(i)")
            }
        case .named(let name):
            if case .null = value.kind { return }
            if let leaf = field.leaf {
                checkLeaf(value, leaf, typeName: name, field: field, pointer: pointer)
            } else if let selection = field.selection {
                checkObject(value, selection, pointer: pointer, typeLabel: name)
            }
        }
    }

    private mutating func checkLeaf(_ value: SourceValue, _ leaf: GraphQLLeafType, typeName: String, field: GraphQLResponseField, pointer: String) {
        let fits: Bool
        var detail = ""
        switch (leaf, value.kind) {
        case (.customScalar, _): fits = true
        case (.string, .string), (.id, .string), (.boolean, .bool), (.float, .integer), (.float, .real): fits = true
        case (.int, .integer(let n)):
            fits = n >= Int(Int32.min) && n <= Int(Int32.max)
            detail = fits ? "" : " (Int is 32 bits)"
        case (.int, .real(let d)):
            fits = d.rounded() == d && abs(d) <= Double(Int32.max)
        case (.enumeration(_, let values), .string(let text)):
            if markers?.placeholders(in: text).isEmpty == false {
                report(.placeholder, pointer, "the value holds a placeholder, so which \(typeName) value it is is decided at serve time; not checked", at: value, field: field)
                return
            }
            guard !values.contains(text) else { return }
            let suggestion = Suggestion.closest(to: text, in: values).map { "; did you mean '\($0)'?" } ?? ""
            report(.data, pointer, "'\(text)' is not a value of enum \(typeName) (\(values.joined(separator: ", ")))\(suggestion)", at: value, field: field)
            return
        default: fits = false
        }
        if !fits {
            if case .id = leaf, case .integer = value.kind { detail = " (a server sends an ID as a string)" }
            report(.data, pointer, "expected \(typeName) (\(field.definedOn).\(field.fieldName): \(field.type)), got \(Self.describe(value))\(detail)", at: value, field: field)
        }
    }

    private func isWholePlaceholder(_ value: SourceValue) -> Bool {
        guard let markers, let text = value.stringValue else { return false }
        return markers.wholeValue(text) != nil
    }

    /// `a string ("x")`, `an integer (3)`.
    static func describe(_ value: SourceValue) -> String {
        switch value.kind {
        case .string(let s): return "a string (\"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\")"
        case .integer(let n): return "an integer (\(n))"
        case .real(let d): return "a number (\(d))"
        case .bool(let b): return "a boolean (\(b))"
        default: return value.typeDescription
        }
    }

    /// A key as a JSON pointer token (RFC 6901).
    static func escape(_ key: String) -> String {
        key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }
}
#endif
