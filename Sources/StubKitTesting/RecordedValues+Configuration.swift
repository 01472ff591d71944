import Foundation
import StubKit

extension RecordedValues {
    /// The store of the recording `configuration` launches the app with: the same bundle folder and the
    /// same decision to record or replay as the app makes, so the folder and the mode are set in one place.
    ///
    /// - With ``AppLaunchConfiguration/recording``: the bundle `<path>/<template>` (or an existing
    ///   `<template>.bundle`), where `path` is the recording's `RecordingLaunchSettings.path` or else
    ///   the first of ``AppLaunchConfiguration/bundlePaths``, as the app chooses it. Mode `all` records,
    ///   `missing` records what is missing, `once` replays when the bundle already has a rules file and
    ///   records otherwise.
    /// - Without it: a replay of the configuration's templates, reading the values of the last template
    ///   (the top layer) whose bundle holds a values file.
    ///
    /// Make the store before launching the app: in mode `once` the app's first recorded request
    /// creates the bundle, after which a new store would replay.
    ///
    /// - Throws: ``RecordedValuesError`` when the configuration neither records nor names a template
    ///   found in its bundle paths, records without a folder the runner can know (no
    ///   `RecordingLaunchSettings.path` and no ``AppLaunchConfiguration/bundlePaths``), or the values
    ///   file it would read is not valid.
    public convenience init(for configuration: AppLaunchConfiguration) throws(RecordedValuesError) {
        let bundlePaths = configuration.launchEnvironment[StubLaunchSettings.bundlesPathVariable]
            .map { $0.split(separator: ":").filter { !$0.isEmpty }.map(String.init) } ?? []
        if let recording = configuration.recording {
            guard let folder = recording.path ?? bundlePaths.first else {
                throw RecordedValuesError(.noRecording("recording '\(recording.template)' names no folder the test runner can find: set the recording's path or the configuration's bundlePaths (the app's own default, ./StubBundles in its working directory, is not known to the runner)"), file: nil)
            }
            let recorder = recording.configuration(folder: URL(fileURLWithPath: folder, isDirectory: true))
            let mode: Mode
            switch recorder.mode {
            case .all: mode = .record
            case .missing: mode = .recordMissing
            case .once: mode = recorder.bundleExists ? .replay : .record
            }
            try self.init(bundle: recorder.bundleFolder, mode: mode)
            return
        }
        let locator = BundleLocator(searchFolders: bundlePaths.map { URL(fileURLWithPath: $0, isDirectory: true) })
        let found = configuration.templates.compactMap { locator.folder(for: $0) }
        guard let top = found.last else {
            let reason = configuration.templates.isEmpty
                ? "the configuration neither records nor replays: give it a recording or the templates of one"
                : "none of the templates \(configuration.templates.map { "'\($0)'" }.joined(separator: ", ")) is a bundle folder in the bundle paths \(bundlePaths)"
            throw RecordedValuesError(.noRecording(reason), file: nil)
        }
        let withValues = found.last { FileManager.default.fileExists(atPath: $0.appendingPathComponent(Self.fileName).path) }
        try self.init(bundle: withValues ?? top, mode: .replay)
    }
}
