#if Tools
import Foundation
import StubKitDocuments

/// WireMock stubs as a project keeps them: a `mappings` folder, with its bodies in `__files` beside it,
/// per test suite, at any depth (`src/test/resources/<suite>/mappings`). Each becomes its own bundle.
package struct WireMockProject: Sendable {
    /// One `mappings` folder and the bundle it becomes.
    package struct Suite: Sendable, Equatable {
        /// The bundle's template name, made from the suite's path (see ``find(in:)``).
        package var name: String
        package var mappings: URL
        /// `__files` beside `mappings` (it may not exist).
        package var files: URL
        /// The `mappings` folder's path relative to the project folder, for reports.
        package var relativePath: String
    }

    package var root: URL
    /// In path order.
    package var suites: [Suite]
    /// `mappings` folders that hold no file to import, relative to the project folder: no bundle for them.
    package var emptyMappings: [String]
    /// The files a folder walk reads that lie in no suite's `mappings`, in path order: the whole project
    /// tree (charts, contracts, sources) besides the HAR files, cassettes and `.tail` files among them.
    /// ``readOtherFiles(with:)`` picks those that go into one more bundle, ``otherName``.
    package var otherFiles: [URL]
    /// The bundle for ``otherFiles``: the project folder's name, numbered when a suite has it.
    package var otherName: String

    /// Folders never searched: where builds copy test resources and package managers keep others' files.
    /// Hidden folders (`.git`, `.gradle`, `.build`) are skipped too.
    package static let skippedFolders: Set<String> = ["build", "target", "node_modules"]

    /// The suites of a project folder, or `nil` when `folder` is itself a WireMock root (a `mappings`
    /// folder, or a folder holding one directly, imported as one bundle) or holds no `mappings` folder
    /// with a WireMock mapping in it (a `mappings` folder of another tool is no suite: its files are
    /// read like any other).
    ///
    /// A found `mappings` folder is not searched further (its subfolders are its own), nor is `__files`.
    /// Bundle names are the suites' paths (the folders holding `mappings`) without the leading and
    /// trailing folders they all share, joined with `_` (`src/test/resources/payments` and `…/orders`
    /// become `payments` and `orders`; one suite is named by its last folder); names that collide,
    /// ignoring case, get `_2`, `_3` in path order.
    package static func find(in folder: URL) -> WireMockProject? {
        let root = folder.standardizedFileURL
        let fm = FileManager.default
        guard root.lastPathComponent != "mappings" else { return nil }
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: root.appendingPathComponent("mappings").path, isDirectory: &isDirectory), isDirectory.boolValue { return nil }
        guard let walk = fm.enumerator(at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [.skipsHiddenFiles]) else { return nil }
        var found: [URL] = []
        for case let url as URL in walk {
            guard (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true else { continue }
            let name = url.lastPathComponent
            if skippedFolders.contains(name) || name == "__files" {
                walk.skipDescendants()
            } else if name == "mappings" {
                found.append(url.standardizedFileURL)
                walk.skipDescendants()
            }
        }
        guard !found.isEmpty else { return nil }
        found.sort { $0.path < $1.path }
        let relative = found.map { Array($0.pathComponents.dropFirst(root.pathComponents.count)) }
        var suites: [(mappings: URL, path: [String])] = [], empty: [String] = []
        for (mappings, components) in zip(found, relative) {
            let files = BundleImporter.sourceFiles(in: mappings)
            if files.isEmpty {
                empty.append(components.joined(separator: "/"))
            } else if files.contains(where: isWireMockMapping) {
                suites.append((mappings, Array(components.dropLast())))
            }
        }
        guard !suites.isEmpty else { return nil }
        let names = uniqueNames(bundleNames(suites.map(\.path)) + bundleNames([[root.lastPathComponent]]))
        let suitePrefixes = suites.map { $0.mappings.path + "/" }
        let others = BundleImporter.sourceFiles(in: root).filter { file in !suitePrefixes.contains { file.standardizedFileURL.path.hasPrefix($0) } }
        return WireMockProject(root: root, suites: zip(suites, names).map { suite, name in
            Suite(name: name, mappings: suite.mappings, files: suite.mappings.deletingLastPathComponent().appendingPathComponent("__files"),
                  relativePath: (suite.path + ["mappings"]).joined(separator: "/"))
        }, emptyMappings: empty, otherFiles: others, otherName: names[names.count - 1])
    }

    /// What ``otherFiles`` give: the batches for the ``otherName`` bundle, each with at least one entry;
    /// the files skipped, with the reason; the files in no format stubkit imports; and errors that stop
    /// the import.
    package struct OtherFiles: Sendable {
        package var batches: [ImportBatch] = []
        package var skipped: [(path: String, reason: String)] = []
        package var unknown: [String] = []
        package var errors: [ImportError] = []
    }

    /// Reads ``otherFiles``. A `.har` file is there to be imported, so it is read as any input is (an
    /// unreadable one stops the import). Any other file of the project tree (a chart's YAML, a Pact
    /// contract, a config JSON) is imported only when it reads as a stub input with something in it;
    /// otherwise it is skipped with the reason and does not block the suites.
    package func readOtherFiles(with importer: BundleImporter) -> OtherFiles {
        var result = OtherFiles(), budget = BundleImporter.InflateBudget()
        for file in otherFiles {
            let path = relativePath(of: file)
            do throws(ImportError) {
                guard let batch = try importer.read(file, walked: true, budget: &budget) else {
                    result.unknown.append(path)
                    continue
                }
                if batch.entries.isEmpty {
                    let why = batch.notes.first.map { ": \($0.message)" } ?? ""
                    result.skipped.append((path, "read as format \(batch.format) but holds nothing to import\(why)"))
                } else {
                    result.batches.append(batch)
                }
            } catch {
                if file.pathExtension.lowercased() == "har" {
                    result.errors.append(error)
                } else {
                    // One line: a parser's message goes on to quote the source and point at it.
                    let message = error.message.prefix { $0 != "\n" }
                    let location = error.location.map { message.contains($0) ? "" : "\($0): " } ?? ""
                    result.skipped.append((path, "not read as a stub input: \(location)\(message)"))
                }
            }
        }
        return result
    }

    /// Whether a file is a WireMock mapping (or a file of them), judged by its content.
    private static func isWireMockMapping(_ file: URL) -> Bool {
        guard let data = try? Data(contentsOf: file), DocumentReader.looksLikeJSON(data) else { return false }
        return ImportFormat.detect(data, fileName: file.lastPathComponent) == .wiremock
    }

    /// A file's path relative to the project folder, for reports.
    package func relativePath(of file: URL) -> String {
        file.displayPath(relativeTo: root)
    }

    /// Each path without the leading and trailing folders all paths share, keeping at least one.
    static func bundleNames(_ paths: [[String]]) -> [String] {
        var paths = paths
        while paths.allSatisfy({ $0.count > 1 && $0.first == paths[0].first }) { paths = paths.map { Array($0.dropFirst()) } }
        while paths.count > 1, paths.allSatisfy({ $0.count > 1 && $0.last == paths[0].last }) { paths = paths.map { Array($0.dropLast()) } }
        return paths.map { path in
            // A plain folder name: letters, digits, `-`, `_` and inner `.`; anything else becomes `_`.
            let joined = path.joined(separator: "_").unicodeScalars.map { scalar -> String in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar)) ? String(scalar) : "_"
            }.joined()
            let trimmed = joined.drop { $0 == "." }
            return trimmed.isEmpty ? "wiremock" : String(trimmed)
        }
    }

    /// `names` with later repeats (ignoring case: macOS folders are case-insensitive) given `_2`, `_3`.
    static func uniqueNames(_ names: [String]) -> [String] {
        var taken: Set<String> = []
        return names.map { name in
            var candidate = name, number = 1
            while taken.contains(candidate.lowercased()) {
                number += 1
                candidate = "\(name)_\(number)"
            }
            taken.insert(candidate.lowercased())
            return candidate
        }
    }
}
#endif
