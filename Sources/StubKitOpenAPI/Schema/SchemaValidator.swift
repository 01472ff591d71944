#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// One way a JSON value fails a schema, located by a JSON pointer into the value.
package struct SchemaViolation: Sendable, Hashable, CustomStringConvertible {
    /// `/restaurants/2/deliveryMinutes`; empty for the whole value.
    package var pointer: String
    package var message: String
    /// Where the offending value is written, when its text has positions.
    package var position: SourcePosition?
    /// Not a violation: the value is a placeholder whose type the request decides, so it was not checked.
    package var isPlaceholderNote = false
    /// Not a violation: the schema could not be followed here (a `$ref` to another file, a cycle).
    package var isUncheckedNote = false

    /// Whether this is a real violation rather than a note about what was not checked.
    package var isViolation: Bool { !isPlaceholderNote && !isUncheckedNote }

    /// `/a/0/b: message`, or `(body): message` for the whole value.
    package var description: String { "\(pointer.isEmpty ? "(body)" : pointer): \(message)" }
}

/// Validates a JSON value against an OpenAPI schema: `$ref` (local), `type`, `nullable` (3.0) and
/// `null` (3.1), `enum`, `const`, `format` (date-time, date, uuid), `required`, `properties`,
/// `patternProperties`, `additionalProperties`, `items`/`prefixItems`, `allOf`/`anyOf`/`oneOf`/`not`, and the cheap bounds
/// (`minimum`, `maximum`, exclusive bounds, `minLength`, `maxLength`, `pattern`, `minItems`, `maxItems`).
///
/// Other keywords are ignored, as a validator ignores annotations. Never throws and never recurses
/// without bound: a `$ref` cycle that consumes no input stops at ``maximumDepth``, and a schema whose
/// combinators multiply the work (`anyOf: [$ref: A, $ref: A]` inside `A`, which doubles at every level)
/// stops after ``maximumSteps`` with a note that it was not checked further.
package struct SchemaValidator: Sendable {
    /// The document `$ref`s point into (`#/components/schemas/Pet`, or `#/$defs/x` in a plain schema).
    let root: SourceValue
    package let dialect: SchemaDialect
    /// How a string of a rendered template is to be read (see ``PlaceholderMarkers``).
    var markers: PlaceholderMarkers?

    static let maximumDepth = 256
    /// Schema-and-value pairs visited per validation before giving up: far more than real bodies need,
    /// and a bound on what recursive `anyOf`/`oneOf`/`allOf` can cost.
    static let maximumSteps = 100_000

    static let tooCostly = "the schema's combinators take more than \(maximumSteps) steps to check this value (a recursive anyOf/oneOf/allOf?); not checked further"

    /// The work done so far in one validation (a class so every branch shares one count).
    private final class Steps {
        var count = 0
        var exhausted: Bool { count > SchemaValidator.maximumSteps }
        /// Each `pattern` compiled once per validation (`nil`: not a pattern that compiles).
        var patterns: [String: RegexPattern?] = [:]

        func regex(_ pattern: String) -> RegexPattern? {
            if let known = patterns[pattern] { return known }
            let compiled = try? RegexPattern(pattern)
            patterns[pattern] = compiled
            return compiled
        }
    }

    /// Set for values that are not the project's own (an app's requests, a backend's answers): a value
    /// under a name the recorder would redact (`password`, `/card/token`) is not printed, and any other
    /// is cut to ``shownValueLimit`` characters, so reports carry no secrets and no whole documents.
    package var concealer: Redactor?
    /// Which way the body travels, for `readOnly` and `writeOnly`: stubs and recordings are responses.
    package enum Direction: Sendable { case request, response }
    package var direction = Direction.response
    /// Set when the whole value is a secret's (a parameter named `api_key`): no value is printed.
    package var concealsEveryValue = false
    static let shownValueLimit = 80

    package init(root: SourceValue, dialect: SchemaDialect, concealing concealer: Redactor? = nil) {
        self.root = root
        self.dialect = dialect
        self.concealer = concealer
    }

    init(root: SourceValue, dialect: SchemaDialect, markers: PlaceholderMarkers?) {
        self.root = root
        self.dialect = dialect
        self.markers = markers
    }

    /// Every violation, in document order of the value.
    package func validate(_ instance: SourceValue, against schema: SourceValue) -> [SchemaViolation] {
        var out: [SchemaViolation] = []
        let steps = Steps()
        check(instance, schema, pointer: "", depth: 0, steps: steps, into: &out)
        // The note may have been dropped with a branch that did not count; say it once, at the top.
        if steps.exhausted, !out.contains(where: { $0.message == Self.tooCostly }) {
            out.append(SchemaViolation(pointer: "", message: Self.tooCostly, position: instance.position, isUncheckedNote: true))
        }
        return out
    }

    /// Whether the value passes (placeholder notes do not count).
    package func isValid(_ instance: SourceValue, against schema: SourceValue) -> Bool {
        !validate(instance, against: schema).contains(where: \.isViolation)
    }

    private func check(_ value: SourceValue, _ schema: SourceValue, pointer: String, depth: Int, steps: Steps, into out: inout [SchemaViolation]) {
        func fail(_ message: String) { out.append(SchemaViolation(pointer: pointer, message: message, position: value.position)) }
        func shown(_ value: SourceValue) -> String { self.shown(JSONValue(value).description, at: pointer) }
        func unchecked(_ message: String) { out.append(SchemaViolation(pointer: pointer, message: message, position: value.position, isUncheckedNote: true)) }
        guard !steps.exhausted else { return }
        steps.count += 1
        if steps.exhausted {
            return unchecked(Self.tooCostly)
        }
        guard depth < Self.maximumDepth else { return unchecked("the schema's $refs nest deeper than \(Self.maximumDepth) levels; not checked further") }
        if case .bool(let allowed) = schema.kind {
            if !allowed { fail("no value is allowed here (the schema is false)") }
            return
        }
        guard schema.dictionaryValue != nil else { return }
        if let ref = schema["$ref"]?.stringValue {
            guard ref.hasPrefix("#"), let target = root.value(atPointer: String(ref.dropFirst())) else {
                if ref.hasPrefix("#/") { return unchecked("the schema's $ref '\(ref)' names nothing in this document; not checked") }
                return unchecked("the schema's $ref '\(ref)' is not in this document (only local '#/...' references are followed); not checked")
            }
            check(value, target, pointer: pointer, depth: depth + 1, steps: steps, into: &out)
            // In OpenAPI 3.0 a $ref replaces its object: siblings are ignored.
            if dialect == .openAPI30 { return }
        }
        // A rendered template's placeholder: the request decides the type (or, inside a string, only the text).
        var placeholderText: [ResponseTemplate.Placeholder] = []
        if case .string(let text) = value.kind, let markers {
            if let whole = markers.wholeValue(text) {
                out.append(SchemaViolation(pointer: pointer, message: "the value is \(whole.written), whose type the request decides; not checked against the schema",
                                           position: value.position, isPlaceholderNote: true))
                return
            }
            placeholderText = markers.placeholders(in: text)
        }
        let nullable = dialect == .openAPI30 && schema["nullable"]?.boolValue == true
        if nullable, case .null = value.kind { return }

        // type
        let types: [String]
        if let one = schema["type"]?.stringValue { types = [one] } else { types = schema["type"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
        if !types.isEmpty {
            let fits = types.contains { Self.has(value, type: $0) }
            if !fits {
                var expected = types.joined(separator: " or ")
                if nullable { expected += " or null" }
                var message = "expected \(expected), got \(Self.typeName(value))"
                if let placeholder = placeholderText.first {
                    message += " (the value comes from \(placeholder.written), which is always text there; write \"\(placeholder.written.dropLast(2)) | json}}\" to keep the request value's type)"
                    fail(message)
                    return
                }
                fail(message)
                return
            }
        }
        // Values a placeholder fills in are unknown text: value checks on them would check the placeholder.
        let textIsKnown = placeholderText.isEmpty

        if let options = schema["enum"]?.arrayValue, textIsKnown {
            let mine = JSONValue(value)
            if !options.contains(where: { Self.equal(JSONValue($0), mine) }) {
                fail("expected one of \(options.prefix(8).map { JSONValue($0).description }.joined(separator: ", "))\(options.count > 8 ? ", …" : ""), got \(shown(value))")
            }
        }
        if dialect == .jsonSchema2020, let constant = schema["const"], textIsKnown, !Self.equal(JSONValue(constant), JSONValue(value)) {
            fail("expected \(JSONValue(constant)), got \(shown(value))")
        }

        switch value.kind {
        case .string(let text) where textIsKnown:
            if let format = schema["format"]?.stringValue, let problem = FormatCheck.problem(text, format: format, shown: shown(value)) { fail(problem) }
            let length = text.unicodeScalars.count
            if let min = schema["minLength"]?.numberValue, Double(length) < min { fail("expected at least \(Int(min)) characters, got \(length)") }
            if let max = schema["maxLength"]?.numberValue, Double(length) > max { fail("expected at most \(Int(max)) characters, got \(length)") }
            // StubKit's regular expressions: linear time where the pattern allows, else a time budget,
            // so a pattern like /^(a+)+$/ cannot hang the check on a value built to defeat it.
            if let pattern = schema["pattern"]?.stringValue {
                switch steps.regex(pattern)?.evaluate(text) {
                case .match?: break
                case .noMatch?: fail("expected text matching /\(pattern)/, got \(shown(value))")
                case .overBudget?: unchecked("the pattern /\(pattern)/ took longer than \(RegexPattern.defaultBudget) on this value; not checked against it")
                case nil: unchecked("the pattern /\(pattern)/ is not a regular expression StubKit can run; not checked against it")
                }
            }
        case .integer, .real:
            checkBounds(value, schema, pointer: pointer, fail: fail)
        case .dictionary(let entries):
            checkObject(value, entries, schema, pointer: pointer, depth: depth, steps: steps, into: &out)
        case .array(let items):
            if let min = schema["minItems"]?.numberValue, Double(items.count) < min { fail("expected at least \(Int(min)) items, got \(items.count)") }
            if let max = schema["maxItems"]?.numberValue, Double(items.count) > max { fail("expected at most \(Int(max)) items, got \(items.count)") }
            let prefix = dialect == .jsonSchema2020 ? (schema["prefixItems"]?.arrayValue ?? []) : []
            for (i, item) in items.enumerated() {
                let itemSchema = i < prefix.count ? prefix[i] : schema["items"]
                if let itemSchema { check(item, itemSchema, pointer: pointer + "/\(i)", depth: depth + 1, steps: steps, into: &out) }
            }
        default:
            break
        }

        // Combinators.
        for part in schema["allOf"]?.arrayValue ?? [] { check(value, part, pointer: pointer, depth: depth + 1, steps: steps, into: &out) }
        if let options = schema["anyOf"]?.arrayValue, !options.isEmpty, let chosen = discriminated(value, schema, options) {
            check(value, chosen, pointer: pointer, depth: depth + 1, steps: steps, into: &out)
        } else if let options = schema["anyOf"]?.arrayValue, !options.isEmpty {
            let results = options.map { branch(value, $0, pointer: pointer, depth: depth, steps: steps) }
            // Out of steps, a branch's verdict means nothing: no failure is reported from here on.
            if steps.exhausted { return }
            if !results.contains(where: \.passes) { fail("matches none of the \(options.count) anyOf schemas\(Self.closest(results))") }
            out += results.first(where: \.passes)?.notes ?? []
        }
        if let options = schema["oneOf"]?.arrayValue, !options.isEmpty, let chosen = discriminated(value, schema, options) {
            check(value, chosen, pointer: pointer, depth: depth + 1, steps: steps, into: &out)
        } else if let options = schema["oneOf"]?.arrayValue, !options.isEmpty {
            let results = options.map { branch(value, $0, pointer: pointer, depth: depth, steps: steps) }
            if steps.exhausted { return }
            let passing = results.indices.filter { results[$0].passes }
            if passing.isEmpty {
                fail("matches none of the \(options.count) oneOf schemas\(Self.closest(results))")
            } else if passing.count > 1 {
                fail("matches \(passing.count) of the oneOf schemas (\(passing.map { "#\($0)" }.joined(separator: ", "))); exactly one must match")
            } else {
                out += results[passing[0]].notes
            }
        }
        if let negated = schema["not"], branch(value, negated, pointer: pointer, depth: depth, steps: steps).passes, !steps.exhausted {
            fail("matches the schema under 'not'")
        }
    }

    /// OpenAPI's `discriminator`: the branch of a `oneOf`/`anyOf` that the object's property names
    /// (through `mapping`, else by the referenced schema's name), which alone decides. Without it,
    /// `Cat` and `Dog` built with `allOf` on one `Pet` both accept a cat, and `oneOf` would refuse it.
    /// `nil` (every branch is tried) when there is no discriminator or its value names no branch.
    private func discriminated(_ value: SourceValue, _ schema: SourceValue, _ options: [SourceValue]) -> SourceValue? {
        guard let discriminator = schema["discriminator"], let property = discriminator["propertyName"]?.stringValue,
              let name = value[property]?.stringValue else { return nil }
        let target = discriminator["mapping"]?[name]?.stringValue ?? name
        func schemaName(_ ref: String) -> String { ref.split(separator: "/").last.map(String.init) ?? ref }
        return options.first { option in
            guard let ref = option["$ref"]?.stringValue else { return false }
            return ref == target || (!target.contains("/") && schemaName(ref) == target)
        }
    }

    private struct Branch {
        var violations: [SchemaViolation]
        var notes: [SchemaViolation]
        var passes: Bool { violations.isEmpty }
    }

    private func branch(_ value: SourceValue, _ schema: SourceValue, pointer: String, depth: Int, steps: Steps) -> Branch {
        var found: [SchemaViolation] = []
        check(value, schema, pointer: pointer, depth: depth + 1, steps: steps, into: &found)
        return Branch(violations: found.filter(\.isViolation), notes: found.filter { !$0.isViolation })
    }

    /// The nearest miss among failed branches, so the message says what to fix.
    private static func closest(_ results: [Branch]) -> String {
        guard let best = results.enumerated().min(by: { $0.element.violations.count < $1.element.violations.count }),
              let first = best.element.violations.first else { return "" }
        return " (closest, #\(best.offset): \(first.description))"
    }

    /// A value as a message prints it: whole for the project's own documents; concealed or cut for traffic.
    func shown(_ text: String, at pointer: String) -> String {
        guard let concealer else { return text }
        if concealsEveryValue { return "a value not shown (a secret)" }
        let names = pointer.split(separator: "/").map { $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") }
        if names.contains(where: { concealer.isSecret($0, in: .document) }) { return "a value not shown (\(names.last ?? "") is a secret's name)" }
        guard text.count > Self.shownValueLimit else { return text }
        return String(text.prefix(Self.shownValueLimit)) + "… (\(text.utf8.count) bytes)"
    }

    private func checkBounds(_ value: SourceValue, _ schema: SourceValue, pointer: String, fail: (String) -> Void) {
        guard let number = value.numberValue else { return }
        // Made only for a failure: deciding what to conceal costs more than the check.
        var shown: String { self.shown(JSONValue(value).description, at: pointer) }
        if let min = schema["minimum"]?.numberValue {
            let exclusive = dialect == .openAPI30 && schema["exclusiveMinimum"]?.boolValue == true
            if exclusive ? number <= min : number < min { fail("expected \(exclusive ? "more than" : "at least") \(JSONValue.number(min)), got \(shown)") }
        }
        if let max = schema["maximum"]?.numberValue {
            let exclusive = dialect == .openAPI30 && schema["exclusiveMaximum"]?.boolValue == true
            if exclusive ? number >= max : number > max { fail("expected \(exclusive ? "less than" : "at most") \(JSONValue.number(max)), got \(shown)") }
        }
        if dialect == .jsonSchema2020 {
            if let min = schema["exclusiveMinimum"]?.numberValue, number <= min { fail("expected more than \(JSONValue.number(min)), got \(shown)") }
            if let max = schema["exclusiveMaximum"]?.numberValue, number >= max { fail("expected less than \(JSONValue.number(max)), got \(shown)") }
        }
    }

    private func checkObject(_ value: SourceValue, _ entries: [SourceValue.Entry], _ schema: SourceValue, pointer: String, depth: Int,
                             steps: Steps, into out: inout [SchemaViolation]) {
        let present = Set(entries.map(\.key))
        let properties = schema["properties"]?.dictionaryValue ?? []
        for name in schema["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where !present.contains(name) {
            // OpenAPI: "required" on a readOnly property takes effect on the response only, on a writeOnly
            // one on the request only (a User's id is never sent, its password never returned).
            if let property = properties.first(where: { $0.key == name })?.value {
                let resolved = OpenAPISpec.resolved(property, in: root)
                if resolved[direction == .request ? "readOnly" : "writeOnly"]?.boolValue == true { continue }
            }
            out.append(SchemaViolation(pointer: pointer, message: "missing required property '\(name)'", position: value.position))
        }
        let additional = schema["additionalProperties"]
        // `patternProperties`: a key matching one is checked against it, and is not "additional".
        let patterns = (schema["patternProperties"]?.dictionaryValue ?? []).compactMap { entry in
            (try? NSRegularExpression(pattern: entry.key)).map { (regex: $0, schema: entry.value) }
        }
        for entry in entries {
            let childPointer = pointer + "/" + pointerToken(entry.key)
            var described = false
            if let propertySchema = properties.first(where: { $0.key == entry.key })?.value {
                check(entry.value, propertySchema, pointer: childPointer, depth: depth + 1, steps: steps, into: &out)
                described = true
            }
            for pattern in patterns where pattern.regex.firstMatch(in: entry.key, range: NSRange(entry.key.startIndex..., in: entry.key)) != nil {
                check(entry.value, pattern.schema, pointer: childPointer, depth: depth + 1, steps: steps, into: &out)
                described = true
            }
            if !described, let additional {
                if case .bool(false) = additional.kind {
                    out.append(SchemaViolation(pointer: childPointer, message: "property '\(entry.key)' is not allowed (additionalProperties: false)", position: entry.keyPosition ?? entry.value.position))
                } else {
                    check(entry.value, additional, pointer: childPointer, depth: depth + 1, steps: steps, into: &out)
                }
            }
        }
    }

    static func has(_ value: SourceValue, type: String) -> Bool {
        switch (type, value.kind) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("object", .dictionary), ("array", .array): return true
        case ("number", .integer), ("number", .real), ("integer", .integer): return true
        case ("integer", .real(let d)): return d.isFinite && d == d.rounded()
        default: return false
        }
    }

    static func typeName(_ value: SourceValue) -> String {
        switch value.kind {
        case .null: return "null"
        case .bool: return "boolean"
        case .integer: return "integer"
        case .real(let d): return d == d.rounded() && d.isFinite ? "integer" : "number"
        case .string, .date, .data: return "string"
        case .array: return "array"
        case .dictionary: return "object"
        }
    }

    /// JSON equality as JSON Schema defines it (`1` equals `1.0`; `true` is not `1`).
    static func equal(_ a: JSONValue, _ b: JSONValue) -> Bool { a == b }
}
#endif
