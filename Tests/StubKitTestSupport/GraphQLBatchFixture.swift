import Foundation

/// A takeaway's GraphQL endpoint for tests of batched requests (a JSON array of operations in one
/// body), in process and on the local server: rules by operation, a sequence, a scenario, a template
/// reading the variables, a rule that answers one whole batch, and answers a batch cannot carry.
/// The rules name no host, so a loopback server can stand in for the real one.
public enum GraphQLBatchFixture {
    public static let rules = """
    { "rules": [
      { "name": "restaurants", "path": "/graphql", "graphql": { "operationName": "RestaurantList" },
        "json": { "data": { "restaurants": [ { "id": "r1" } ] } } },
      { "name": "menu of Pizza Palace", "path": "/graphql", "graphql": { "operationName": "GetMenu", "variables": { "restaurantId": "r1" } },
        "json": { "data": { "restaurant": { "name": "Pizza Palace" } } }, "delay": 0.3 },
      { "name": "order placed", "path": "/graphql", "graphql": { "operationName": "PlaceOrder" },
        "scenario": "order", "setState": "placed", "template": true,
        "json": { "data": { "placeOrder": { "id": "{{graphql.variables.orderId}}" } } } },
      { "name": "order status before", "path": "/graphql", "graphql": { "operationName": "OrderStatus" },
        "scenario": "order", "whenState": "Started", "json": { "data": { "order": null } } },
      { "name": "order status after", "path": "/graphql", "graphql": { "operationName": "OrderStatus" },
        "scenario": "order", "whenState": "placed", "json": { "data": { "order": { "status": "PLACED" } } } },
      { "name": "tracking", "path": "/graphql", "graphql": { "operationName": "TrackOrder" },
        "responses": [ { "json": { "step": 1 } }, { "json": { "step": 2 } }, { "json": { "step": 3 } } ] },
      { "name": "echo", "path": "/graphql", "graphql": { "operationName": "Echo" }, "template": true,
        "json": { "data": { "echo": "{{graphql.variables.text}}", "operation": "{{graphql.operationName}}" } } },
      { "name": "broken", "path": "/graphql", "graphql": { "operationName": "Broken" }, "status": 500, "body": "oops" },
      { "name": "offline", "path": "/graphql", "graphql": { "operationName": "Offline" }, "error": "networkConnectionLost" },
      { "name": "the app's start-up batch", "path": "/graphql",
        "requestBody": { "equalsJSON": [ { "query": "query Startup { a }" }, { "query": "query Promotions { b }" } ] },
        "json": [ { "data": { "whole": true } } ] }
    ] }
    """

    /// One operation as GraphQL over HTTP sends it: `query Name { x }` with `variables`.
    public static func operation(_ name: String, _ variables: [String: String] = [:], type: String = "query") -> String {
        let fields = variables.keys.sorted().map { "\"\($0)\":\"\(variables[$0]!)\"" }.joined(separator: ",")
        return #"{"query":"\#(type) \#(name) { x }","variables":{\#(fields)}}"#
    }

    /// A batch body: the operations in a JSON array.
    public static func batch(_ operations: String...) -> String {
        "[" + operations.joined(separator: ",") + "]"
    }

    /// The body parsed as a JSON array, each element as JSON text with keys sorted (for comparison).
    public static func parts(_ data: Data?) -> [String]? {
        guard let data, let array = try? JSONSerialization.jsonObject(with: data) as? [Any] else { return nil }
        return array.map { String(decoding: (try? JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .fragmentsAllowed])) ?? Data(),
                                  as: UTF8.self) }
    }
}
