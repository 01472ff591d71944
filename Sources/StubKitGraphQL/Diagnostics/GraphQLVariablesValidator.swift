#if Tools
import Foundation
import GraphQL
import StubKit

/// Checks a rule's `graphql.variables` (a subset the request must contain) or `variablesEqual` (the
/// exact variables) against an operation's variable definitions and the schema's input types.
///
/// Built-in scalars as GraphQL over HTTP sends them (`Int` a 32-bit integer, `Float` a number, `String`
/// a string, `ID` a string or an integer, `Boolean`), an enum's values as strings, input objects (no
/// unknown field; with `variablesEqual`, every non-null field without a default), lists (a single value
/// stands for a list of one, as input coercion allows); a custom scalar accepts any JSON value. With
/// `variablesEqual`, a non-null variable without a default must be there. Recursion follows the value,
/// which the rules file's JSON reader bounds.
package struct GraphQLVariablesValidator {
    package struct Violation: Sendable {
        /// `/input/lines/0/quantity` under the variables.
        package var pointer: String
        package var message: String
        package var position: SourcePosition?
    }

    let schema: GraphQLSchemaDocument
    /// `variablesEqual`, or a request's variables: the value is the whole of the variables, so required
    /// ones must be in it.
    let exact: Bool
    /// A request's variables (what a server would refuse), rather than a rule's condition on them.
    var sent = false
    private(set) var violations: [Violation] = []

    /// The variables a request sent (`nil`: none) against the operation's definitions, as a server
    /// coerces them: every required variable there, none it does not declare, each of its type.
    package static func validate(sent variables: SourceValue?, definitions: [VariableDefinition], schema: GraphQLSchemaDocument) -> [Violation] {
        validate(variables ?? SourceValue(.dictionary([])), exact: true, sent: true, definitions: definitions, schema: schema)
    }

    package static func validate(_ variables: SourceValue, exact: Bool, definitions: [VariableDefinition], schema: GraphQLSchemaDocument) -> [Violation] {
        validate(variables, exact: exact, sent: false, definitions: definitions, schema: schema)
    }

    private static func validate(_ variables: SourceValue, exact: Bool, sent: Bool, definitions: [VariableDefinition], schema: GraphQLSchemaDocument) -> [Violation] {
        var validator = GraphQLVariablesValidator(schema: schema, exact: exact, sent: sent)
        guard let entries = variables.dictionaryValue else {
            return [Violation(pointer: "", message: "variables are a JSON object, not \(variables.typeDescription)", position: variables.position)]
        }
        let names = definitions.map(\.variable.name.value)
        for entry in entries {
            guard let definition = definitions.first(where: { $0.variable.name.value == entry.key }) else {
                let suggestion = Suggestion.closest(to: entry.key, in: names).map { "; did you mean '\($0)'?" } ?? ""
                let declared = names.isEmpty ? "declares no variables" : "declares \(names.map { "$" + $0 }.joined(separator: ", "))"
                validator.violations.append(Violation(pointer: "/\(entry.key)", message: "the operation has no variable $\(entry.key) (it \(declared))\(suggestion)",
                                                      position: entry.keyPosition ?? entry.value.position))
                continue
            }
            validator.check(entry.value, type: Self.reference(definition.type), pointer: "/\(entry.key)", label: "$\(entry.key)")
        }
        if exact {
            for definition in definitions where definition.type is NonNullType && definition.defaultValue == nil {
                let name = definition.variable.name.value
                if !entries.contains(where: { $0.key == name }) {
                    let consequence = sent ? "and the request does not send it" : "so every request sends it; 'variablesEqual' leaves it out and can never match"
                    validator.violations.append(Violation(pointer: "", message: "$\(name) is \(Self.reference(definition.type)) with no default, \(consequence)",
                                                          position: variables.position))
                }
            }
        }
        return validator.violations
    }

    static func reference(_ type: any GraphQL.`Type`) -> GraphQLTypeReference {
        if let nonNull = type as? NonNullType { return .nonNull(reference(nonNull.type)) }
        if let list = type as? ListType { return .list(reference(list.type)) }
        if let named = type as? NamedType { return .named(named.name.value) }
        return .named("?")
    }

    private mutating func fail(_ pointer: String, _ message: String, _ value: SourceValue) {
        violations.append(Violation(pointer: pointer, message: message, position: value.position))
    }

    private mutating func check(_ value: SourceValue, type: GraphQLTypeReference, pointer: String, label: String) {
        switch type {
        case .nonNull(let inner):
            if case .null = value.kind {
                fail(pointer, "\(label) is \(type), so it cannot be null", value)
                return
            }
            check(value, type: inner, pointer: pointer, label: label)
        case .list(let item):
            if case .null = value.kind { return }
            if let items = value.arrayValue {
                for (i, element) in items.enumerated() { check(element, type: item, pointer: "\(pointer)/\(i)", label: "\(label)[\(i)]") }
            } else {
                check(value, type: item, pointer: pointer, label: label)
            }
        case .named(let name):
            if case .null = value.kind { return }
            checkNamed(value, name: name, pointer: pointer, label: label)
        }
    }

    private static let concealer = Redactor()

    static func concealsValue(at pointer: String) -> Bool {
        pointer.split(separator: "/").contains { concealer.isSecret($0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~"), in: .parameter) }
    }

    private mutating func checkNamed(_ value: SourceValue, name: String, pointer: String, label: String) {
        // A request's values are the app's: one under a name the recorder would redact is not printed.
        let concealed = sent && Self.concealsValue(at: pointer)
        let got = concealed ? "\(value.typeDescription) (its value not shown: a secret's name)" : GraphQLResponseValidator.describe(value)
        switch (name, value.kind) {
        case ("String", .string), ("Boolean", .bool), ("ID", .string), ("ID", .integer), ("Float", .integer), ("Float", .real): return
        case ("Int", .integer(let n)):
            if n < Int(Int32.min) || n > Int(Int32.max) { fail(pointer, "\(label) is Int, a 32-bit integer; \(concealed ? "the value sent" : String(n)) does not fit", value) }
            return
        case ("String", _), ("Boolean", _), ("ID", _), ("Float", _), ("Int", _):
            fail(pointer, "\(label) is \(name), not \(got)", value)
            return
        default: break
        }
        switch schema.schema.getType(name: name) {
        case let enumeration as GraphQLEnumType:
            let values = enumeration.values.map(\.name)
            guard let text = value.stringValue else {
                fail(pointer, "\(label) is enum \(name), sent as one of the strings \(values.joined(separator: ", ")); not \(got)", value)
                return
            }
            if !values.contains(text) {
                let suggestion = Suggestion.closest(to: text, in: values).map { "; did you mean '\($0)'?" } ?? ""
                fail(pointer, concealed ? "\(label) is not a value of enum \(name) (\(values.joined(separator: ", "))); its value not shown: a secret's name"
                                        : "'\(text)' is not a value of enum \(name) (\(values.joined(separator: ", ")))\(suggestion)", value)
            }
        case let input as GraphQLInputObjectType:
            guard let entries = value.dictionaryValue else {
                fail(pointer, "\(label) is the input object \(name), not \(got)", value)
                return
            }
            let fields = (try? input.fields()) ?? [:]
            for entry in entries {
                guard let field = fields[entry.key] else {
                    let suggestion = Suggestion.closest(to: entry.key, in: fields.keys).map { "; did you mean '\($0)'?" } ?? ""
                    violations.append(Violation(pointer: "\(pointer)/\(entry.key)", message: "\(name) has no field '\(entry.key)'\(suggestion)", position: entry.keyPosition ?? entry.value.position))
                    continue
                }
                check(entry.value, type: GraphQLTypeReference(field.type), pointer: "\(pointer)/\(entry.key)", label: "\(label).\(entry.key)")
            }
            if exact {
                for (fieldName, field) in fields where field.type is GraphQLNonNull && field.defaultValue == nil && !entries.contains(where: { $0.key == fieldName }) {
                    fail(pointer, "\(label) lacks '\(fieldName)', which \(name) requires (\(GraphQLTypeReference(field.type)), no default)", value)
                }
            }
        default:
            // A custom scalar: its input is the server's to read, so any JSON value is accepted.
            return
        }
    }
}
#endif
