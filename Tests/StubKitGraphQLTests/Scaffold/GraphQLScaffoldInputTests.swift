#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// What `stubkit scaffold --graphql-schema` does with bad input: a clear error with its place and an
/// exit status, never a crash or a hang; and how its flags sit beside `--openapi`.
struct GraphQLScaffoldInputTests {
    static let schema = """
        type Query { node: Item, items: [Item!]! }
        type Item { id: ID!, name: String, child: Item, left: Item, right: Item }
        """

    /// Writes `files` (name → text) into a new folder and scaffolds `ops` against `schema.graphqls` there.
    static func scaffold(_ files: [String: String], extra: [String] = []) throws -> (output: ChildProcess.Output, bundle: URL, folder: TemporaryFolder) {
        let work = try GraphQLFixtures.folder(files)
        try FileManager.default.createDirectory(at: work.url.appendingPathComponent("ops"), withIntermediateDirectories: true)
        let bundle = work.url.appendingPathComponent("bundle")
        let output = try ChildProcess.run("stubkit", arguments: ["scaffold", "--graphql-schema", "schema.graphqls", "--operations", "ops", "--to", bundle.path] + extra,
                                          currentDirectory: work.url)
        return (output, bundle, work)
    }

    @Test("a schema that does not parse: exit 2, its file:line:column, nothing written")
    func schemaDoesNotParse() throws {
        let (output, bundle, work) = try Self.scaffold(["schema.graphqls": "type Query {\n  name: String\n  broken(: Int\n}\n", "ops/A.graphql": "query A { name }"])
        #expect(output.status == 2, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains("schema.graphqls:3:10: "), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bundle.path))
        withExtendedLifetime(work) {}
    }

    @Test("a folder with no operations (none at all, or only fragments): exit 2, nothing written")
    func noOperations() throws {
        let empty = try Self.scaffold(["schema.graphqls": Self.schema])
        #expect(empty.output.status == 2, "\(empty.output.stdout)\(empty.output.stderr)")
        #expect(empty.output.stderr.contains("no named operation in the operation documents; nothing written"), "\(empty.output.stderr)")
        #expect(empty.output.stderr.contains("error: ops: no .graphql file under this folder"), "\(empty.output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: empty.bundle.path))
        let fragments = try Self.scaffold(["schema.graphqls": Self.schema, "ops/F.graphql": "fragment F on Item { id }"])
        #expect(fragments.output.status == 2, "\(fragments.output.stdout)\(fragments.output.stderr)")
        #expect(fragments.output.stderr.contains("no named operation in the operation documents; nothing written"), "\(fragments.output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: fragments.bundle.path))
        withExtendedLifetime((empty, fragments)) {}
    }

    @Test("a malformed document and an operation the schema rejects are reported with their places and left out; the others are written, exit 1")
    func problemsLeaveOperationsOut() throws {
        let (output, bundle, work) = try Self.scaffold([
            "schema.graphqls": Self.schema,
            "ops/Good.graphql": "query Good { node { id name } }",
            "ops/Broken.graphql": "query Broken {\n  node { id\n",
            "ops/Wrong.graphql": "query Wrong {\n  node { id colour }\n}\n",
            "ops/Anonymous.graphql": "{ items { id } }",
        ])
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.hasPrefix("wrote 2 rules for 1 operation to "), "\(output.stdout)")
        #expect(output.stdout.contains("error: ops/Broken.graphql:3:1: "), "\(output.stdout)")
        #expect(output.stdout.contains("error: ops/Wrong.graphql:2:13: Cannot query field \"colour\" on type \"Item\"."), "\(output.stdout)")
        #expect(output.stdout.contains("error: ops/Anonymous.graphql:1:1: an operation without a name"), "\(output.stdout)")
        let rules = try String(contentsOf: bundle.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        #expect(rules.contains("\"Good\"") && !rules.contains("Wrong") && !rules.contains("Broken"), "\(rules)")
        withExtendedLifetime(work) {}
    }

    @Test("a selection nested deeper than the shape's budget is refused with its place, in time")
    func deepSelection() throws {
        let depth = 80
        let query = "query Deep { node { " + String(repeating: "child { ", count: depth) + "id" + String(repeating: " }", count: depth) + " } }\nquery Shallow { node { id } }\n"
        let started = Date()
        let (output, bundle, work) = try Self.scaffold(["schema.graphqls": Self.schema, "ops/Deep.graphql": query])
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("error: ops/Deep.graphql:1:"), "\(output.stdout)")
        #expect(output.stdout.contains("the response nests deeper than 64 objects (operation Deep not written)"), "\(output.stdout)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("Shallow.json").path))
        withExtendedLifetime(work) {}
    }

    @Test("fragments that double the example at every level stop at the example's budget, in time")
    func exponentialExample() throws {
        // Each fragment spreads the next twice: 2^24 leaves from a few lines, a small shape (shared) but a huge tree.
        let levels = 24
        var text = "query Wide { node { ...F0 } }\n"
        for level in 0..<levels { text += "fragment F\(level) on Item { left { ...F\(level + 1) } right { ...F\(level + 1) } }\n" }
        text += "fragment F\(levels) on Item { id }\nquery Small { node { id } }\n"
        let started = Date()
        let (output, bundle, work) = try Self.scaffold(["schema.graphqls": Self.schema, "ops/Wide.graphql": text])
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(output.status == 1, "\(output.stdout)\(output.stderr)")
        #expect(output.stdout.contains("error: ops/Wide.graphql:"), "\(output.stdout)")
        #expect(output.stdout.contains("the example answer would hold more than 100000 values (fragments spread in several places multiply them) (operation Wide not written)"), "\(output.stdout)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("Small.json").path))
        withExtendedLifetime(work) {}
    }

    @Test("--openapi and --graphql-schema: one of the two, and the GraphQL flags only with --graphql-schema",
          arguments: [
            (["--openapi", "spec.yaml", "--graphql-schema", "schema.graphqls", "--operations", "ops"], "give --openapi or --graphql-schema, not both"),
            ([], "give --openapi SPEC, or --graphql-schema SCHEMA with --operations DIR"),
            (["--graphql-schema", "schema.graphqls"], "--graphql-schema needs --operations DIR"),
            (["--openapi", "spec.yaml", "--operations", "ops"], "--operations, --host and --path go with --graphql-schema"),
          ])
    func flags(_ arguments: [String], _ message: String) throws {
        let work = try TemporaryFolder()
        let output = try ChildProcess.run("stubkit", arguments: ["scaffold"] + arguments + ["--to", work.url.appendingPathComponent("b").path], currentDirectory: work.url)
        #expect(output.status == 64, "\(output.stdout)\(output.stderr)")
        #expect(output.stderr.contains(message), "\(output.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.url.appendingPathComponent("b").path))
        withExtendedLifetime(work) {}
    }

    @Test("--host and --path go into every rule")
    func hostAndPath() throws {
        let (output, bundle, work) = try Self.scaffold(["schema.graphqls": Self.schema, "ops/A.graphql": "query A { items { id } }"],
                                                   extra: ["--host", "api.shop.test", "--path", "/api/gql"])
        #expect(output.status == 0, "\(output.stdout)\(output.stderr)")
        let rules = try String(contentsOf: bundle.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        #expect(rules.components(separatedBy: #""host": "api.shop.test""#).count == 3, "\(rules)")
        #expect(rules.components(separatedBy: #""path": "/api/gql""#).count == 3, "\(rules)")
        withExtendedLifetime(work) {}
    }
}
#endif
