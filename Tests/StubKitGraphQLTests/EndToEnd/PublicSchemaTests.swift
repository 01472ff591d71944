#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// Public GraphQL documents that `.ci/test-deps` fetches into `.build/graphql-documents` (never committed;
/// origins in Tests/Fixtures/graphql/SOURCES.md), checked with stublint and cross-checked with graphql-core.
struct PublicSchemaTests {
    static var documents: URL {
        if let folder = ProcessInfo.processInfo.environment["STUBKIT_GRAPHQL_DOCUMENTS"] { return URL(fileURLWithPath: folder) }
        return PackagePaths.root.appendingPathComponent(".build/graphql-documents")
    }

    /// Required in CI (`CI=true`), where `.ci/test-deps` has fetched them.
    static var available: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || FileManager.default.fileExists(atPath: documents.appendingPathComponent("github_schema.graphql").path)
    }

    static let repo = "query Repo($owner: String!, $name: String!) {\n  repository(owner: $owner, name: $name) {\n    id\n    name\n    isPrivate\n    owner {\n      __typename\n      login\n      ... on User {\n        name\n      }\n    }\n  }\n}\n"
    static let bad = "query Bad {\n  repository(owner: \"a\", name: \"b\") {\n    stars\n  }\n}\n"

    /// graphql-core's validation errors for a document, as `line:column message` lines.
    static func graphqlCore(schema: URL, document: String) throws -> [String] {
        let python = try #require(ChildProcess.onPath("python3"), "python3 is not on PATH")
        let script = """
        import sys
        from graphql import build_schema, parse, validate
        s = build_schema(open(sys.argv[1]).read())
        for e in validate(s, parse(sys.stdin.read())):
            print("%d:%d" % (e.locations[0].line, e.locations[0].column))
        """
        let out = try ChildProcess.run(executableURL: python, arguments: ["-c", script, schema.path], input: Data(document.utf8))
        try #require(out.status == 0, "graphql-core failed: \(out.stderr)")
        return out.stdout.split(separator: "\n").map(String.init)
    }

    @Test("GitHub's public schema loads; a bundle of operations against it lints as graphql-core validates it",
          .enabled(if: available, "run .ci/test-deps to fetch the public GraphQL documents (CI requires them)"))
    func githubSchema() throws {
        let schema = Self.documents.appendingPathComponent("github_schema.graphql")
        let folder = try GraphQLFixtures.folder([
            "operations/Repo.graphql": Self.repo,
            "operations/Bad.graphql": Self.bad,
            "bundle/stubsRules.json": """
            { "rules": [
              { "path": "/graphql", "graphql": { "operationName": "Repo", "variables": { "owner": "octocat", "name": "hello" } },
                "json": { "data": { "repository": { "id": "R_1", "name": "hello", "isPrivate": false,
                  "owner": { "__typename": "User", "login": "octocat", "name": "The Octocat" } } } } },
              { "path": "/graphql", "graphql": { "operationName": "Repo" },
                "json": { "data": { "repository": { "id": "R_2", "name": "x", "isPrivate": false,
                  "owner": { "__typename": "Repository", "login": "o" } } } } }
            ] }
            """,
        ])
        let out = try ChildProcess.run("stublint", arguments: ["lint", "bundle", "--graphql-schema", schema.path, "--operations", "operations", "--coverage"],
                                       currentDirectory: folder.url)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        // The same documents are valid and invalid in graphql-core, at the same place.
        #expect(try Self.graphqlCore(schema: schema, document: Self.repo) == [])
        let reference = try Self.graphqlCore(schema: schema, document: Self.bad)
        #expect(reference == ["3:5"])
        #expect(lines.contains { $0.hasPrefix("operations/Bad.graphql:\(reference.first ?? ""): error: Cannot query field \"stars\" on type \"Repository\".") }, "\(out.stdout)")
        #expect(lines.contains("bundle/stubsRules.json:7:32: error: rules[1].json: /data/repository/owner/__typename: 'Repository' is not a possible type of RepositoryOwner (possible: Organization, User) [SK305]"),
                "\(out.stdout)")
        #expect(out.stdout.hasSuffix("2 errors, 0 warnings, 1 note in 1 bundle (2 rules)\n1 of 2 operations stubbed\n"), "\(out.stdout)")
        #expect(out.status == 1)
    }

    @Test("the kitchen-sink schema parses but does not build, in graphql-core and here: SK300 with a place",
          .enabled(if: available, "run .ci/test-deps to fetch the public GraphQL documents (CI requires them)"))
    func kitchenSinkSchema() throws {
        let schema = Self.documents.appendingPathComponent("schema_kitchen_sink.graphql")
        let python = try #require(ChildProcess.onPath("python3"))
        let reference = try ChildProcess.run(executableURL: python, arguments: ["-c", "import sys\nfrom graphql import build_schema\nbuild_schema(open(sys.argv[1]).read())", schema.path])
        #expect(reference.status != 0 && reference.stderr.contains("Unknown type"))
        let out = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles/graphql_menu", "--graphql-schema", schema.path])
        #expect(out.status == 2)
        #expect(out.stderr.contains("schema_kitchen_sink.graphql:") && out.stderr.contains("[SK300]"), "\(out.stderr)")
    }
}
#endif
