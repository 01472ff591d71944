import Foundation

/// Checks bundles the way `stublint` does: every diagnostic the engine reports, plus the checks that
/// need the whole bundle (unused files, duplicate and shadowed rules, response bodies) or the whole
/// folder of bundles (template names that differ only in case).
package struct BundleLinter: Sendable {
    package var options: BundleLoader.Options

    package init(options: BundleLoader.Options = .lint) {
        self.options = options
    }

    package struct Report: Sendable {
        /// The bundle folders checked, in order.
        package var bundles: [URL]
        package var diagnostics: [Diagnostic]
        /// Rules that loaded without errors, over all bundles.
        package var ruleCount: Int
    }

    /// Lints `path`: one bundle folder, or a folder whose sub-folders are bundles.
    package func lint(_ path: URL) -> Report {
        let loader = BundleLoader(options: options)
        let path = path.standardizedFileURL
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return Report(bundles: [], diagnostics: [Diagnostic(.unreadableFile, file: loader.display(path), message: "no such folder")], ruleCount: 0)
        }
        let folders = BundleLocator.isBundle(path) ? [path] : BundleLocator.bundleFolders(in: path, includingBundlesWithoutRules: true)
        var diagnostics: [Diagnostic] = []
        var ruleCount = 0
        if folders.isEmpty {
            diagnostics.append(Diagnostic(.missingRulesFile, file: loader.display(path), message: "the folder holds no bundles (no rules file, no *.bundle folder)",
                                          fix: "add stubsRules.json or stubsRules.plist"))
        }
        // Bundles are independent: load them on every core, then report in folder order.
        let results = Locked([BundleLoader.Result?](repeating: nil, count: folders.count))
        DispatchQueue.concurrentPerform(iterations: folders.count) { i in
            let result = loader.load(folder: folders[i])
            results.withLock { $0[i] = result }
        }
        for result in results.withLock({ $0 }) {
            guard let result else { continue }
            diagnostics += result.diagnostics
            ruleCount += result.bundle.rules.count
        }
        diagnostics += caseCollisions(folders, loader: loader)
        return Report(bundles: folders, diagnostics: diagnostics.sortedForDisplay(), ruleCount: ruleCount)
    }

    /// Template names that differ only in case collide on the case-insensitive file systems Macs use.
    private func caseCollisions(_ folders: [URL], loader: BundleLoader) -> [Diagnostic] {
        var byLowercased: [String: [URL]] = [:]
        for folder in folders { byLowercased[StubBundle.templateName(ofFolder: folder).lowercased(), default: []].append(folder) }
        var diagnostics: [Diagnostic] = []
        for (_, group) in byLowercased where group.count > 1 {
            let sorted = group.sorted { $0.path < $1.path }
            for folder in sorted.dropFirst() {
                diagnostics.append(Diagnostic(.caseCollidingTemplates, file: loader.display(folder),
                                              message: "template '\(StubBundle.templateName(ofFolder: folder))' differs from '\(StubBundle.templateName(ofFolder: sorted[0]))' only in case; on a case-insensitive file system (the macOS default) one overwrites the other",
                                              fix: "rename one of them",
                                              related: .init(file: loader.display(sorted[0]), position: nil, keyPath: "", message: "the other template")))
            }
        }
        return diagnostics
    }
}
