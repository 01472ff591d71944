import Foundation
import PackagePlugin

/// Lints the stub bundles in a target's folder as part of its build: stublint's `file:line:col: error:`
/// lines go to the build log (Xcode shows them on the line), and an error fails the build.
///
/// The build command's output is a Swift file holding one comment, written by stublint only when the lint
/// passes. A Swift file because SwiftPM compiles generated sources and would bundle any other kind of file
/// into the target's resources; a command whose output nothing uses would never run.
@main
struct StubLintPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let paths = StubBundleFolders.lintPaths(under: target.directoryURL)
        guard !paths.isEmpty else { return [] }
        let stamp = context.pluginWorkDirectoryURL.appendingPathComponent("StubLint_\(target.name).swift")
        return [
            .buildCommand(
                displayName: "Linting stub bundles in \(target.name)",
                executable: try context.tool(named: "stublint").url,
                // Absolute paths: a build step's working folder is not the package's, and Xcode needs them.
                arguments: ["lint", "--absolute-paths", "--stamp", stamp.path] + paths.map(\.path),
                // Every bundle file, so the lint runs again when one changes, appears or goes.
                inputFiles: StubBundleFolders.files(in: paths),
                outputFiles: [stamp]
            ),
        ]
    }
}
