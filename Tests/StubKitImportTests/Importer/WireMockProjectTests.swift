#if Tools
import Foundation
@testable import StubKitImport
import StubKit
import StubKitTestSupport
import Testing

/// `stubkit import` on a project folder that keeps WireMock stubs per test suite
/// (`src/test/resources/<suite>/mappings` with `__files` beside): one bundle per mappings folder.
@Suite("WireMock projects")
struct WireMockProjectTests {
    static func mapping(_ path: String, bodyFile: String) -> String {
        #"{"request": {"method": "GET", "url": "\#(path)"}, "response": {"status": 200, "bodyFileName": "\#(bodyFile)", "headers": {"Content-Type": "application/json"}}}"#
    }

    /// Four suites (two whose paths give the same name), a mapping in a subfolder of `mappings`, an empty
    /// mappings folder, and copies in build output, dependencies and `.git` that must not be read.
    static func project(_ folder: TemporaryFolder) throws -> URL {
        let suites = "proj/src/test/resources"
        let files: [String: String] = [
            "\(suites)/payments/mappings/pay.json": mapping("/pay", bodyFile: "pay.json"),
            "\(suites)/payments/__files/pay.json": #"{"paid":true}"#,
            "\(suites)/orders/mappings/list.json": mapping("/orders", bodyFile: "orders.json"),
            "\(suites)/orders/mappings/v2/one.json": mapping("/v2/orders/1", bodyFile: "v2/one.json"),
            "\(suites)/orders/__files/orders.json": #"{"orders":[]}"#,
            "\(suites)/orders/__files/v2/one.json": #"{"id":1}"#,
            "\(suites)/a/b/mappings/ab.json": mapping("/ab", bodyFile: "ab.json"),
            "\(suites)/a/b/__files/ab.json": #"{"from":"a/b"}"#,
            "\(suites)/a_b/mappings/ab.json": mapping("/ab", bodyFile: "ab.json"),
            "\(suites)/a_b/__files/ab.json": #"{"from":"a_b"}"#,
            "\(suites)/empty/mappings/.gitkeep": "",
            "proj/build/resources/test/payments/mappings/pay.json": mapping("/stale", bodyFile: "pay.json"),
            "proj/target/test-classes/payments/mappings/pay.json": mapping("/stale", bodyFile: "pay.json"),
            "proj/node_modules/wiremock-stubs/mappings/x.json": mapping("/dep", bodyFile: "x.json"),
            "proj/.git/mappings/x.json": mapping("/git", bodyFile: "x.json"),
            "proj/src/main/java/App.java": "class App {}",
            "proj/build.gradle": "plugins {}",
        ]
        for (path, text) in files { _ = try folder.file(path, data: Data(text.utf8)) }
        return folder.url.appendingPathComponent("proj")
    }

    @Test("a project folder gives one bundle per mappings folder, named after the suite, each replaying its own __files")
    func oneBundlePerSuite() throws {
        let folder = try TemporaryFolder()
        let project = try Self.project(folder)
        let out = folder.url.appendingPathComponent("StubBundles")
        let run = try ChildProcess.run("stubkit", arguments: ["import", project.path, "--to", out.path])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        let bundles = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(bundles == ["a_b", "a_b_2", "orders", "payments"])
        for (mappings, bundle) in [("a/b", "a_b"), ("a_b", "a_b_2"), ("orders", "orders"), ("payments", "payments")] {
            #expect(run.stdout.contains("src/test/resources/\(mappings)/mappings → \(out.path)/\(bundle)\n"), "\(run.stdout)")
        }
        #expect(run.stdout.contains("src/test/resources/empty/mappings holds no mapping; no bundle"), "\(run.stdout)")
        for stale in ["build/", "target", "node_modules", ".git", "stale", "/dep"] { #expect(!run.stdout.contains(stale), "\(stale) was read: \(run.stdout)") }
        // The project's files in no import format are named, not imported, and do not change the exit status.
        #expect(run.stdout.contains("  skipped 2 file(s) in no format stubkit imports: build.gradle, src/main/java/App.java\n"), "\(run.stdout)")
        #expect(loadedRules(out.appendingPathComponent("orders")).count == 2)
        try Replay.check([
            ExpectedExchange(source: "pay", method: "GET", url: "https://payments.test/pay", status: 200, responseBody: Data(#"{"paid":true}"#.utf8)),
        ], bundle: out.appendingPathComponent("payments"))
        try Replay.check([
            ExpectedExchange(source: "v2", method: "GET", url: "https://orders.test/v2/orders/1", status: 200, responseBody: Data(#"{"id":1}"#.utf8)),
        ], bundle: out.appendingPathComponent("orders"))
        try Replay.check([
            ExpectedExchange(source: "a_b", method: "GET", url: "https://ab.test/ab", status: 200, responseBody: Data(#"{"from":"a_b"}"#.utf8)),
        ], bundle: out.appendingPathComponent("a_b_2"))
    }

    @Test("a suite folder holding mappings, or the mappings folder itself, still imports as one bundle at --to")
    func directLayoutsUnchanged() throws {
        let folder = try TemporaryFolder()
        let suite = try Self.project(folder).appendingPathComponent("src/test/resources/payments")
        for input in [suite, suite.appendingPathComponent("mappings")] {
            let bundle = folder.url.appendingPathComponent("out-\(input.lastPathComponent)")
            let run = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", bundle.path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("stubsRules.json").path), "\(input.path)")
            try Replay.check([
                ExpectedExchange(source: "pay", method: "GET", url: "https://payments.test/pay", status: 200, responseBody: Data(#"{"paid":true}"#.utf8)),
            ], bundle: bundle)
        }
    }

    @Test("a folder with no mappings folder and nothing else to import is an error naming it; nothing is written")
    func nothingFound() throws {
        let folder = try TemporaryFolder()
        _ = try folder.file("proj/.git/mappings/x.json", data: Data(Self.mapping("/x", bodyFile: "x").utf8))
        _ = try folder.file("proj/node_modules/p/mappings/x.json", data: Data(Self.mapping("/x", bodyFile: "x").utf8))
        _ = try folder.file("proj/build/mappings/x.json", data: Data(Self.mapping("/x", bodyFile: "x").utf8))
        let project = folder.url.appendingPathComponent("proj")
        let out = folder.url.appendingPathComponent("out")
        let run = try ChildProcess.run("stubkit", arguments: ["import", project.path, "--to", out.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(project.path): error: holds no files to import: no WireMock mappings/ folder at any depth"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("a refused destination for one suite, or --template for several, writes no bundle at all")
    func refusedBeforeWriting() throws {
        let folder = try TemporaryFolder()
        let project = try Self.project(folder)
        let out = folder.url.appendingPathComponent("out")
        _ = try folder.file("out/payments/notes.txt", data: Data("mine".utf8))
        let refused = try ChildProcess.run("stubkit", arguments: ["import", project.path, "--to", out.path])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("\(out.path)/payments: error: already exists and is not empty"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["payments"], "a_b and orders, checked fine, were not written either")
        let template = try ChildProcess.run("stubkit", arguments: ["import", project.path, "--to", folder.url.appendingPathComponent("t").path, "--template", "x"])
        #expect(template.status == 2)
        #expect(template.stderr.contains("--template 'x' names one bundle, but \(project.path) holds 4 WireMock mappings folders"), "\(template.stderr)")
    }

    @Test("a folder with a WireMock project and other importable files imports both: the others into a bundle named after the folder")
    func otherFilesBesideMappings() throws {
        let folder = try TemporaryFolder()
        _ = try folder.file("captures/har/a.har", data: EscapedQueryReplayTests.har([("https://har.test/a", "from the HAR")]))
        _ = try folder.file("captures/wiremock/mappings/m.json", data: Data(Self.mapping("/m", bodyFile: "m.json").utf8))
        _ = try folder.file("captures/wiremock/__files/m.json", data: Data(#"{"from":"wiremock"}"#.utf8))
        _ = try folder.file("captures/README.txt", data: Data("not a stub".utf8))
        let input = folder.url.appendingPathComponent("captures")
        let out = folder.url.appendingPathComponent("out")
        let run = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", out.path])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["captures", "wiremock"], "\(run.stdout)")
        #expect(run.stdout.contains("wiremock/mappings → \(out.path)/wiremock\n"), "\(run.stdout)")
        #expect(run.stdout.contains("other files (1: har/a.har) → \(out.path)/captures\n"), "\(run.stdout)")
        try Replay.check([
            ExpectedExchange(source: "m", method: "GET", url: "https://wiremock.test/m", status: 200, responseBody: Data(#"{"from":"wiremock"}"#.utf8)),
        ], bundle: out.appendingPathComponent("wiremock"))
        try Replay.check([
            ExpectedExchange(source: "a", method: "GET", url: "https://har.test/a", status: 200, responseBody: Data("from the HAR".utf8)),
        ], bundle: out.appendingPathComponent("captures"))
        // --template names one bundle; two would be written, so it is refused before writing.
        let template = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", folder.url.appendingPathComponent("t").path, "--template", "x"])
        #expect(template.status == 2)
        #expect(template.stderr.contains("--template 'x' names one bundle, but \(input.path) holds 1 WireMock mappings folder(s) (wiremock/mappings) and other files (har/a.har)"), "\(template.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("t").path))
    }

    /// A project with one suite and `file` holding `text` elsewhere in its tree, imported into `out`.
    static func importProject(with file: String, _ text: String, in folder: TemporaryFolder) throws -> (run: ChildProcess.Output, out: URL) {
        _ = try folder.file("proj/src/test/resources/payments/mappings/pay.json", data: Data(Self.mapping("/pay", bodyFile: "pay.json").utf8))
        _ = try folder.file("proj/src/test/resources/payments/__files/pay.json", data: Data(#"{"paid":true}"#.utf8))
        _ = try folder.file("proj/\(file)", data: Data(text.utf8))
        let out = folder.url.appendingPathComponent("out")
        return (try ChildProcess.run("stubkit", arguments: ["import", folder.url.appendingPathComponent("proj").path, "--to", out.path]), out)
    }

    @Test("a project file that is no stub input (invalid YAML of a chart, a Pact contract) is named as skipped; the suites import, exit 0", arguments: [
        ("charts/templates/bad.yaml", "key: [unclosed\n"),
        ("src/test/resources/pacts/app-api.json",
         #"{"consumer": {"name": "app"}, "provider": {"name": "api"}, "interactions": [{"description": "a payment", "request": {"method": "GET", "path": "/pay"}, "response": {"status": 200, "body": {"paid": true}}}], "metadata": {"pactSpecification": {"version": "2.0.0"}}}"#),
    ])
    func unrelatedProjectFile(file: String, text: String) throws {
        let folder = try TemporaryFolder()
        let (run, out) = try Self.importProject(with: file, text, in: folder)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["payments"], "no bundle for the other files: \(run.stdout)")
        #expect(run.stdout.contains("  skipped \(file): "), "\(run.stdout)")
        #expect(!run.stdout.contains("other files ("), "\(run.stdout)")
        try Replay.check([
            ExpectedExchange(source: "pay", method: "GET", url: "https://payments.test/pay", status: 200, responseBody: Data(#"{"paid":true}"#.utf8)),
        ], bundle: out.appendingPathComponent("payments"))
    }

    @Test("a broken .har file beside the suites is an input meant for import: named as unreadable, nothing written")
    func brokenHARBesideMappings() throws {
        let folder = try TemporaryFolder()
        let (run, out) = try Self.importProject(with: "captures/a.har", #"{"log": {"entries": [}"#, in: folder)
        #expect(run.status == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("captures/a.har"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.path))
    }

    @Test("a folder named mappings that holds no WireMock mapping does not make a project: the folder imports as one bundle")
    func foreignMappingsFolder() throws {
        let folder = try TemporaryFolder()
        _ = try folder.file("captures/a.har", data: EscapedQueryReplayTests.har([("https://har.test/a", "from the HAR")]))
        _ = try folder.file("captures/search/mappings/index.json", data: Data(#"{"properties": {"title": {"type": "text"}}}"#.utf8))
        let input = folder.url.appendingPathComponent("captures")
        let out = folder.url.appendingPathComponent("out")
        let run = try ChildProcess.run("stubkit", arguments: ["import", input.path, "--to", out.path])
        // The Elasticsearch mapping is no format stubkit imports: reported, so exit 1, and the HAR is the bundle.
        #expect(run.status == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(!run.stdout.contains("WireMock mappings folder"), "\(run.stdout)")
        #expect(run.stdout.contains("index.json"), "\(run.stdout)")
        try Replay.check([
            ExpectedExchange(source: "a", method: "GET", url: "https://har.test/a", status: 200, responseBody: Data("from the HAR".utf8)),
        ], bundle: out)
    }

    struct NameCase: Sendable, CustomTestStringConvertible {
        var paths: [String]
        var names: [String]
        var testDescription: String { "\(paths) → \(names)" }
    }

    @Test("bundle names from suite paths: shared leading and trailing folders dropped, collisions numbered", arguments: [
        NameCase(paths: ["src/test/resources/payments"], names: ["payments"]),
        NameCase(paths: ["src/test/resources/orders", "src/test/resources/payments"], names: ["orders", "payments"]),
        NameCase(paths: ["samples/hello/stubs", "samples/random/stubs"], names: ["hello", "random"]),
        NameCase(paths: ["payments", "payments/legacy"], names: ["payments", "payments_legacy"]),
        NameCase(paths: ["x/a/b", "x/a_b"], names: ["a_b", "a_b_2"]),
        NameCase(paths: ["s/Orders", "s/orders"], names: ["Orders", "orders_2"]),
        NameCase(paths: ["s/my suite", "s/.hidden-ish"], names: ["my_suite", "hidden-ish"]),
    ])
    func names(_ c: NameCase) {
        let paths = c.paths.map { $0.split(separator: "/").map(String.init) }
        #expect(WireMockProject.uniqueNames(WireMockProject.bundleNames(paths)) == c.names)
    }

    @Test("WireMock's Docker samples (samples/<name>/stubs/mappings) become the bundles hello and random",
          .enabled(if: PackagePaths.realworldTestsEnabled, "../shared/realworld is absent (CI requires it)"))
    func realWorldProject() throws {
        let folder = try TemporaryFolder()
        let root = PackagePaths.realworld!.appendingPathComponent("wiremock/wiremock+wiremock-docker")
        let out = folder.url.appendingPathComponent("bundles")
        let run = try ChildProcess.run("stubkit", arguments: ["import", root.path, "--to", out.path])
        #expect(run.status == 0 || run.status == 1, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted() == ["hello", "random"])
        #expect(run.stdout.contains("samples/hello/stubs/mappings → \(out.path)/hello"), "\(run.stdout)")
        for bundle in ["hello", "random"] { #expect(!loadedRules(out.appendingPathComponent(bundle)).isEmpty) }
    }
}
#endif
