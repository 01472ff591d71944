#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stublint lint --graphql-schema` run as a child process: goldens for a broken bundle, the example
/// bundle, broken operation documents, and the exits for a broken schema.
struct GraphQLLintProcessTests {
    static let folder = PackagePaths.fixtures.appendingPathComponent("graphql")

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var golden: String
        var status: Int32
        var testDescription: String { name }
    }

    static let schema = "Tests/Fixtures/graphql/takeaway.graphqls"
    static let cases: [Case] = [
        Case(name: "every check broken once (bundles/broken), with coverage",
             arguments: ["lint", "Tests/Fixtures/graphql/bundles", "--graphql-schema", schema, "--operations", "Tests/Fixtures/graphql/operations", "--coverage"],
             golden: "stublint-bundles.txt", status: 1),
        Case(name: "the example bundle graphql_menu lints clean; coverage names the operations it leaves out",
             arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", schema, "--operations", "Tests/Fixtures/graphql/operations", "--coverage"],
             golden: "stublint-clean.txt", status: 0),
        Case(name: "operation documents that do not parse or validate",
             arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", schema, "--operations", "Tests/Fixtures/graphql/broken-operations"],
             golden: "stublint-broken-operations.txt", status: 1),
    ]

    @Test("stublint --graphql-schema prints the golden output and exits as it should", arguments: cases)
    func golden(_ c: Case) throws {
        let out = try ChildProcess.run("stublint", arguments: c.arguments)
        try GoldenFile.expect(out.stdout, matches: Self.folder.appendingPathComponent(c.golden))
        #expect(out.status == c.status, "\(out.stderr)")
    }

    @Test("every GraphQL code the broken bundle is for appears in its golden")
    func everyCodeAppears() throws {
        let golden = try String(contentsOf: Self.folder.appendingPathComponent("stublint-bundles.txt"), encoding: .utf8)
        for code in ["SK302", "SK303", "SK304", "SK305", "SK306", "SK307", "SK206"] {
            #expect(golden.contains("[\(code)]"), "\(code) missing")
        }
        #expect(golden.contains("Tests/Fixtures/graphql/takeaway.graphqls:48:3: note: the schema's Restaurant.rating: Float"))
    }

    @Test("a schema that does not build exits 2 with its place; --operations and --coverage need the schema")
    func badInput() throws {
        let broken = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", "Tests/Fixtures/graphql/broken-schema.graphqls"])
        #expect(broken.status == 2)
        #expect(broken.stderr == "stublint: error: Tests/Fixtures/graphql/broken-schema.graphqls:7:9: Unknown type \"Menu\". [SK300]\n")
        let missing = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", "no/such.graphqls"])
        #expect(missing.status == 2 && missing.stderr.contains("no/such.graphqls: cannot read the file [SK300]"), "\(missing.stderr)")
        let noSchema = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles/graphql_menu", "--operations", "Tests/Fixtures/graphql/operations"])
        #expect(noSchema.status != 0 && noSchema.stderr.contains("--operations needs --graphql-schema"), "\(noSchema.stderr)")
    }

    @Test("fragments that spread another twice, 30 deep: lint and scaffold finish, clean, with the one key")
    func repeatedFragments() throws {
        var ops = "query Boom { ...F30 }\nfragment F0 on Query { a }\n"
        for i in 1...30 { ops += "fragment F\(i) on Query { ...F\(i - 1) ...F\(i - 1) }\n" }
        let work = try GraphQLFixtures.folder([
            "schema.graphqls": "type Query { a: String  me: User }\ntype User { id: ID! name: String }\n",
            "ops/Boom.graphql": ops,
            "b/stubsRules.json": #"[{"method":"POST","path":"/graphql","graphql":{"operationName":"Boom"},"json":{"data":{"a":"x"}}}]"#,
        ])
        let lint = try ChildProcess.run("stublint", arguments: ["lint", "b", "--graphql-schema", "schema.graphqls", "--operations", "ops"], currentDirectory: work.url)
        #expect(lint.status == 0 && !lint.stdout.contains("[SK"), "\(lint.stdout)\(lint.stderr)")
        let scaffold = try ChildProcess.run("stubkit", arguments: ["scaffold", "--graphql-schema", "schema.graphqls", "--operations", "ops", "--to", "s"], currentDirectory: work.url)
        #expect(scaffold.status == 0, "\(scaffold.stdout)\(scaffold.stderr)")
        let answer = try String(contentsOf: work.url.appendingPathComponent("s/Boom.json"), encoding: .utf8)
        #expect(answer.filter { !$0.isWhitespace } == #"{"data":{"a":"Querya"}}"#, "\(answer)")
    }

    @Test("a response file that is not JSON gets the bundle's SK032 alone; a .txt one, which the bundle takes as text, gets the GraphQL note")
    func responseFileNotJSON() throws {
        let work = try GraphQLFixtures.folder([
            "schema.graphqls": "type Query { a: String }\n",
            "ops/A.graphql": "query A { a }\n",
            "b/stubsRules.json": """
                [{"method":"POST","path":"/graphql","graphql":{"operationName":"A"},"response":"broken.json"},
                 {"method":"POST","path":"/graphql","graphql":{"operationName":"A", "variables": {"v": 1}},"response":"plain.txt"}]
                """,
            "b/broken.json": "{\"data\": ",
            "b/plain.txt": "not json",
        ])
        let lint = try ChildProcess.run("stublint", arguments: ["lint", "b", "--graphql-schema", "schema.graphqls", "--operations", "ops"], currentDirectory: work.url)
        let lines = lint.stdout.split(separator: "\n")
        #expect(lines.filter { $0.contains("[SK032]") }.count == 1, "\(lint.stdout)")
        let notes = lines.filter { $0.contains("[SK307]") }
        #expect(notes.count == 1 && notes.allSatisfy { $0.contains("is not JSON") && $0.contains("b/stubsRules.json:2:") }, "\(lint.stdout)")
    }

    @Test("without --operations each named rule gets a note, and only the top level is checked")
    func withoutOperations() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", Self.schema])
        #expect(out.status == 0)
        #expect(out.stdout.components(separatedBy: "[SK307]").count - 1 == 5, "\(out.stdout)")
    }
}
#endif
