#if Tools
import Foundation
import Testing
import StubKitTestSupport

/// `stublint lint --openapi` run as a child process against bundles that break each check.
struct OpenAPILintTests {
    static let folder = PackagePaths.fixtures.appendingPathComponent("openapi")

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var arguments: [String]
        var golden: String
        var status: Int32
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "every check broken once (bundles/*), with coverage",
             arguments: ["lint", "Tests/Fixtures/openapi/bundles", "--openapi", "Tests/Fixtures/openapi/takeaway.yaml", "--coverage"],
             golden: "stublint-bundles.txt", status: 1),
        Case(name: "a clean bundle: no errors, a coverage note for the operation it leaves out",
             arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", "Tests/Fixtures/openapi/takeaway.yaml", "--coverage"],
             golden: "stublint-clean.txt", status: 0),
        Case(name: "the same bodies against the OpenAPI 3.1 form of the spec (type arrays with null)",
             arguments: ["lint", "Tests/Fixtures/openapi/bundles/body_file", "Tests/Fixtures/openapi/bundles/body_inline", "Tests/Fixtures/openapi/bundles/clean",
                         "--openapi", "Tests/Fixtures/openapi/takeaway-3.1.yaml"],
             golden: "stublint-3.1.txt", status: 1),
    ]

    @Test("stublint --openapi prints the golden output and exits as it should", arguments: cases)
    func golden(_ c: Case) throws {
        let out = try ChildProcess.run("stublint", arguments: c.arguments)
        try GoldenFile.expect(out.stdout, matches: Self.folder.appendingPathComponent(c.golden))
        #expect(out.status == c.status, "\(out.stderr)")
    }

    @Test("each check is reported with its own code, at the rule and at the spec")
    func everyCodeAppears() throws {
        let out = try ChildProcess.run("stublint", arguments: Self.cases[0].arguments)
        for code in ["SK201", "SK202", "SK203", "SK204", "SK205", "SK206", "SK208"] {
            #expect(out.stdout.contains("[\(code)]"), "no \(code) in:\n\(out.stdout)")
        }
        #expect(out.stdout.contains("Tests/Fixtures/openapi/bundles/body_file/restaurants.json:5:56: error: /restaurants/2/deliveryMinutes: expected integer, got string"))
        #expect(out.stdout.contains("Tests/Fixtures/openapi/takeaway.yaml:17:17: note: paths./restaurants.get.responses.200.content.application/json.schema"))
        let clean = try ChildProcess.run("stublint", arguments: Self.cases[1].arguments)
        #expect(clean.stdout.contains("4 of 5 operations stubbed"))
        #expect(clean.stdout.contains("GET /orders/{orderId} (getOrder) is not stubbed by any rule; add a rule, or start from 'stubkit scaffold --openapi' [SK207]"))
    }

    @Test("an unreadable or non-OpenAPI spec exits 2 naming the file; --coverage alone is refused")
    func badSpec() throws {
        let missing = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", "no/such.yaml"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no/such.yaml: cannot be read"))
        let notSpec = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", "Tests/Fixtures/openapi/bundles/clean/restaurants.json"])
        #expect(notSpec.status == 2)
        #expect(notSpec.stderr.contains("not an OpenAPI 3 document: it has no 'openapi' version [SK200]"))
        let invalid = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", "Tests/Fixtures/openapi/invalid.yaml"])
        #expect(invalid.status == 2)
        #expect(invalid.stderr.contains("Tests/Fixtures/openapi/invalid.yaml: not a valid OpenAPI document:"), "\(invalid.stderr)")
        // A "billion laughs" spec: a few lines whose aliases expand to 10^9 values is refused, not expanded.
        let bomb = YAMLAliasBomb.text(levels: 10, after: "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
        let bombFile = FileManager.default.temporaryDirectory.appendingPathComponent("bomb-\(UUID().uuidString).yaml")
        try Data(bomb.utf8).write(to: bombFile)
        defer { try? FileManager.default.removeItem(at: bombFile) }
        let refused = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", bombFile.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(bombFile.path): the YAML document's aliases (*name) expand it to more than"), "\(refused.stderr)")
        let coverageAlone = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--coverage"])
        #expect(coverageAlone.status != 0)
    }

    @Test("docs/diagnostics.md's SK2xx examples are lines stublint really prints")
    func docsExamplesAreReal() throws {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("docs/diagnostics.md"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        var checked = 0
        for (i, line) in lines.enumerated() where line.hasPrefix("- SK2") && i + 1 < lines.count {
            let example = lines[i + 1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "` "))
            let printed: String
            if let golden = line.firstRange(of: "from `").map({ line[$0.upperBound...].prefix { $0 != "`" } }) {
                // Under Tests/Fixtures/openapi, or (the GraphQL traffic codes) under Tests/Fixtures.
                let url = [Self.folder, PackagePaths.fixtures].map { $0.appendingPathComponent(String(golden)) }
                    .first { FileManager.default.fileExists(atPath: $0.path) } ?? Self.folder.appendingPathComponent(String(golden))
                printed = try String(contentsOf: url, encoding: .utf8)
            } else {
                printed = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", "Tests/Fixtures/openapi/invalid.yaml"]).stderr
            }
            #expect(printed.split(separator: "\n").map(String.init).contains(example), "stale docs example: \(example)")
            checked += 1
        }
        #expect(checked == 19)
    }

    @Test("OpenAPI 3.2 is read; 3.3 and Swagger 2.0 are refused with a message naming the version")
    func versions() throws {
        let text = try String(contentsOf: Self.folder.appendingPathComponent("takeaway-3.1.yaml"), encoding: .utf8)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("versions-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func lint(_ name: String, _ content: String) throws -> ChildProcess.Output {
            let file = dir.appendingPathComponent(name)
            try Data(content.utf8).write(to: file)
            return try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/openapi/bundles/clean", "--openapi", file.path, "--coverage"])
        }
        let v32 = try lint("v32.yaml", text.replacingOccurrences(of: "openapi: 3.1.0", with: "openapi: 3.2.0"))
        #expect(v32.status == 0, "\(v32.stderr)")
        #expect(v32.stdout.hasSuffix("0 errors, 0 warnings, 1 note in 1 bundle (5 rules)\n4 of 5 operations stubbed\n"))
        let v33 = try lint("v33.yaml", text.replacingOccurrences(of: "openapi: 3.1.0", with: "openapi: 3.3.0"))
        #expect(v33.status == 2)
        #expect(v33.stderr.contains("v33.yaml:1:10: OpenAPI version '3.3.0' is not read; StubKit reads 3.0, 3.1 and 3.2 [SK200]"), "\(v33.stderr)")
        let swagger = try lint("swagger.json", #"{"swagger": "2.0", "info": {"title": "t", "version": "1"}, "paths": {}}"#)
        #expect(swagger.status == 2)
        #expect(swagger.stderr.contains("not an OpenAPI 3 document: Swagger 2.0 is not read; convert it to OpenAPI 3 first [SK200]"))
    }
}
#endif
