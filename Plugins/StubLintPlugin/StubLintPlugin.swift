import Foundation
import PackagePlugin

/// Lints the stub bundles in a target's folder as part of its build: stublint's `file:line:col: error:`
/// lines go to the build log (Xcode shows them on the line), and an error fails the build.
///
/// The build command's output is a Swift file holding one comment, written by stublint only when the lint
/// passes and never rewritten while it stays the same. A Swift file because SwiftPM compiles generated
/// sources and would bundle any other kind of file into the target's resources; a command whose output
/// nothing uses would never run. So only Swift targets get the command.
@main
struct StubLintPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SwiftSourceModuleTarget else { return [] }
        let paths = StubBundleFolders.lintPaths(under: target.directoryURL)
        guard !paths.isEmpty else { return [] }
        return [try Self.lintCommand(stublint: context.tool(named: "stublint").url, targetName: target.name,
                                     workDirectory: context.pluginWorkDirectoryURL, paths: paths)]
    }

    /// The one build command: stublint over `paths`, with every bundle file as an input, so the lint runs
    /// again when one changes, appears or goes.
    static func lintCommand(stublint: URL, targetName: String, workDirectory: URL, paths: [URL]) -> Command {
        let stamp = workDirectory.appendingPathComponent("StubLint_\(targetName).swift")
        return .buildCommand(
            displayName: "Linting stub bundles in \(targetName)",
            executable: stublint,
            // Absolute paths: a build step's working folder is not the package's, and Xcode needs them.
            arguments: ["lint", "--absolute-paths", "--stamp", stamp.path] + paths.map(\.path),
            inputFiles: StubBundleFolders.files(in: paths),
            outputFiles: [stamp]
        )
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension StubLintPlugin: XcodeBuildToolPlugin {
    /// In an Xcode project the bundles are among the target's files: a folder reference (a blue folder)
    /// arrives as the folder, a bundle added as a group as its files.
    func createBuildCommands(context: XcodePluginContext, target: XcodeTarget) throws -> [Command] {
        let roots = StubBundleFolders.roots(of: target.inputFiles.map(\.url))
        let paths = StubBundleFolders.lintPaths(under: roots)
        guard !paths.isEmpty else { return [] }
        return [try Self.lintCommand(stublint: context.tool(named: "stublint").url, targetName: target.displayName,
                                     workDirectory: context.pluginWorkDirectoryURL, paths: paths)]
    }
}
#endif
