import Foundation
import PackagePlugin

/// `swift package lint-stubs [--target T]… [folders…] [stublint lint options]`: stublint over the folders
/// given, or else over the stub bundles in the package's targets and its `StubBundles/` folder. Exits with
/// stublint's status, so a script or CI step fails on errors.
@main
struct LintStubsPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        var lintArguments = extractor.remainingArguments
        let package = context.package.directoryURL
        if !Self.hasPaths(lintArguments) {
            let targets = targetNames.isEmpty ? context.package.targets : try context.package.targets(named: targetNames)
            var roots = targets.compactMap { ($0 as? SourceModuleTarget)?.directoryURL }
            if targetNames.isEmpty { roots.append(package.appendingPathComponent("StubBundles", isDirectory: true)) }
            let paths = Array(Set(roots.flatMap(StubBundleFolders.lintPaths(under:)))).sorted { $0.path < $1.path }
            guard !paths.isEmpty else {
                print("lint-stubs: no stub bundles (folders holding stubsRules.json or stubsRules.plist) in \(targetNames.isEmpty ? "the package" : targetNames.joined(separator: ", "))")
                return
            }
            lintArguments += paths.map { Self.relative($0, to: package) }
        }
        let stublint = try context.tool(named: "stublint").url
        let process = Process()
        process.executableURL = stublint
        process.arguments = ["lint"] + lintArguments
        // Relative paths in the arguments and in the diagnostics mean the package folder, as in `swift run stublint`.
        process.currentDirectoryURL = package
        try process.run()
        process.waitUntilExit()
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            // SwiftPM prints the error and exits non-zero; the diagnostics are already on the output.
            throw LintFailed(status: process.terminationStatus)
        }
    }

    struct LintFailed: Error, CustomStringConvertible {
        var status: Int32
        var description: String {
            status == 1 ? "stublint found errors" : "stublint exited with status \(status)"
        }
    }

    /// Whether the arguments name a folder, skipping the values of stublint's options that take one.
    static func hasPaths(_ arguments: [String]) -> Bool {
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--format" || argument == "--openapi" {
                index += 2
                continue
            }
            if argument == "--" { return index + 1 < arguments.endIndex }
            if !argument.hasPrefix("-") { return true }
            index += 1
        }
        return false
    }

    static func relative(_ url: URL, to base: URL) -> String {
        let path = url.standardizedFileURL.path
        let prefix = base.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}
