#if Tools
import Foundation
import Testing
import StubKitTestSupport

/// `stubkit scaffold --openapi` run as a child process; what it writes must lint clean against the spec.
struct ScaffoldTests {
    /// Public OpenAPI documents that `.ci/test-deps` fetches into `.build/openapi-documents` (never
    /// committed; origins and licences in Tests/Fixtures/openapi/SOURCES.md), or `STUBKIT_OPENAPI_DOCUMENTS`.
    static var documents: URL {
        if let folder = ProcessInfo.processInfo.environment["STUBKIT_OPENAPI_DOCUMENTS"] { return URL(fileURLWithPath: folder) }
        return PackagePaths.root.appendingPathComponent(".build/openapi-documents")
    }

    static func realworldSpec(_ name: String) -> URL? {
        let url = documents.appendingPathComponent(name)
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Each document, its operations, and those documented only by `default` (scaffold writes no rule
    /// for them, and `--coverage` names them).
    static let realworldSpecs: [(name: String, operations: Int, defaultOnly: [String])] = [
        ("oai-petstore-3.0.yaml", 3, []),
        ("oai-petstore-3.1.yaml", 3, []),
        ("oai-petstore-3.2.yaml", 3, []),
        ("swagger-petstore-3.0.json", 24, ["POST /user", "POST /user/createWithArray", "POST /user/createWithList", "GET /user/logout"]),
    ]

    /// Required in CI (`CI=true`), where `.ci/test-deps` has fetched them.
    static var petstoreAvailable: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true" || realworldSpecs.allSatisfy { realworldSpec($0.name) != nil }
    }

    func scaffoldThenLint(_ spec: String) throws -> (scaffold: ChildProcess.Output, lint: ChildProcess.Output, rules: String, files: [String: String]) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("scaffold-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let scaffold = try ChildProcess.run("stubkit", arguments: ["scaffold", "--openapi", spec, "--to", dir.path, "--template", "api"])
        let bundle = dir.appendingPathComponent("api")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", "--strict", bundle.path, "--openapi", spec, "--coverage"])
        let rules = (try? String(contentsOf: bundle.appendingPathComponent("stubsRules.json"), encoding: .utf8)) ?? ""
        var files: [String: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: bundle.path)) ?? [] {
            files[name] = try? String(contentsOf: bundle.appendingPathComponent(name), encoding: .utf8)
        }
        return (scaffold, lint, rules, files)
    }

    @Test("the test spec scaffolds into a bundle that lints clean against it, every operation stubbed")
    func takeawayScaffold() throws {
        let (scaffold, lint, rules, files) = try scaffoldThenLint("Tests/Fixtures/openapi/takeaway.yaml")
        #expect(scaffold.status == 0, "\(scaffold.stdout)\(scaffold.stderr)")
        #expect(scaffold.stdout.hasPrefix("wrote 6 rules for 5 operations to "), "\(scaffold.stdout)")
        #expect(lint.status == 0, "\(lint.stdout)")
        #expect(lint.stdout == "0 errors, 0 warnings, 0 notes in 1 bundle (6 rules)\n5 of 5 operations stubbed\n")
        // The main status answers every request; another answers when asked for with Prefer (Prism's header).
        #expect(rules.contains(#""requestHeaders": { "Prefer": "code=404" }"#), "\(rules)")
        #expect(rules.contains(#""path": "/v1/restaurants/{id}""#))
        #expect(rules.contains(#""host": "api.takeaway.example""#))
        // Bodies: the media type's example, a named example through its $ref, else made from the schema.
        #expect(files["GET_v1_restaurants_id.json"] == "{\n  \"id\": 42,\n  \"name\": \"Pizza Roma\",\n  \"deliveryMinutes\": 30,\n  \"rating\": 4.5\n}\n")
        #expect(files["GET_v1_restaurants_id_2.json"] == "{ \"title\": \"no restaurant 7\" }\n", "\(files.keys.sorted())")
        #expect(files["POST_v1_orders.json"]?.contains(#""placedAt": "2024-01-01T00:00:00Z""#) == true)
    }

    @Test("public Petstore documents (OAI's for OpenAPI 3.0, 3.1 and 3.2; Swagger's) scaffold into bundles that lint clean against them",
          .enabled(if: petstoreAvailable, "no public OpenAPI documents in .build/openapi-documents: run .ci/test-deps (it fetches them)"),
          arguments: realworldSpecs.map(\.name))
    func petstoreScaffold(_ name: String) throws {
        let spec = try #require(Self.realworldSpec(name), "run .ci/test-deps: it fetches \(name)")
        let expected = try #require(Self.realworldSpecs.first { $0.name == name })
        let (scaffold, lint, _, _) = try scaffoldThenLint(spec.path)
        // Exit 1 and a note for each operation it could write no rule for.
        #expect(scaffold.status == (expected.defaultOnly.isEmpty ? 0 : 1), "\(scaffold.stdout)\(scaffold.stderr)")
        for operation in expected.defaultOnly {
            #expect(scaffold.stdout.contains("note: \(operation): no numbered response (only 'default'); not written"), "\(scaffold.stdout)")
        }
        #expect(lint.status == 0, "\(lint.stdout)")
        let stubbed = expected.operations - expected.defaultOnly.count
        // Clean: nothing but the coverage notes of the operations that only a `default` response documents.
        #expect(lint.stdout.hasPrefix("0 errors, 0 warnings, \(expected.defaultOnly.count) note") || lint.stdout.contains("\n0 errors, 0 warnings, \(expected.defaultOnly.count) note"), "\(lint.stdout)")
        #expect(lint.stdout.hasSuffix("\(stubbed) of \(expected.operations) operation\(expected.operations == 1 ? "" : "s") stubbed\n"), "\(lint.stdout)")
        for operation in expected.defaultOnly {
            #expect(lint.stdout.contains("\(operation) (") && lint.stdout.contains("is not stubbed by any rule"), "\(operation): \(lint.stdout)")
        }
        #expect(lint.stdout.components(separatedBy: "[SK207]").count - 1 == expected.defaultOnly.count, "\(lint.stdout)")
    }

    @Test("scaffold refuses a non-empty folder and an unreadable spec with exit 2")
    func refusals() throws {
        // On a copy in a temporary folder: were a refusal broken, --force would delete what it points at.
        let work = try TemporaryFolder()
        let spec = try work.file("project/openapi/takeaway.yaml", data: Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("openapi/takeaway.yaml")))
        let kept = try work.file("project/bundles/kept/stubsRules.json", data: Data("[]".utf8))
        let taken = try ChildProcess.run("stubkit", arguments: ["scaffold", "--openapi", spec.path, "--to", work.url.appendingPathComponent("project/bundles").path])
        #expect(taken.status == 2)
        #expect(taken.stderr.contains("already exists and is not empty; nothing written"), "\(taken.stderr)")
        #expect(try String(contentsOf: kept, encoding: .utf8) == "[]")
        // --force never deletes the folder that holds the spec (the bundle 'openapi' in 'project').
        let holdsSpec = try ChildProcess.run("stubkit", arguments: ["scaffold", "--openapi", spec.path, "--to", work.url.appendingPathComponent("project").path, "--template", "openapi", "--force"])
        #expect(holdsSpec.status == 2)
        #expect(holdsSpec.stderr.contains("holds or lies inside the input"), "\(holdsSpec.stderr)")
        #expect(FileManager.default.fileExists(atPath: spec.path))
        #expect(FileManager.default.fileExists(atPath: kept.path))
        let never = work.url.appendingPathComponent("never-written")
        let missing = try ChildProcess.run("stubkit", arguments: ["scaffold", "--openapi", "no/such.yaml", "--to", never.path])
        #expect(missing.status == 2)
        #expect(!FileManager.default.fileExists(atPath: never.path))
    }
}
#endif
