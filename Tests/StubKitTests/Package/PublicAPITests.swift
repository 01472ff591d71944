import Foundation
import StubKitTestSupport
import Testing

/// What apps and UI-test targets call is public, and enough: a package outside this repository that
/// depends on it by path (no traits, as an app adds it) builds sources doing what an app does
/// (`Tests/Fixtures/consumer/App`) and what a UI-test author does with StubKitTesting
/// (`Tests/Fixtures/consumer/UITests`). `package` declarations are invisible there, so a symbol those
/// sources need that stops being public fails this test.
@Suite("Public API")
struct PublicAPITests {
    @Test("an app and a UI-test target build against the public API of StubKit and StubKitTesting")
    func consumerBuildsAgainstPublicAPI() throws {
        let swift = try #require(ChildProcess.onPath("swift"), "swift is not on PATH")
        let folder = try TemporaryFolder()
        let fixtures = PackagePaths.fixtures.appendingPathComponent("consumer")
        for target in ["App", "UITests"] {
            try FileManager.default.copyItem(at: fixtures.appendingPathComponent(target),
                                             to: folder.url.appendingPathComponent("Sources/\(target)"))
        }
        let stubKit = PackagePaths.root.lastPathComponent
        let manifest = """
        // swift-tools-version:6.1
        import PackageDescription
        let package = Package(
            name: "Consumer",
            platforms: [.macOS(.v13), .iOS(.v16)],
            dependencies: [.package(path: "\(PackagePaths.root.path)")],
            targets: [
                .target(name: "App", dependencies: [.product(name: "StubKit", package: "\(stubKit)")],
                        swiftSettings: [.swiftLanguageMode(.v6)]),
                .target(name: "UITests", dependencies: [
                    .product(name: "StubKit", package: "\(stubKit)"),
                    .product(name: "StubKitTesting", package: "\(stubKit)"),
                ], swiftSettings: [.swiftLanguageMode(.v6)]),
            ]
        )
        """
        try Data(manifest.utf8).write(to: folder.url.appendingPathComponent("Package.swift"))

        let run = try ChildProcess.run(executableURL: swift, arguments: ["build"], currentDirectory: folder.url, limit: 900)
        let errors = (run.stdout + run.stderr).split(separator: "\n").filter { $0.contains("error:") }
        #expect(run.status == 0, "the consumer package does not build against the public API:\n\(errors.joined(separator: "\n"))\n\(errors.isEmpty ? run.stdout + run.stderr : "")")
    }
}
