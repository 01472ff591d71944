/// Tells apart the rules that share one node of the index by the literal value they require of one
/// field: a query item, a request header, a top-level field of a JSON request body, or the name of a
/// GraphQL operation (`graphql.operationName`, whether the request sends it or only its document). A table from that value to the rules requiring it, plus the rules that do not
/// constrain the field, give the only rules that can match; the others need not be checked.
///
/// Only exact requirements go in the table (`"query": {"id": "7"}`, a header equal to a value,
/// `containsJSON`/`equalsJSON` with a string, number, boolean or null at the top level), so leaving
/// a rule out is always right: it would have failed that condition. Precedence is the caller's
/// business: candidates come back unordered and are checked in rank order.
struct RuleDiscriminator: Sendable {
    enum Field: Hashable, Sendable {
        case query(String)
        /// Lower-cased, as ``StubRequest/header(_:)`` compares.
        case header(String)
        case jsonBody(String)
        /// The GraphQL operation's name, read as ``GraphQLCondition/operationName`` compares it.
        case graphQLOperation

        /// Orders a rule's fields, so ties between fields break the same way on every run.
        var sortKey: String {
            switch self {
            case .query(let name): return "q" + name
            case .header(let name): return "h" + name
            case .jsonBody(let key): return "j" + key
            case .graphQLOperation: return "g"
            }
        }
    }

    /// Below this many rules on a node, checking them all costs less than choosing.
    static let minimumRules = 4

    let field: Field
    private let table: [JSONValue: [Int]]
    private let unconstrained: [Int]

    /// The discriminator for the rules with these ranks, on the field most of them constrain; `nil`
    /// when there are too few rules, or fewer than two constrain any one field.
    init?(ranks: [Int], rules: (Int) -> RequestConditions) {
        guard ranks.count >= Self.minimumRules else { return nil }
        // Which fields each rule pins, and how many rules pin each field (first seen wins a tie, so
        // the choice depends only on the rules and their order).
        var pinned: [[Field: JSONValue]] = []
        var counts: [Field: Int] = [:]
        var order: [Field] = []
        for rank in ranks {
            let fields = Self.pinnedFields(rules(rank))
            pinned.append(fields)
            for field in fields.keys.sorted(by: { $0.sortKey < $1.sortKey }) {
                if counts[field] == nil { order.append(field) }
                counts[field, default: 0] += 1
            }
        }
        guard let best = order.max(by: { counts[$0]! < counts[$1]! }), counts[best]! >= 2 else { return nil }
        var table: [JSONValue: [Int]] = [:]
        var unconstrained: [Int] = []
        for (rank, fields) in zip(ranks, pinned) {
            if let value = fields[best] { table[value, default: []].append(rank) } else { unconstrained.append(rank) }
        }
        self.field = best
        self.table = table
        self.unconstrained = unconstrained
    }

    /// Adds the ranks of the rules that may match `request`: those requiring its value of the
    /// field, and those not constraining it.
    func collect(for request: StubRequest, into result: inout [Int]) {
        let value: JSONValue?
        switch field {
        case .query(let name):
            // The table holds `equals` values, so the request's value in the form they compare.
            value = request.queryValue(for: .equals(""), named: name).map(JSONValue.string)
        case .header(let name):
            value = request.header(name).map(JSONValue.string)
        case .jsonBody where request.bodyPending, .graphQLOperation where request.bodyPending:
            // A body still in its stream passes every body condition for now (see RequestMatcher).
            for rules in table.values { result += rules }
            result += unconstrained
            return
        case .jsonBody(let key):
            if case .object(let object)? = request.bodyJSON { value = object[key] } else { value = nil }
        case .graphQLOperation:
            if case .single(let operation)? = request.graphQL { value = operation.name.map(JSONValue.string) } else { value = nil }
        }
        if let value, let rules = table[value] { result += rules }
        result += unconstrained
    }

    /// The exact values a rule requires, by field: a rule missing any of them cannot match.
    private static func pinnedFields(_ conditions: RequestConditions) -> [Field: JSONValue] {
        var fields: [Field: JSONValue] = [:]
        for (name, matcher) in conditions.query {
            if case .equals(let value) = matcher { fields[.query(name)] = .string(value) }
        }
        for (name, matcher) in conditions.headers {
            if case .equals(let value) = matcher { fields[.header(name.lowercased())] = .string(value) }
        }
        if let name = conditions.graphQL?.operationName { fields[.graphQLOperation] = .string(name) }
        for matcher in conditions.body {
            // `contains` on a scalar is equality, so both conditions pin scalar fields exactly.
            switch matcher {
            case .containsJSON(.object(let object)), .equalsJSON(.object(let object)):
                for (key, value) in object {
                    switch value {
                    case .string, .number, .bool, .null: fields[.jsonBody(key)] = value
                    case .array, .object: break
                    }
                }
            default:
                break
            }
        }
        return fields
    }
}
