import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// One folder per broken bundle under `Tests/Fixtures/broken`, each with its expected diagnostics in
/// `expected.txt` (golden files). Regenerate deliberately with `STUBKIT_UPDATE_GOLDENS=1 swift test`.
struct BrokenBundleTests {
    static var cases: [String] {
        let root = PackagePaths.fixtures.appendingPathComponent("broken")
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).sorted()
    }

    static func caseFolder(_ name: String) -> URL {
        PackagePaths.fixtures.appendingPathComponent("broken").appendingPathComponent(name)
    }

    @Test("there are at least 20 broken-bundle fixtures")
    func enoughFixtures() {
        #expect(Self.cases.count >= 20)
    }

    @Test("each broken bundle gives exactly its expected diagnostics", arguments: cases)
    func goldenDiagnostics(_ name: String) throws {
        let folder = Self.caseFolder(name)
        let report = BundleLinter(options: .lint.displayingPaths(relativeTo: folder)).lint(folder)
        let actual = report.diagnostics.map(\.description).joined(separator: "\n") + "\n"
        try GoldenFile.expect(actual, matches: folder.appendingPathComponent("expected.txt"))
        #expect(!report.diagnostics.isEmpty, "a broken fixture must report something")
    }

    /// The engine's strict load and the linter agree: the engine refuses a fixture bundle exactly when
    /// its golden has an error inside that bundle, and refuses it with those errors' codes.
    @Test("in strict mode the engine refuses a fixture bundle exactly when its golden has errors there, with the same codes", arguments: cases)
    func strictEngineAgreesWithGolden(_ name: String) throws {
        let folder = Self.caseFolder(name)
        let golden = try String(contentsOf: folder.appendingPathComponent("expected.txt"), encoding: .utf8)
        let bundles = BundleLocator.bundleFolders(in: folder, includingBundlesWithoutRules: true)
        try #require(!bundles.isEmpty, "\(name): no bundle folder to activate")
        for bundle in bundles {
            let relative = String(bundle.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            // Errors the golden places in this bundle or a file under it, by code, less the two checks
            // only the linter makes (BundleLinter): template names colliding in case (a folder's templates,
            // which activating one cannot see) and response bodies (the engine reads a file when it serves it).
            let linterOnly: Set<DiagnosticCode> = [.caseCollidingTemplates, .invalidJSONResponse]
            let expected = golden.split(separator: "\n")
                .filter { ($0.hasPrefix(relative + "/") || $0.hasPrefix(relative + ":")) && $0.contains(": error: ") }
                .filter { line in !linterOnly.contains { line.hasSuffix("[\($0.rawValue)]") } }
                .compactMap { $0.split(separator: "[").last.map { String($0.dropLast()) } }
                .sorted()
            let engine = StubEngine(mode: .strict)
            do {
                try engine.activate(folder: bundle)
                #expect(expected.isEmpty, "\(name)/\(relative): the engine accepted a bundle whose golden has errors \(expected)")
                #expect(engine.activeTemplates.count == 1, "\(name)/\(relative): an accepted bundle is active")
            } catch {
                let codes = error.diagnostics.errors.map(\.code.rawValue).sorted()
                #expect(codes == expected, "\(name)/\(relative): the engine refused with \(codes), the golden has \(expected)")
                #expect(engine.activeTemplates.isEmpty, "\(name)/\(relative): a refused bundle must not be active")
            }
        }
    }

    @Test("lenient mode activates the sound rules and reports the broken one")
    func lenientKeepsSoundRules() throws {
        let folder = Self.caseFolder("rule_not_dictionary").appendingPathComponent("b")
        let engine = StubEngine(mode: .lenient)
        let diagnostics = try engine.activate(folder: folder)
        #expect(diagnostics.errors.map(\.code) == [.wrongType])
        #expect(engine.match(StubRequest(url: URL(string: "https://x/b")!)) != nil)
    }
}

extension BundleLoader.Options {
    func displayingPaths(relativeTo base: URL) -> Self {
        var copy = self
        copy.displayBase = base
        return copy
    }
}

struct OversizedInputTests {
    @Test("a rules file over 64 MB is refused with a diagnostic, not read")
    func enormousRulesFile() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("huge", [:])
        let file = bundle.appendingPathComponent("stubsRules.json")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let handle = try FileHandle(forWritingTo: file)
        try handle.truncate(atOffset: UInt64(BundleLoader.maximumRulesFileSize + 1)) // sparse: no disk, no time
        try handle.close()
        let result = BundleLoader().load(folder: bundle)
        #expect(result.diagnostics.map(\.code) == [.unreadableFile])
        #expect(result.diagnostics.first?.message.contains("more than the 64 MB") == true)
    }

    @Test("a bundle path that does not exist is a diagnostic naming it")
    func missingFolder() {
        let result = BundleLoader().load(folder: URL(fileURLWithPath: "/no/such/bundle"))
        #expect(result.diagnostics.map(\.description) == ["/no/such/bundle: error: bundle folder does not exist or is not a folder [SK001]"])
    }
}

struct ForeignFilesTests {
    @Test("every real-world stub file (HAR, WireMock, cassettes, plists) fed in as a rules file gives diagnostics, never a crash or a silent empty bundle",
          .enabled(if: PackagePaths.realworldTestsEnabled, "../shared/realworld is absent (CI requires it)"))
    func realWorldFilesAsRules() throws {
        let realworld = try #require(PackagePaths.realworld, "../shared/realworld is required in CI")
        let files = (FileManager.default.enumerator(at: realworld, includingPropertiesForKeys: nil)?.allObjects as? [URL] ?? [])
            .filter { ["json", "har", "plist", "yml", "yaml"].contains($0.pathExtension) }
            .sorted { $0.path < $1.path }
        #expect(files.count > 10)
        let folder = try TemporaryFolder()
        for (i, file) in files.enumerated() {
            let name = file.pathExtension == "plist" ? "stubsRules.plist" : "stubsRules.json"
            let bundle = folder.url.appendingPathComponent("b\(i)")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: bundle.appendingPathComponent(name))
            let result = BundleLoader(options: .lint).load(folder: bundle)
            #expect(!result.bundle.rules.isEmpty || !result.diagnostics.isEmpty, "\(file.lastPathComponent) loaded silently empty")
        }
    }
}

struct DiagnosticCatalogueTests {
    @Test("docs/diagnostics.md lists every code, and each example there is a line a fixture really produces")
    func catalogueIsCurrent() throws {
        let text = try String(contentsOf: PackagePaths.root.appendingPathComponent("docs/diagnostics.md"), encoding: .utf8)
        for code in DiagnosticCode.all {
            #expect(text.contains("| \(code.rawValue) |"), "\(code.rawValue) is missing from docs/diagnostics.md")
        }
        let lines = text.split(separator: "\n").map(String.init)
        var checked = 0
        for (i, line) in lines.enumerated() where line.hasPrefix("- **SK") {
            guard let open = line.firstIndex(of: "("), let close = line.firstIndex(of: ")"), i + 1 < lines.count else { continue }
            let fixture = String(line[line.index(after: open)..<close])
            let example = lines[i + 1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let expected = try String(contentsOf: BrokenBundleTests.caseFolder(fixture).appendingPathComponent("expected.txt"), encoding: .utf8)
            #expect(expected.split(separator: "\n").map(String.init).contains(example), "docs example for \(fixture) is stale: \(example)")
            checked += 1
        }
        #expect(checked >= 20)
    }
}
