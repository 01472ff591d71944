import Foundation

/// What activation does for `STUB_RECORD`: which folder to record into, whether to record at all
/// (`once` replays an existing recording with the kill switch on), and which existing recording the
/// engine replays meanwhile (`missing`).
struct RecordingPlan {
    var recorder: Recorder?
    /// Bundles to activate on top of the named templates.
    var replayFolders: [URL] = []
    var killSwitch = false

    init(_ configuration: StubLaunchSettings, locator: BundleLocator) throws(StubKitError) {
        guard let settings = configuration.recording else { return }
        let source = "\(RecordingLaunchSettings.templateKey)=\(settings.template)"
        let folder: URL
        if let path = settings.path {
            folder = URL(fileURLWithPath: path, isDirectory: true)
        } else if let first = locator.searchFolders.first(where: { $0.standardizedFileURL != Bundle.main.resourceURL?.standardizedFileURL }) {
            // Never the app's own resources (read-only on a device): the API's folder, the first of
            // STUB_BUNDLES_PATH, else ./StubBundles.
            folder = first
        } else {
            throw .invalidLaunchSetting("\(source): no folder to record into; set \(RecordingLaunchSettings.pathKey) or \(StubLaunchSettings.bundlesPathVariable)")
        }
        let recording = settings.configuration(folder: folder)
        if recording.mode == .once && recording.bundleExists {
            replayFolders = [recording.bundleFolder]
            killSwitch = true
            return
        }
        if recording.mode == .missing && recording.bundleExists { replayFolders = [recording.bundleFolder] }
        do {
            recorder = try Recorder(configuration: recording)
        } catch {
            throw .invalidLaunchSetting("\(source): \(error.path): \(error.reason)")
        }
    }

    /// The `recordedAt` of a bundle's rules file, if it has one.
    static func recordedAt(of folder: URL) -> Date? {
        guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent("stubsRules.json").path),
              let top = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let text = top["recordedAt"] as? String else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
