import Foundation
import PackagePlugin

/// `swift package lint-stubs [--target T]… [folders…] [stublint lint options]`: stublint over the folders
/// given, or else over the stub bundles in the package's targets and its `StubBundles/` folder. Exits with
/// stublint's status, so a script or CI step fails on errors.
@main
struct LintStubsPlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        try Self.lint(arguments: arguments, packageDirectory: context.package.directoryURL,
                      stublint: context.tool(named: "stublint").url) { targetNames in
            let targets = targetNames.isEmpty ? context.package.targets : try context.package.targets(named: targetNames)
            return targets.compactMap { ($0 as? SourceModuleTarget)?.directoryURL }
        }
    }

    /// Runs `stublint lint` from `packageDirectory` over the folders in `arguments`, or else over the
    /// bundles under the roots of the `--target`s named (all when none is) and the `StubBundles/` folder.
    static func lint(arguments: [String], packageDirectory package: URL, stublint: URL,
                     roots rootsOfTargets: ([String]) throws -> [URL]) throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        var lintArguments = extractor.remainingArguments
        if !hasPaths(lintArguments) {
            var roots = try rootsOfTargets(targetNames)
            if targetNames.isEmpty { roots.append(package.appendingPathComponent("StubBundles", isDirectory: true)) }
            let paths = StubBundleFolders.lintPaths(under: roots)
            guard !paths.isEmpty else {
                print("lint-stubs: no stub bundles (folders holding stubsRules.json or stubsRules.plist) in \(targetNames.isEmpty ? "the package" : targetNames.joined(separator: ", "))")
                return
            }
            lintArguments += paths.map { relative($0, to: package) }
        }
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

    /// The rule of StubKit's `URL.displayPath(relativeTo:)`, repeated because a plugin cannot link StubKit.
    static func relative(_ url: URL, to base: URL) -> String {
        let path = url.standardizedFileURL.path
        let prefix = base.standardizedFileURL.path + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

#if canImport(XcodeProjectPlugin)
import XcodeProjectPlugin

extension LintStubsPlugin: XcodeCommandPlugin {
    /// In an Xcode project: the bundles among the targets' files (folder references, or bundles added as
    /// groups), `--target` naming targets as Xcode shows them.
    func performCommand(context: XcodePluginContext, arguments: [String]) throws {
        try Self.lint(arguments: arguments, packageDirectory: context.xcodeProject.directoryURL,
                      stublint: context.tool(named: "stublint").url) { targetNames in
            let targets = context.xcodeProject.targets.filter { targetNames.isEmpty || targetNames.contains($0.displayName) }
            return StubBundleFolders.roots(of: targets.flatMap { $0.inputFiles.map(\.url) })
        }
    }
}
#endif
