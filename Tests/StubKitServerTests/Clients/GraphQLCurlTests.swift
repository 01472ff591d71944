#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stubkit serve` answers GraphQL by operation to a real `curl`, as a web or Android client of the
/// same endpoint would reach it: a POST with a JSON body, a GET with the fields in the URL, a miss
/// named by its operation.
@Suite("stubkit serve with GraphQL over curl", .timeLimit(.minutes(2)))
struct GraphQLCurlTests {
    @Test("POST and GET are answered by the operation's rule; a misspelt operation gets 502 naming it and the closest rule")
    func operations() throws {
        try withServer([stubBundles, "--template", "graphql_menu", "--kill-network"]) { server in
            let url = "\(server.baseURL)/api.takeaway.example/graphql"
            let post = try Curl.request(url, ["--header", "Content-Type: application/json", "--data",
                                              #"{"query":"query GetMenu($restaurantId: ID!) { restaurant(id: $restaurantId) { name } }","variables":{"restaurantId":"r1"}}"#])
            #expect(post.status == 200)
            #expect(((post.json["data"] as? [String: Any])?["restaurant"] as? [String: Any])?["name"] as? String == "Pizza Palace", "\(post)")
            let get = try Curl.request(url, ["--get", "--data-urlencode", "query=query RestaurantList($postcode: String!) { restaurants(postcode: $postcode) { id } }",
                                             "--data-urlencode", #"variables={"postcode":"EC1A 1BB"}"#])
            #expect(((get.json["data"] as? [String: Any])?["restaurants"] as? [Any])?.count == 2, "\(get)")
            let miss = try Curl.request(url, ["--header", "Content-Type: application/json", "--data", #"{"query":"query GetMenus { restaurant(id: 1) { id } }"}"#])
            #expect(miss.status == 502)
            #expect(miss.text.contains("(GraphQL query GetMenus)"), "\(miss.text)")
            #expect(miss.text.contains("graphql operation: expected GetMenu, got GetMenus"), "\(miss.text)")
        }
    }
}
#endif
