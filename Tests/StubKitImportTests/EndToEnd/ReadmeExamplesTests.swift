#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// The inputs of the "Importing" article's examples (`docs/examples/import`, `docs/examples/migrate`;
/// `Sources/StubKit/StubKit.docc/Importing.md`), run from the package root through the real `stubkit`
/// as the article runs them, then replayed through `stubdemo` with the network killed: an importer
/// change or an edited example file cannot leave the documentation showing commands that fail or
/// print something else. The documentation's paths and tools are checked to exist.
@Suite("README examples")
struct ReadmeExamplesTests {
    static let importFolder = "docs/examples/import"
    static let legacyBundle = "docs/examples/migrate/legacy_stubs.bundle"

    /// Each file or folder of `docs/examples/import` (its README aside), as the article names it.
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

    /// The user documentation: the README, the contributor guide, the design notes and the DocC articles.
    static var documentationFiles: [String] {
        let catalogs = ["Sources/StubKit/StubKit.docc", "Sources/StubKitTesting/StubKitTesting.docc"]
        let articles = catalogs.flatMap { catalog in
            ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root.appendingPathComponent(catalog).path)) ?? [])
                .filter { $0.hasSuffix(".md") }.sorted().map { catalog + "/" + $0 }
        }
        let docs = ((try? FileManager.default.contentsOfDirectory(atPath: PackagePaths.root.appendingPathComponent("docs").path)) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md", "CONTRIBUTING.md"] + docs + articles
    }

    /// GitHub's anchor for a heading: lower-cased, punctuation but `-` and `_` dropped, spaces as `-`.
    static func anchor(ofHeading heading: String) -> String {
        String(heading.lowercased().compactMap { character -> Character? in
            if character == " " { return "-" }
            return character.isLetter || character.isNumber || character == "-" || character == "_" ? character : nil
        })
    }

    @Test("every relative Markdown link of the documentation reaches a file, and its #anchor a heading there",
          arguments: documentationFiles)
    func relativeLinksResolve(_ file: String) throws {
        let fileURL = PackagePaths.root.appendingPathComponent(file)
        let text = try String(contentsOf: fileURL, encoding: .utf8)
        let links = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
            .matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
        for link in links where !link.contains("://") && !link.hasPrefix("mailto:") && !link.hasPrefix("<doc:") {
            let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let target = parts[0].isEmpty ? fileURL : fileURL.deletingLastPathComponent().appendingPathComponent(parts[0]).standardizedFileURL
            #expect(FileManager.default.fileExists(atPath: target.path), "\(file) links \(link), which is not in the repository")
            guard parts.count == 2, target.pathExtension == "md", let targetText = try? String(contentsOf: target, encoding: .utf8) else { continue }
            let anchors = targetText.split(separator: "\n").filter { $0.hasPrefix("#") }
                .map { Self.anchor(ofHeading: $0.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)) }
            #expect(anchors.contains(parts[1]), "\(file) links \(link): \(target.lastPathComponent) has no heading with that anchor")
        }
    }

    @Test("the documentation names only files in the repository", arguments: documentationFiles)
    func documentedPathsExist(_ file: String) throws {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent(file), encoding: .utf8)
        // The contributor guide may say where the test suite's own real-world samples live; examples may not.
        let outside = file == "CONTRIBUTING.md" ? [] : text.split(separator: "\n").filter { $0.contains("../shared") }
        #expect(outside.isEmpty, "\(file): examples must not reach outside the repository")
        let pattern = try NSRegularExpression(pattern: #"(?<![A-Za-z0-9_./-])(?:docs/examples|docs|StubBundles|Tests/Fixtures|Tools/scripts|Sources/[A-Za-z]+/[A-Za-z]+\.docc|\.ci)/[A-Za-z0-9_./+-]*[A-Za-z0-9_]"#)
        let paths = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) }
        for path in Set(paths) {
            #expect(FileManager.default.fileExists(atPath: PackagePaths.root.appendingPathComponent(path).path), "\(file) names \(path), which is not in the repository")
        }
    }

    @Test("every tool the documentation runs is an executable product of the package", arguments: documentationFiles)
    func documentedToolsExist(_ file: String) throws {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent(file), encoding: .utf8)
        let manifest = try String(contentsOf: PackagePaths.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let products = Set(try NSRegularExpression(pattern: #"\.executable\(name: "([^"]+)""#)
            .matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)).map { String(manifest[Range($0.range(at: 1), in: manifest)!]) })
        let commands = try NSRegularExpression(pattern: #"(?:swift run(?: --traits Tools)?|--product|\.build/debug/) ?([a-z][a-z-]*)"#)
        let named = commands.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range(at: 1), in: text)!]) }
        for tool in Set(named) {
            #expect(products.contains(tool), "\(file) runs \(tool), which is no executable product in Package.swift (\(products.sorted()))")
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
