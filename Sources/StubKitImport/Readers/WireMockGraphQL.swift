#if Tools
import Foundation
import StubKit

/// WireMock stubs of GraphQL requests, read as a `graphql` condition: the GraphQL extension's
/// `customMatcher` (`graphql-body-matcher`, wiremock-graphql-extension), and an `equalToJson` body
/// pattern that is a GraphQL request (`query`, `operationName`, `variables`).
///
/// The extension's parameters changed with its versions: since 0.8.2 `query`, `variables` (an
/// object) and `operationName`; from 0.5.0 `expectedJson`, the request as JSON text; in 0.4.0
/// `expectedQuery`, the same JSON text. All are read.
enum WireMockGraphQL {
    static let matcherName = "graphql-body-matcher"

    struct Reading {
        var graphQL: BundleWriter.GraphQLConditions?
        /// A body condition the operation still needs (an anonymous operation's document).
        var body: BundleWriter.BodyCondition?
        var notes: [String] = []
    }

    /// The conditions of a `customMatcher`; `nil` (with a note) when it is not the GraphQL extension's or
    /// its parameters cannot be read.
    static func customMatcher(_ node: Node) -> Reading {
        guard node["name"].string == matcherName else {
            return Reading(notes: ["the customMatcher '\(node["name"].string ?? "")' has no StubKit counterpart and is not carried over; the rule ignores it"])
        }
        let parameters = node["parameters"]
        var fields: [String: Any]? = nil
        if let query = parameters["query"].string {
            fields = ["query": query]
            if let variables = parameters["variables"].object { fields?["variables"] = variables }
            if let name = parameters["operationName"].string { fields?["operationName"] = name }
        } else if let expected = parameters["expectedJson"].exists ? parameters["expectedJson"] : parameters["expectedQuery"].exists ? parameters["expectedQuery"] : nil {
            if let object = expected.object {
                fields = object
            } else if let text = expected.string {
                // The extension strips newlines before parsing, so a document may span lines inside the JSON string.
                fields = (try? JSONSerialization.jsonObject(with: Data(text.replacingOccurrences(of: "\n", with: "").utf8))) as? [String: Any]
            }
        }
        guard let fields, fields["query"] is String else {
            return Reading(notes: ["the '\(matcherName)' custom matcher has no readable 'query' (nor 'expectedJson' holding one); not carried over, the rule ignores the body"])
        }
        // The extension compares variables as equalToJson, and absent variables only with a request that sends none.
        return reading(fields, exactVariables: true, anonymousBody: true)
    }

    /// A `graphql` condition for an `equalToJson` body pattern holding a GraphQL request; `nil` for any
    /// other pattern (the body condition stays).
    static func bodyPattern(_ pattern: Node) -> Reading? {
        guard pattern["equalToJson"].exists else { return nil }
        let value = pattern["equalToJson"].value
        let json = (value as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } ?? value
        // Only a request of nothing but GraphQL's fields: anything else (extensions with a persisted
        // query's hash, fields of another protocol) needs the body condition.
        guard let fields = json as? [String: Any], fields["query"] is String,
              Set(fields.keys).isSubset(of: ["query", "operationName", "variables"]),
              pattern["ignoreArrayOrder"].bool != true else { return nil }
        let reading = reading(fields, exactVariables: pattern["ignoreExtraElements"].bool != true, anonymousBody: false)
        return reading.graphQL == nil ? nil : reading
    }

    private static func reading(_ fields: [String: Any], exactVariables: Bool, anonymousBody: Bool) -> Reading {
        guard let data = CanonicalJSON.data(fields), case .object(let parsed)? = JSONValue(parsing: data),
              let operation = GraphQLOperation(fields: parsed) else {
            return Reading(notes: ["the GraphQL request is not readable; not carried over"])
        }
        if let problem = operation.problem {
            // Dropping the condition would let the rule answer every operation on its path: keep the
            // document's text as the body condition instead.
            guard anonymousBody, let document = operation.document else {
                return Reading(notes: ["the GraphQL document cannot be matched by operation (\(problem)); not carried over, the rule ignores the body"])
            }
            return Reading(body: .containsJSON(CanonicalJSON.string(["query": document])),
                           notes: ["the GraphQL document cannot be matched by operation (\(problem)); it is matched by its text, whitespace and all"])
        }
        var condition = BundleWriter.GraphQLConditions(operationName: operation.name, operationType: operation.type)
        let variables = (fields["variables"] as? [String: Any]) ?? [:]
        if exactVariables {
            condition.variablesEqual = CanonicalJSON.string(variables)
        } else if !variables.isEmpty {
            condition.variables = CanonicalJSON.string(variables)
        }
        guard operation.name == nil else { return Reading(graphQL: condition) }
        // An anonymous operation has only its document to tell it apart.
        guard anonymousBody, let document = operation.document else { return Reading() }
        return Reading(graphQL: condition, body: .containsJSON(CanonicalJSON.string(["query": document])),
                       notes: ["an anonymous operation is matched by its document's text, whitespace and all ('\(matcherName)' compares it semantically)"])
    }
}
#endif
