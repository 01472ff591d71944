#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// The SwiftPM plugins as a package that depends on StubKit uses them: a consumer package in a temporary
/// folder, depending on this repository by path with the `Tools` trait, whose target holds a clean bundle
/// (StubBundles/offline) and a broken one (the `invalid_status` fixture, whose golden output gives the line).
///
/// Building stublint inside the consumer compiles its dependencies again, so every consumer shares one
/// scratch folder under this repository's `.build/`, kept between runs: only the first run pays for it.
/// Serialized: two SwiftPM commands on one scratch folder would wait on each other's lock.
@Suite("SwiftPM plugins in a consumer package", .serialized)
struct PluginConsumerTests {
    static let scratch = PackagePaths.root.appendingPathComponent(".build/plugin-consumer", isDirectory: true)
    static let broken = "invalid_status"
    /// Compiling stublint's dependencies on two busy cores; a hung SwiftPM is killed after this.
    static let limit: TimeInterval = 1500

    @Test("swift package lint-stubs prints the broken bundle's diagnostic and fails; on clean bundles it exits 0")
    func commandPlugin() throws {
        let swift = try #require(ChildProcess.onPath("swift"), "swift is not on PATH")
        let consumer = try Self.consumer(buildPlugin: false, withBroken: true)
        let failing = try Self.swift(swift, ["package", "lint-stubs"], in: consumer.url)
        let output = failing.stdout + failing.stderr
        #expect(failing.status != 0, "lint-stubs passed a broken bundle:\n\(output)")
        #expect(output.contains(try Self.expectedDiagnostic(prefix: "Sources/App/Stubs/")), "no diagnostic with its file:line in:\n\(output)")

        try FileManager.default.removeItem(at: Self.stubs(consumer).appendingPathComponent(Self.broken))
        let passing = try Self.swift(swift, ["package", "lint-stubs"], in: consumer.url)
        #expect(passing.status == 0, "lint-stubs failed on the clean bundle:\n\(passing.stdout)\(passing.stderr)")
        #expect((passing.stdout + passing.stderr).contains("0 errors, 0 warnings, 0 notes in 1 bundle"), "\(passing.stdout)\(passing.stderr)")
    }

    @Test("a target with StubLintPlugin builds on clean bundles, fails once one is broken, with the diagnostic in the log")
    func buildToolPlugin() throws {
        let swift = try #require(ChildProcess.onPath("swift"), "swift is not on PATH")
        let consumer = try Self.consumer(buildPlugin: true, withBroken: false)
        let cleanRules = Self.stubs(consumer).appendingPathComponent("offline/stubsRules.json")
        let rules = Self.stubs(consumer).appendingPathComponent("\(Self.broken)/stubsRules.json")
        try FileManager.default.createDirectory(at: rules.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: cleanRules, to: rules)
        // Twice: the first builds of a new consumer on the shared scratch folder relink stublint, which
        // would run the lint again whatever its inputs; after the second, only the edit below is new.
        for _ in 1...2 {
            let clean = try Self.swift(swift, ["build", "--target", "App"], in: consumer.url)
            try #require(clean.status == 0, "the build failed on clean bundles:\n\(clean.stdout)\(clean.stderr)")
        }

        // Only a file's contents change (no file comes or goes, so SwiftPM plans the same build): the lint
        // runs again only if the bundle files are its inputs.
        try Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("broken/\(Self.broken)/b/stubsRules.json")).write(to: rules)
        let failing = try Self.swift(swift, ["build", "--target", "App"], in: consumer.url)
        let output = failing.stdout + failing.stderr
        #expect(failing.status != 0, "the build passed with a broken bundle:\n\(output)")
        // A build step's paths are absolute, as Xcode needs them to put the error on the line.
        let prefix = consumer.url.resolvingSymlinksInPath().path + "/Sources/App/Stubs/"
        #expect(output.contains(try Self.expectedDiagnostic(prefix: prefix)), "no diagnostic with its file:line in:\n\(output)")

        try Data(contentsOf: cleanRules).write(to: rules)
        let fixed = try Self.swift(swift, ["build", "--target", "App"], in: consumer.url)
        #expect(fixed.status == 0, "the build failed once the bundle was fixed:\n\(fixed.stdout)\(fixed.stderr)")
    }

    /// The fixture's golden error line, with its path as the consumer's copy shows it.
    static func expectedDiagnostic(prefix: String) throws -> String {
        let golden = try String(contentsOf: PackagePaths.fixtures.appendingPathComponent("broken/\(broken)/stublint.txt"), encoding: .utf8)
        let line = try #require(golden.split(separator: "\n").first { $0.contains(": error: ") })
        return prefix + broken + "/" + line.dropFirst("b/".count)
    }

    static func stubs(_ consumer: TemporaryFolder) -> URL {
        consumer.url.appendingPathComponent("Sources/App/Stubs", isDirectory: true)
    }

    static func addBrokenBundle(to consumer: TemporaryFolder) throws {
        try FileManager.default.copyItem(at: PackagePaths.fixtures.appendingPathComponent("broken/\(broken)/b"),
                                         to: stubs(consumer).appendingPathComponent(broken))
    }

    /// Runs SwiftPM in the consumer with the shared scratch folder.
    static func swift(_ swift: URL, _ arguments: [String], in folder: URL) throws -> ChildProcess.Output {
        let command = Array(arguments.prefix(1)) + ["--scratch-path", scratch.path] + arguments.dropFirst()
        return try ChildProcess.run(executableURL: swift, arguments: command, currentDirectory: folder, limit: limit)
    }

    /// A package with one target, `App`, whose `Stubs/` folder holds a clean bundle, and the broken one if asked.
    static func consumer(buildPlugin: Bool, withBroken: Bool) throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        let stubs = stubs(folder)
        try FileManager.default.createDirectory(at: stubs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: PackagePaths.stubBundles.appendingPathComponent("offline"), to: stubs.appendingPathComponent("offline"))
        if withBroken { try addBrokenBundle(to: folder) }
        let stubKit = PackagePaths.root.lastPathComponent
        let plugins = buildPlugin ? ", plugins: [.plugin(name: \"StubLintPlugin\", package: \"\(stubKit)\")]" : ""
        let manifest = """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "App",
            dependencies: [.package(path: "\(PackagePaths.root.path)", traits: ["Tools"])],
            targets: [.target(name: "App", dependencies: [.product(name: "StubKit", package: "\(stubKit)")],
                              resources: [.copy("Stubs")]\(plugins))]
        )
        """
        try Data(manifest.utf8).write(to: folder.url.appendingPathComponent("Package.swift"))
        try Data("import StubKit\n".utf8).write(to: folder.url.appendingPathComponent("Sources/App/App.swift"))
        // The versions this repository resolved, so the consumer builds what the suite was built with, not
        // whatever newer release a `from:` requirement would pick today.
        let resolved = PackagePaths.root.appendingPathComponent("Package.resolved")
        if FileManager.default.fileExists(atPath: resolved.path) {
            try FileManager.default.copyItem(at: resolved, to: folder.url.appendingPathComponent("Package.resolved"))
        }
        return folder
    }
}
#endif
