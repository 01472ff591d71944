#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stublint traffic --graphql-schema`: the GraphQL requests of a live journal and a browser's HAR
/// checked against the takeaway schema, through the real binary.
struct GraphQLTrafficTests {
    static let folder = PackagePaths.fixtures.appendingPathComponent("graphql/traffic")
    static let schema = "Tests/Fixtures/graphql/takeaway.graphqls"
    static let spec = "Tests/Fixtures/openapi/traffic/takeaway-traffic.yaml"
    static let inputs = ["Tests/Fixtures/graphql/traffic/app.jsonl", "Tests/Fixtures/graphql/traffic/browser.har"]
    static let graphQL = "https://api.takeaway.example/graphql"

    @Test("the golden output, and findings exit 1")
    func golden() throws {
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", Self.schema] + Self.inputs)
        try GoldenFile.expect(out.stdout, matches: Self.folder.appendingPathComponent("stublint-traffic.txt"))
        #expect(out.status == 1 && out.stderr.isEmpty, "\(out.stderr)")
    }

    @Test("a document that is not valid or does not parse: SK218 with the document's line:column and the operation")
    func documents() throws {
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", Self.schema] + Self.inputs).stdout
        #expect(out.contains(#"app.jsonl:2:1: error: #2 POST \#(Self.graphQL): query GetMenu: the document at 4:20 is not valid against the schema: Cannot query field "title" on type "MenuCategory". [SK218]"#), "\(out)")
        #expect(out.contains("app.jsonl:3:1: error: #3 POST \(Self.graphQL): anonymous operation: the document at 5:2 does not parse: syntax error: Expected Name, found <EOF> [SK218]"), "\(out)")
        #expect(out.contains(#"browser.har:59:7: error: log.entries[1]: #2 POST \#(Self.graphQL): query Restaurants: the document at 2:31 is not valid against the schema: Field "restaurants" on type "Query" does not have argument "sort". [SK218]"#), "\(out)")
        // Valid documents (POST JSON, GET in the URL, a batch's first operation, a HAR's mutation) give nothing.
        for clean in ["app.jsonl:1:1:", "app.jsonl:7:1:", "browser.har:10:7:"] { #expect(!out.contains(clean), "\(clean) in:\n\(out)") }
        #expect(!out.contains("operation 1 of the batch"), "\(out)")
    }

    @Test("variables that do not fit the operation's definitions: SK219 with a JSON pointer into the variables")
    func variables() throws {
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", Self.schema] + Self.inputs).stdout
        #expect(out.contains(#"app.jsonl:4:1: error: #4 POST \#(Self.graphQL): mutation PlaceOrder: the variables do not fit at /input/lines/0/quantity: $input.lines[0].quantity is Int, not a string ("two") [SK219]"#), "\(out)")
        #expect(out.contains("mutation PlaceOrder: the variables do not fit at /input/mode: 'FLY' is not a value of enum DeliveryMode (DELIVERY, COLLECTION) [SK219]"), "\(out)")
        #expect(out.contains("query GetMenu: the variables do not fit at /restaurant: the operation has no variable $restaurant (it declares $restaurantId); did you mean 'restaurantId'? [SK219]"), "\(out)")
        #expect(out.contains("query GetMenu: the variables do not fit: $restaurantId is ID! with no default, and the request does not send it [SK219]"), "\(out)")
        #expect(out.contains("app.jsonl:8:1: error: #8 POST \(Self.graphQL): operation 2 of the batch (query Search): the variables do not fit at /text: $text is String, not an integer (7) [SK219]"), "\(out)")
        // A persisted query's hash alone has no document to check: a note, not a finding.
        #expect(out.contains("app.jsonl:6:1: note: #6 POST \(Self.graphQL): operation GetMenu: a persisted query sent as its hash alone (sha256 ecf4edb46db4…); the document was not sent, so it is not checked against the schema [SK215]"), "\(out)")
    }

    @Test("with --openapi too, GraphQL requests are the schema's: no SK210 for /graphql, and REST entries are still checked")
    func withOpenAPI() throws {
        let both = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, "--graphql-schema", Self.schema, Self.inputs[0]])
        #expect(!both.stdout.contains("[SK210]"), "\(both.stdout)")
        #expect(both.stdout.components(separatedBy: "[SK219]").count == 6 && both.stdout.contains("[SK218]"), "\(both.stdout)")
        #expect(both.stdout.contains("(9 entries)"))
        // Without the schema the same entries are undocumented operations of the REST spec, and the REST one is not.
        let openAPIOnly = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, Self.inputs[0]])
        #expect(openAPIOnly.stdout.components(separatedBy: "[SK210]").count == 9, "\(openAPIOnly.stdout)")
        #expect(!openAPIOnly.stdout.contains("app.jsonl:9:1:"), "\(openAPIOnly.stdout)")
        // A REST call with a non-GraphQL `?query=` is not read as GraphQL.
        #expect(!both.stdout.contains("app.jsonl:9:1:"), "\(both.stdout)")
    }

    @Test("a search API's JSON body with a 'query' string is not taken for GraphQL; a document that does not parse at a GraphQL endpoint still is")
    func notGraphQL() throws {
        let folder = try TemporaryFolder()
        let lines = [
            #"{"v":1,"kind":"request","id":1,"method":"POST","url":"https://abc-dsn.algolia.example/1/indexes/menu/query","requestHeaders":{"Content-Type":"application/json"},"requestBody":"{\"query\":\"pizza margherita\",\"hitsPerPage\":5}","status":200}"#,
            #"{"v":1,"kind":"request","id":2,"method":"POST","url":"https://api.takeaway.example/api/graphql","requestHeaders":{"Content-Type":"application/json"},"requestBody":"{\"query\":\"pizza margherita\"}","status":200}"#,
            #"{"v":1,"kind":"request","id":3,"method":"POST","url":"https://api.takeaway.example/gql","requestHeaders":{"Content-Type":"application/json"},"requestBody":"{\"query\":\"query { me \"}","status":200}"#,
        ]
        let journal = folder.url.appendingPathComponent("app.jsonl")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: journal)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", Self.schema, journal.path])
        #expect(!out.stdout.contains("#1 POST"), "\(out.stdout)")
        #expect(out.stdout.contains("#2 POST https://api.takeaway.example/api/graphql: anonymous operation: the document at 1:1 does not parse"), "\(out.stdout)")
        #expect(out.stdout.contains("#3 POST https://api.takeaway.example/gql: "), "\(out.stdout)")
    }

    @Test("a variable under a secret's name is reported without its value")
    func secretVariables() throws {
        let folder = try TemporaryFolder()
        let schema = folder.url.appendingPathComponent("auth.graphqls")
        try Data("type Query { me: String }\ntype Mutation { login(user: String!, pin: Int!): String }\n".utf8).write(to: schema)
        let body = #"{\"query\":\"mutation Login($user: String!, $pin: Int!) { login(user: $user, pin: $pin) }\",\"variables\":{\"user\":\"ann\",\"pin\":\"LEAKED-4711\"}}"#
        let inline = #"{\"query\":\"mutation { login(user: \\\"ann\\\", pin: \\\"LEAKED-INLINE\\\") }\"}"#
        let tooBig = #"{\"query\":\"mutation Login($user: String!, $pin: Int!) { login(user: $user, pin: $pin) }\",\"variables\":{\"user\":\"ann\",\"pin\":98765432109}}"#
        let journal = folder.url.appendingPathComponent("app.jsonl")
        try Data([body, inline, tooBig].enumerated().map { i, body in
            #"{"v":1,"kind":"request","id":\#(i + 1),"method":"POST","url":"https://api.example.test/graphql","requestHeaders":{"Content-Type":"application/json"},"requestBody":"\#(body)","status":200}"# + "\n"
        }.joined().utf8).write(to: journal)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", schema.path, journal.path])
        #expect(out.status == 1, "\(out.stdout)\(out.stderr)")
        #expect(out.stdout.contains("the variables do not fit at /pin: $pin is Int, not a string (its value not shown: a secret's name) [SK219]"), "\(out.stdout)")
        #expect(out.stdout.contains("#2 POST https://api.example.test/graphql: anonymous mutation: the document at 1:36 is not valid against the schema: Int cannot represent non-integer value: (a literal, not shown) [SK218]"), "\(out.stdout)")
        #expect(out.stdout.contains("the value sent does not fit [SK219]"), "\(out.stdout)")
        #expect(!out.stdout.contains("98765432109"), "\(out.stdout)")
        #expect(!out.stdout.contains("LEAKED"), "\(out.stdout)")
    }

    @Test("neither --openapi nor --graphql-schema is a usage error; a schema that does not load exits 2")
    func usage() throws {
        let neither = try ChildProcess.run("stublint", arguments: ["traffic", Self.inputs[0]])
        #expect(neither.status == 64 && neither.stderr.contains("give --openapi SPEC, --graphql-schema SCHEMA, or both"), "\(neither.stderr)")
        let broken = try ChildProcess.run("stublint", arguments: ["traffic", "--graphql-schema", "Tests/Fixtures/graphql/broken-schema.graphqls", Self.inputs[0]])
        #expect(broken.status == 2 && broken.stderr.contains("[SK300]"), "\(broken.stderr)")
    }
}
#endif
