import Foundation

extension RecordSettings {
    /// Record mode as a test runner asks for it: record `template` into `path` (or the first folder of
    /// `STUB_BUNDLES_PATH`), in `mode`, ignoring `ignored` volatile fields when matching.
    public static func recording(_ template: String, into path: String? = nil, mode: RecordConfiguration.Mode = .missing,
                                 ignoring ignored: [RecordConfiguration.VolatileField] = []) -> RecordSettings {
        var settings = RecordSettings(template: template)
        settings.path = path
        settings.mode = mode
        settings.ignored = ignored
        return settings
    }
}
