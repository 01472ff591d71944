#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// The inputs of the README's "Importing" examples (`docs/examples/import`, `docs/examples/migrate`),
/// run from the package root through the real `stubkit` as the README runs them, then replayed
/// through `stubdemo` with the network killed: an importer change or an edited example file cannot
/// leave the README showing commands that fail or print something else.
@Suite("README examples")
struct ReadmeExamplesTests {
    static let importFolder = "docs/examples/import"
    static let legacyBundle = "docs/examples/migrate/legacy_stubs.bundle"

    /// Each file or folder of `docs/examples/import` (its README aside), as the README names it.
    static var importInputs: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root.appendingPathComponent(importFolder).path)) ?? []
        return names.filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }.sorted().map { importFolder + "/" + $0 }
    }

    @Test("docs/examples/import holds an example of every format")
    func everyFormatHasAnExample() throws {
        let formats = try Set(Self.importInputs.flatMap { try Self.sources(in: PackagePaths.root.appendingPathComponent($0)).map(\.format) })
        #expect(formats == Set(ImportFormat.allCases), "formats with an example: \(formats)")
    }

    @Test("imports with everything carried over, lints clean, and replays through stubdemo with the network killed",
          arguments: importInputs)
    func importsAndReplays(_ input: String) throws {
        let inputURL = PackagePaths.root.appendingPathComponent(input)
        let folder = try TemporaryFolder()
        let mappingsFolders = Self.mappingsFolders(in: inputURL)
        let isProject = mappingsFolders.count > 1
        // A project imports into --to, one bundle per suite; anything else into the bundle folder --to names.
        let destination = isProject ? folder.url : folder.url.appendingPathComponent("imported")
        let run = try ChildProcess.run("stubkit", arguments: ["import", input, "--to", destination.path], currentDirectory: PackagePaths.root)
        #expect(run.status == 0, "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        #expect(run.stdout.contains("everything carried over"), "\(run.stdout)")

        var bundles: [(bundle: URL, sources: [Source])] = []
        if isProject {
            for mappings in mappingsFolders {
                let suite = mappings.deletingLastPathComponent().lastPathComponent
                let bundle = folder.url.appendingPathComponent(suite)
                #expect(run.stdout.contains("/mappings → \(bundle.path)"), "the suite \(suite) becomes its own bundle: \(run.stdout)")
                bundles.append((bundle, try Self.sources(in: mappings)))
            }
        } else {
            bundles.append((destination, try Self.sources(in: inputURL)))
        }
        for (bundle, sources) in bundles {
            let lint = BundleLinter().lint(bundle)
            #expect(lint.diagnostics.isEmpty, "\(bundle.lastPathComponent): \(lint.diagnostics.map(\.description))")
            let expected = try sources.flatMap { try ExpectedExchanges.read($0.url, format: $0.format) }
            try #require(!expected.isEmpty, "\(bundle.lastPathComponent): nothing to replay")
            try Replay.check(expected, bundle: bundle)
        }
    }

    @Test("the legacy example migrates into a bundle that lints clean and answers, leaving the original as it is")
    func legacyBundleMigrates() throws {
        let folder = try TemporaryFolder()
        let original = PackagePaths.root.appendingPathComponent(Self.legacyBundle)
        let before = try FileManager.default.contentsOfDirectory(atPath: original.path).sorted()
        let migrated = folder.url.appendingPathComponent("legacy_stubs")
        let run = try ChildProcess.run("stubkit", arguments: ["migrate", Self.legacyBundle, "--to", migrated.path], currentDirectory: PackagePaths.root)
        #expect(run.status == 0, "stdout: \(run.stdout)\nstderr: \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: original.path).sorted() == before, "the example is left as it is")
        let lint = BundleLinter().lint(migrated)
        #expect(lint.diagnostics.isEmpty, "no legacy-key notes left: \(lint.diagnostics.map(\.description))")

        let replay = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_legacy_stubs", "STUB_KILL_NETWORK", "POST", "https://api.takeaway.example/sign_up"],
                                          environment: ["STUB_BUNDLES_PATH": folder.url.path])
        let line = try #require(replay.jsonLines.first, "stderr: \(replay.stderr)")
        #expect(line["status"] as? Int == 200, "\(line)")
        let body = try Data(contentsOf: original.appendingPathComponent("POST_SignUp_200.json"))
        #expect(line["body"] as? String == String(decoding: body, as: UTF8.self))
    }

    @Test("README.md names only files in the repository")
    func readmePathsExist() throws {
        let readme = try String(contentsOf: PackagePaths.root.appendingPathComponent("README.md"), encoding: .utf8)
        let outside = readme.split(separator: "\n").filter { $0.contains("../shared") }
        #expect(outside.isEmpty, "README examples must not reach outside the repository")
        let pattern = try NSRegularExpression(pattern: #"(?:docs/examples|StubBundles|Tests/Fixtures)/[A-Za-z0-9_./+-]*[A-Za-z0-9_]"#)
        let paths = pattern.matches(in: readme, range: NSRange(readme.startIndex..., in: readme)).map { String(readme[Range($0.range, in: readme)!]) }
        #expect(!paths.isEmpty)
        for path in Set(paths) {
            #expect(FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent(path).path), "README.md names \(path), which is not in the repository")
        }
    }

    // MARK: Reading the examples

    struct Source { var url: URL; var format: ImportFormat }

    /// The source files of an input (WireMock `__files` are bodies, not sources), in name order, with the
    /// format their place and extension say, independent of the importer's detection.
    static func sources(in input: URL) throws -> [Source] {
        let files = isFolder(input)
            ? (FileManager.default.enumerator(at: input, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []).filter { !isFolder($0) }
            : [input]
        return files.filter { !$0.pathComponents.contains("__files") }
            .sorted { $0.path < $1.path }
            .compactMap { file in
                switch file.pathExtension {
                case "har": return Source(url: file, format: .har)
                case "tail": return Source(url: file, format: .mocktail)
                case "yaml", "yml": return Source(url: file, format: .vcr)
                case "json" where file.pathComponents.contains("mappings"): return Source(url: file, format: .wiremock)
                default: return nil
                }
            }
    }

    /// The `mappings` folders inside an input, in path order.
    static func mappingsFolders(in input: URL) -> [URL] {
        let urls = FileManager.default.enumerator(at: input, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? []
        return urls.filter { $0.lastPathComponent == "mappings" && isFolder($0) }.sorted { $0.path < $1.path }
    }

    static func isFolder(_ url: URL) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) && isFolder.boolValue
    }
}
#endif
