import Foundation
import StubKitTestSupport
import Testing

/// What an app's package graph holds when it adds StubKit: the library alone. The tools' dependencies
/// (SwiftNIO, Yams, OpenAPIKit, GraphQL, ArgumentParser) sit behind the `Tools` trait, which is off unless a
/// dependent turns it on. Checked the way SwiftPM sees it: a consumer package in a temporary folder that
/// depends on this repository by path, asked for its resolved dependency tree.
@Suite("App dependency graph")
struct AppDependencyGraphTests {
    @Test("an app that adds StubKit, StubKitTesting and StubKitUnitTesting resolves no other package")
    func appResolvesStubKitAlone() throws {
        let swift = try #require(ChildProcess.onPath("swift"), "swift is not on PATH")
        let dependencies = try Self.resolvedDependencies(swift: swift, traits: nil)
        #expect(dependencies == [], "an app's graph holds StubKit alone, but SwiftPM resolved \(dependencies)")
    }

    @Test("a package that turns the Tools trait on gets the tools' dependencies")
    func toolsTraitBringsTheToolsDependencies() throws {
        let swift = try #require(ChildProcess.onPath("swift"), "swift is not on PATH")
        let dependencies = try Self.resolvedDependencies(swift: swift, traits: ["Tools"])
        for expected in ["swift-nio", "yams", "openapikit", "graphql", "swift-argument-parser"] {
            #expect(dependencies.contains(expected), "the Tools trait resolves \(expected): \(dependencies)")
        }
    }

    /// The identities of every package the consumer resolves beneath StubKit, sorted.
    static func resolvedDependencies(swift: URL, traits: [String]?) throws -> [String] {
        let folder = try TemporaryFolder()
        let sources = folder.url.appendingPathComponent("Sources/App")
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        let traitList = traits.map { ", traits: [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        let manifest = """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "App",
            dependencies: [.package(path: "\(PackagePaths.root.path)"\(traitList))],
            targets: [.target(name: "App", dependencies: [
                .product(name: "StubKit", package: "\(PackagePaths.root.lastPathComponent)"),
                .product(name: "StubKitTesting", package: "\(PackagePaths.root.lastPathComponent)"),
                .product(name: "StubKitUnitTesting", package: "\(PackagePaths.root.lastPathComponent)"),
            ])]
        )
        """
        try Data(manifest.utf8).write(to: folder.url.appendingPathComponent("Package.swift"))
        try Data("import StubKit\nimport StubKitTesting\n".utf8).write(to: sources.appendingPathComponent("App.swift"))

        let run = try ChildProcess.run(executableURL: swift, arguments: ["package", "show-dependencies", "--format", "json"],
                                       currentDirectory: folder.url, limit: 600)
        try #require(run.status == 0, "swift package show-dependencies failed:\n\(run.stdout)\(run.stderr)")
        // SwiftPM prints progress lines before the JSON when it fetches packages.
        let json = try #require(run.stdout.firstIndex(of: "{").map { String(run.stdout[$0...]) }, "no JSON in: \(run.stdout)")
        let tree = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let stubKit = try #require((tree["dependencies"] as? [[String: Any]])?.first, "the consumer's tree has no StubKit: \(json)")
        var identities = Set<String>()
        func collect(_ node: [String: Any]) {
            for child in node["dependencies"] as? [[String: Any]] ?? [] {
                if let identity = child["identity"] as? String { identities.insert(identity) }
                collect(child)
            }
        }
        collect(stubKit)
        return identities.sorted()
    }
}
