import Foundation

/// Finds template folders in the search folders, in a fixed order.
///
/// A template `<t>` is the folder `<t>.bundle` or `<t>` in the first search folder that has one:
/// the folder passed to the API, then each folder in `STUB_BUNDLES_PATH` (colon-separated), then the
/// main bundle's resources, then `./StubBundles`.
package struct BundleLocator: Sendable {
    package var searchFolders: [URL]

    package init(searchFolders: [URL]) {
        self.searchFolders = searchFolders
    }

    /// The documented search order.
    package init(explicitFolder: URL? = nil, environment: [String: String], currentDirectory: URL? = nil, includeMainBundle: Bool = true) {
        var folders: [URL] = []
        if let explicitFolder { folders.append(explicitFolder) }
        if let path = environment[StubLaunchSettings.bundlesPathVariable] {
            folders += path.split(separator: ":").filter { !$0.isEmpty }.map { URL(fileURLWithPath: String($0), isDirectory: true) }
        }
        if includeMainBundle, let resources = Bundle.main.resourceURL { folders.append(resources) }
        let cwd = currentDirectory ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        folders.append(cwd.appendingPathComponent("StubBundles", isDirectory: true))
        var seen = Set<String>()
        self.searchFolders = folders.map(\.standardizedFileURL).filter { seen.insert($0.path).inserted }
    }

    /// The folder of a template, or `nil` when no search folder has it.
    package func folder(for template: String) -> URL? {
        guard Self.isValidTemplateName(template) else { return nil }
        for folder in searchFolders {
            for name in ["\(template).bundle", template] {
                let candidate = folder.appendingPathComponent(name, isDirectory: true)
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), isDirectory.boolValue {
                    return candidate
                }
            }
        }
        return nil
    }

    /// The folder of a template, or the error an app reports for a name it cannot find: the folders
    /// searched, the templates found and the closest name.
    package func requireFolder(for template: String) throws(StubKitError) -> URL {
        guard Self.isValidTemplateName(template) else {
            throw .invalidLaunchSetting("\(StubLaunchSettings.templatePrefix)\(template): a template name is the name of a bundle folder, without '/', '\\' or '..'")
        }
        guard let folder = folder(for: template) else {
            let available = availableTemplates()
            throw .unknownTemplate(name: template, searched: searchFolders.map(\.path), available: available,
                                   suggestion: Suggestion.closest(to: template, in: available))
        }
        return folder
    }

    /// Whether a template name is a plain folder name: no `/`, `\\`, NUL, and not `.` or `..`, so a
    /// launch argument can never name a folder outside the search folders.
    package static func isValidTemplateName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains { $0 == "/" || $0 == "\\" || $0 == "\0" }
    }

    /// Every template the search folders hold: folders that hold a rules file. Sorted. (Not every
    /// `*.bundle`: SwiftPM adds a `Package_Target.bundle` of resources to apps, which is no template.)
    package func availableTemplates() -> [String] {
        var names = Set<String>()
        for folder in searchFolders {
            for url in Self.bundleFolders(in: folder) { names.insert(StubBundle.templateName(ofFolder: url)) }
        }
        return names.sorted()
    }

    /// The bundle folders directly inside `folder`, sorted by name: those with a rules file, and with
    /// `includingBundlesWithoutRules` (what the linter wants, to report them) every `*.bundle` too.
    package static func bundleFolders(in folder: URL, includingBundlesWithoutRules: Bool = false) -> [URL] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
        return entries.sorted().compactMap { name -> URL? in
            let url = folder.appendingPathComponent(name, isDirectory: true)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else { return nil }
            if includingBundlesWithoutRules && name.hasSuffix(".bundle") { return url }
            let hasRules = RuleKeys.rulesFileNames.contains { FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path) }
            return hasRules ? url : nil
        }
    }

    /// Whether `folder` is itself a bundle (holds a rules file, or ends in `.bundle`).
    package static func isBundle(_ folder: URL) -> Bool {
        folder.lastPathComponent.hasSuffix(".bundle")
            || RuleKeys.rulesFileNames.contains { FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) }
    }
}
