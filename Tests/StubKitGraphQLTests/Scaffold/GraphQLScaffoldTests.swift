#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitTestSupport
import Testing

/// `stubkit scaffold --graphql-schema … --operations …` run as a child process on the takeaway fixtures:
/// the bundle lints clean, answers each operation with its example, and graphql-core finds each example
/// a valid answer to its operation.
struct GraphQLScaffoldTests {
    static let schema = "Tests/Fixtures/graphql/takeaway.graphqls"
    static let operations = "Tests/Fixtures/graphql/operations"
    static let written = ["GetMenu", "PlaceOrder", "RestaurantList", "Search"]

    /// Scaffolds into a new temporary folder; returns what stubkit printed and the bundle.
    static func scaffold(_ arguments: [String] = ["--graphql-schema", schema, "--operations", operations], in work: TemporaryFolder) throws
        -> (output: ChildProcess.Output, bundle: URL) {
        let bundle = work.url.appendingPathComponent("bundle-\(UUID().uuidString)")
        let output = try ChildProcess.run("stubkit", arguments: ["scaffold"] + arguments + ["--to", bundle.path], currentDirectory: PackagePaths.root)
        return (output, bundle)
    }

    static func files(in bundle: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [] {
            files[name] = FileManager.default.contents(atPath: bundle.appendingPathComponent(name).path)
        }
        return files
    }

    @Test("the takeaway operations scaffold into a bundle that lints clean: a rule per query and mutation, the persisted-query handshake, a note for the subscription")
    func takeawayScaffold() throws {
        let work = try TemporaryFolder()
        let (scaffold, bundle) = try Self.scaffold(in: work)
        #expect(scaffold.status == 0, "\(scaffold.stdout)\(scaffold.stderr)")
        #expect(scaffold.stdout.hasPrefix("wrote 5 rules for 4 operations to "), "\(scaffold.stdout)")
        #expect(scaffold.stdout.contains("\nnote: Tests/Fixtures/graphql/operations/TrackOrder.graphql:1:1: subscription TrackOrder not written: "), "\(scaffold.stdout)")
        let files = Self.files(in: bundle)
        #expect(Set(files.keys) == Set(Self.written.map { "\($0).json" } + ["PersistedQueryNotFound.json", "stubsRules.json"]), "\(files.keys.sorted())")
        let rules = String(decoding: files["stubsRules.json"] ?? Data(), as: UTF8.self)
        #expect(rules.contains(#""graphql": { "operationName": "PlaceOrder", "operationType": "mutation" }"#), "\(rules)")
        #expect(rules.contains(#""graphql": { "document": "absent" },"#) && rules.contains(#""priority": -1"#), "\(rules)")
        #expect(!rules.contains("TrackOrder") && !rules.contains(#""method""#) && !rules.contains(#""host""#), "\(rules)")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", "--strict", bundle.path])
        #expect(lint.status == 0, "\(lint.stdout)\(lint.stderr)")
        #expect(lint.stdout == "0 errors, 0 warnings, 0 notes in 1 bundle (5 rules)\n", "\(lint.stdout)")
        // And against the schema: each example fits its operation's selection set.
        let checked = try ChildProcess.run("stublint", arguments: ["lint", "--strict", bundle.path, "--graphql-schema", Self.schema, "--operations", Self.operations],
                                           currentDirectory: PackagePaths.root)
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout == "0 errors, 0 warnings, 0 notes in 1 bundle (5 rules)\n", "\(checked.stdout)")
        // The union's first possible type by name, with its inline fragment's fields under their aliases.
        #expect(String(decoding: files["Search.json"] ?? Data(), as: UTF8.self) == """
            {
              "data": {
                "search": [
                  {
                    "__typename": "MenuItem",
                    "id": "menu-item-1",
                    "dish": "Menu item name",
                    "price": "Money"
                  }
                ]
              }
            }

            """)
        // Nullable fields filled, a fragment's fields, enums' first value, a DateTime scalar as a date.
        let list = try #require(try JSONSerialization.jsonObject(with: files["RestaurantList.json"] ?? Data()) as? [String: Any])
        let restaurant = try #require(((list["data"] as? [String: Any])?["restaurants"] as? [[String: Any]])?.first)
        #expect(restaurant["__typename"] as? String == "Restaurant")
        #expect(restaurant["rating"] as? Double == 4.5)
        #expect(restaurant["cuisines"] as? [String] == ["PIZZA"])
        #expect(restaurant["opensAt"] as? String == "2024-05-01T12:30:00Z")
        #expect(restaurant["name"] as? String == "Restaurant name")
        withExtendedLifetime(work) {}
    }

    @Test("the same inputs write a byte-identical bundle")
    func deterministic() throws {
        let work = try TemporaryFolder()
        let first = try Self.scaffold(in: work), second = try Self.scaffold(in: work)
        #expect(first.output.status == 0 && second.output.status == 0, "\(first.output.stderr)\(second.output.stderr)")
        let a = Self.files(in: first.bundle), b = Self.files(in: second.bundle)
        #expect(a.count == 6)
        #expect(a == b, "\(a.keys.filter { a[$0] != b[$0] }.sorted())")
        withExtendedLifetime(work) {}
    }

    @Test("an engine over the bundle answers each operation's document, sent as a POST, with its example")
    func engineAnswersEachOperation() async throws {
        let work = try TemporaryFolder()
        let (scaffold, bundle) = try Self.scaffold(in: work)
        #expect(scaffold.status == 0, "\(scaffold.stderr)")
        let engine = StubEngine(killSwitch: true)
        try engine.activate(folder: bundle)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let folder = PackagePaths.root.appendingPathComponent(Self.operations)
        let fragment = try String(contentsOf: folder.appendingPathComponent("RestaurantSummary.graphql"), encoding: .utf8)
        for name in Self.written {
            // As Apollo sends it: the operation's document with the fragments it uses, and its name.
            let document = try String(contentsOf: folder.appendingPathComponent("\(name).graphql"), encoding: .utf8) + "\n" + (name.hasPrefix("Restaurant") || name == "GetMenu" ? fragment : "")
            let body = try JSONSerialization.data(withJSONObject: ["operationName": name, "query": document, "variables": [String: String]()])
            let result = await session.result("POST", "https://api.takeaway.test/graphql", body: String(decoding: body, as: UTF8.self), headers: ["Content-Type": "application/json"])
            #expect(result.status == 200, "\(name): \(result.error.map { "\($0)" } ?? "")")
            #expect(result.data == FileManager.default.contents(atPath: bundle.appendingPathComponent("\(name).json").path), "\(name): \(result.text ?? "")")
        }
        // Apollo's first request of a persisted query: only its hash.
        let hashOnly = await session.result("POST", "https://api.takeaway.test/graphql", body: #"{"extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(String(repeating: "0", count: 64))"}}}"#,
                                            headers: ["Content-Type": "application/json"])
        #expect(hashOnly.text?.contains("PERSISTED_QUERY_NOT_FOUND") == true, "\(hashOnly.text ?? "")")
        withExtendedLifetime(engine) {}
        withExtendedLifetime(work) {}
    }

    @Test("graphql-core executes each operation over its example and gets the example back",
          .enabled(if: ProcessInfo.processInfo.environment["CI"] == "true" || GraphQLExampleChecker.available, "python3 cannot import graphql: run .ci/test-deps"))
    func examplesAreValidAnswers() throws {
        let work = try TemporaryFolder()
        let (scaffold, bundle) = try Self.scaffold(in: work)
        #expect(scaffold.status == 0, "\(scaffold.stderr)")
        let verdicts = try GraphQLExampleChecker.check(schema: [PackagePaths.root.appendingPathComponent(Self.schema)],
                                                       operations: PackagePaths.root.appendingPathComponent(Self.operations), bundle: bundle)
        #expect(verdicts == Self.written.map { "\($0): ok" })
        withExtendedLifetime(work) {}
    }

    /// Operations against GitHub's public schema: interfaces (`owner`, `author`, `starrable`), a union
    /// (`search`) with inline fragments and an alias, a fragment in another file, custom scalars.
    static let githubOperations = [
        "Repo.graphql": """
            query Repo($owner: String!, $name: String!) {
              repository(owner: $owner, name: $name) {
                id
                nameWithOwner
                stargazers { totalCount }
                createdAt
                url
                owner {
                  __typename
                  login
                  avatarUrl
                  ... on User { name bio }
                  ... on Organization { description }
                }
                issues(first: 10, states: [OPEN]) { totalCount nodes { ...IssueRow } }
              }
            }
            """,
        "IssueRow.graphql": "fragment IssueRow on Issue { number title author { login } labels(first: 5) { nodes { name color } } }\n",
        "Find.graphql": """
            query Find($q: String!) {
              search(query: $q, type: REPOSITORY, first: 5) {
                repositoryCount
                nodes { __typename ... on Repository { fullName: nameWithOwner stargazers { totalCount } } ... on User { login } }
              }
            }
            """,
        "Star.graphql": "mutation Star($id: ID!) { addStar(input: { starrableId: $id }) { starrable { id viewerHasStarred } } }\n",
    ]

    @Test("GitHub's public schema: the scaffolded bundle lints clean against it, and graphql-core finds each example a valid answer",
          .enabled(if: PublicSchemaTests.available, "run .ci/test-deps to fetch the public GraphQL documents (CI requires them)"))
    func githubSchema() throws {
        let schema = PublicSchemaTests.documents.appendingPathComponent("github_schema.graphql")
        try #require(FileManager.default.fileExists(atPath: schema.path), "run .ci/test-deps: it fetches \(schema.lastPathComponent)")
        let work = try GraphQLFixtures.folder(Dictionary(uniqueKeysWithValues: Self.githubOperations.map { ("operations/\($0.key)", $0.value) }))
        let (scaffold, bundle) = try Self.scaffold(["--graphql-schema", schema.path, "--operations", work.url.appendingPathComponent("operations").path], in: work)
        #expect(scaffold.status == 0, "\(scaffold.stdout)\(scaffold.stderr)")
        #expect(scaffold.stdout.hasPrefix("wrote 4 rules for 3 operations to "), "\(scaffold.stdout)")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", "--strict", bundle.path, "--graphql-schema", schema.path,
                                                                "--operations", work.url.appendingPathComponent("operations").path, "--coverage"])
        #expect(lint.stdout == "0 errors, 0 warnings, 0 notes in 1 bundle (4 rules)\n3 of 3 operations stubbed\n", "\(lint.stdout)\(lint.stderr)")
        // The union's value is of the type the operation selects the most keys of, not an empty first member.
        let find = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundle.appendingPathComponent("Find.json"))) as? [String: Any])
        let node = (((find["data"] as? [String: Any])?["search"] as? [String: Any])?["nodes"] as? [[String: Any]])?.first
        #expect(node?["__typename"] as? String == "Repository" && node?["fullName"] as? String != nil, "\(find)")
        let verdicts = try GraphQLExampleChecker.check(schema: [schema], operations: work.url.appendingPathComponent("operations"), bundle: bundle)
        #expect(verdicts == ["Find: ok", "Repo: ok", "Star: ok"])
        withExtendedLifetime(work) {}
    }
}
#endif
