import Foundation

extension RecordingLaunchSettings {
    /// Record mode as a test runner asks for it: record `template` into `path` (or the first folder of
    /// `STUB_BUNDLES_PATH`), in `mode`, ignoring `ignored` volatile fields when matching.
    public static func recording(_ template: String, into path: String? = nil, mode: RecorderConfiguration.Mode = .missing,
                                 ignoring ignored: [RecorderConfiguration.VolatileField] = []) -> RecordingLaunchSettings {
        var settings = RecordingLaunchSettings(template: template)
        settings.path = path
        settings.mode = mode
        settings.ignored = ignored
        return settings
    }
}
