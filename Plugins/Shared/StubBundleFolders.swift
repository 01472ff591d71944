import Foundation

/// The stub bundles under a folder, found as the runtime finds templates: a bundle is a folder that holds
/// a rules file. Shared by both plugins (each plugin folder links this file: plugins cannot depend on a
/// library target).
enum StubBundleFolders {
    /// Names of rules files; the same list as StubKit's `RuleKeys.rulesFileNames`.
    static let rulesFileNames = ["stubsRules.json", "stubsRules.plist", "stubRules.json", "stubRules.plist"]

    /// What to hand stublint for `root`, sorted: a folder whose sub-folders are all bundles (a `StubBundles/`)
    /// as one folder of bundles, so stublint also compares its template names; any other bundle on its own.
    /// Bundles are not searched inside, nor are hidden folders (`.build`, `.git`).
    static func lintPaths(under root: URL) -> [URL] {
        var bundles: [URL] = []
        collect(root.standardizedFileURL, into: &bundles)
        let byParent = Dictionary(grouping: bundles) { $0.deletingLastPathComponent().standardizedFileURL.path }
        var paths: [URL] = []
        for (parentPath, group) in byParent {
            let parent = URL(fileURLWithPath: parentPath, isDirectory: true)
            // A `*.bundle` parent would be read by stublint as one bundle itself.
            if parent.pathExtension != "bundle", subfolders(of: parent).allSatisfy(isBundleLike) {
                paths.append(parent)
            } else {
                paths += group
            }
        }
        return paths.sorted { $0.path < $1.path }
    }

    /// `lintPaths(under:)` for several roots, each path once, none inside another (nested roots would
    /// lint a bundle twice).
    static func lintPaths(under roots: [URL]) -> [URL] {
        let all = Set(roots.flatMap { lintPaths(under: $0) }.map(\.standardizedFileURL.path))
        let kept = all.filter { path in !all.contains { $0 != path && path.hasPrefix($0 + "/") } }
        return kept.sorted().map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// Where to look for bundles among a target's files, as an Xcode project lists them: each folder (a
    /// folder reference) and the folder of each rules file (a bundle added as a group), once each.
    static func roots(of files: [URL]) -> [URL] {
        var roots = Set<String>()
        for file in files {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                roots.insert(file.standardizedFileURL.path)
            } else if rulesFileNames.contains(file.lastPathComponent) {
                roots.insert(file.deletingLastPathComponent().standardizedFileURL.path)
            }
        }
        return roots.sorted().map { URL(fileURLWithPath: $0, isDirectory: true) }
    }

    /// Every file inside the bundles under `paths`: a build command's inputs, so it runs again when one changes.
    static func files(in paths: [URL]) -> [URL] {
        var files: [URL] = []
        for path in paths {
            guard let walker = FileManager.default.enumerator(at: path, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
                files.append(url)
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    static func isBundle(_ folder: URL) -> Bool {
        rulesFileNames.contains { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    }

    /// A bundle, or a `*.bundle` folder (which stublint reports when it lacks a rules file).
    private static func isBundleLike(_ folder: URL) -> Bool {
        folder.pathExtension == "bundle" || isBundle(folder)
    }

    private static func collect(_ folder: URL, into bundles: inout [URL]) {
        if isBundle(folder) {
            bundles.append(folder)
            return
        }
        for child in subfolders(of: folder) { collect(child, into: &bundles) }
    }

    private static func subfolders(of folder: URL) -> [URL] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return entries.sorted().filter { !$0.hasPrefix(".") }.compactMap { name in
            let url = folder.appendingPathComponent(name, isDirectory: true)
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue ? url : nil
        }
    }
}
