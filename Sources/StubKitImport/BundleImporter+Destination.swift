#if Tools
import Foundation
import StubKit

extension BundleImporter {
    /// Refuses a destination whose contents an import would delete without being asked to: an existing
    /// file, a non-empty folder (unless `replacing`, and then only a bundle), or a folder that holds
    /// or lies inside an input. Shared by every `stubkit` command that writes a bundle.
    package static func checkDestination(_ bundle: URL, replacing: Bool, inputs: [URL]) throws(ImportError) {
        let fm = FileManager.default
        let target = bundle.standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: target.path, isDirectory: &isDirectory) else { return }
        guard isDirectory.boolValue else {
            throw ImportError(file: target.path, "is a file, not a bundle folder; nothing written (name a folder with --to)")
        }
        for input in inputs {
            if FileContainment.isInside(input, folder: bundle) || FileContainment.isInside(bundle, folder: input) {
                throw ImportError(file: target.path, "holds or lies inside the input \(input.path); writing the bundle there could delete what is imported; nothing written (choose another --to)")
            }
        }
        let entries = (try? fm.contentsOfDirectory(atPath: target.path)) ?? []
        guard !entries.isEmpty else { return }
        guard replacing else {
            throw ImportError(file: target.path, "already exists and is not empty; nothing written (give --force to replace a bundle there, or choose another --to)")
        }
        guard RuleKeys.rulesFileNames.contains(where: entries.contains) else {
            throw ImportError(file: target.path, "is not a stub bundle (it has no rules file), so --force will not replace it; nothing written (choose another --to or empty the folder)")
        }
    }
}
#endif
