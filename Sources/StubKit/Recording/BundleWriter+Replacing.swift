import Foundation

extension BundleWriter {
    /// Removes what `folder` holds, except the values a test saved for this recording
    /// (`recordedValues.json`): a test typically makes its random e-mail before launching the app,
    /// which then records requests carrying it, and the replay needs that value.
    ///
    /// The folder itself stays, and the test runners' saves take turns with this under the folder's
    /// lock, so a save in progress is neither cut off nor undone; any hidden temporary found under the
    /// lock is a leftover of a crash.
    static func empty(_ folder: URL) throws {
        let fm = FileManager.default
        try FolderLock.withExclusiveLock(on: folder) {
            for name in try fm.contentsOfDirectory(atPath: folder.path) where name != BundleLoader.recordedValuesFileName {
                try fm.removeItem(at: folder.appendingPathComponent(name))
            }
        }
    }

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
