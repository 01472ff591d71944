import Foundation

extension GraphQLCondition {
    /// The condition as a rule's `graphql` value, keys in the order the format documents them.
    var ruleJSON: JSONText {
        typealias Key = RuleKey.GraphQLKey
        var pairs: [(String, JSONText)] = []
        if let operationName { pairs.append((Key.operationName.rawValue, .string(operationName))) }
        if let operationType { pairs.append((Key.operationType.rawValue, .string(operationType.rawValue))) }
        if let variables { pairs.append((Key.variables.rawValue, variables.ruleJSON)) }
        if let variablesEqual { pairs.append((Key.variablesEqual.rawValue, variablesEqual.ruleJSON)) }
        if let persistedQuery { pairs.append((Key.persistedQuery.rawValue, .string(persistedQuery))) }
        if let document { pairs.append((Key.document.rawValue, .string(document.rawValue))) }
        return .object(pairs)
    }
}

extension JSONValue {
    /// The value as the rules file writes it: object keys sorted, whole numbers without a fraction.
    var ruleJSON: JSONText {
        switch self {
        case .null: return .raw("null")
        case .bool(let value): return .bool(value)
        case .number(let value): return .raw(BundleWriter.ImportedOptions.number(value))
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map(\.ruleJSON))
        case .object(let fields): return .object(fields.keys.sorted().map { ($0, fields[$0]!.ruleJSON) })
        }
    }
}
