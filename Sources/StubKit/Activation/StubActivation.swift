import Foundation

/// The one call an app makes at start-up: read the launch arguments and environment, load the
/// bundles they name, and start answering requests.
///
/// ```swift
/// // application(_:didFinishLaunchingWithOptions:), or the top of main.swift
/// try StubActivation.activate()
/// ```
///
/// With no `STUB_…` argument or variable it does nothing and returns `nil`, so the production app
/// behaves exactly as without StubKit: it opens no file and no socket.
///
/// When the runner that launched the app asked for runtime control (`STUB_CONTROL` and
/// `STUB_CONTROL_TOKEN` in the environment, see <doc:UITestsAcrossProcesses>), the app connects out
/// to the runner on 127.0.0.1 and applies its commands while it runs.
public struct StubActivation: Sendable {
    /// The engine serving the activated bundles.
    public let engine: StubEngine
    package let configuration: StubLaunchSettings
    /// Where each template was found, in activation order.
    public let folders: [URL]
    /// Notes and warnings from loading (errors make activation throw in strict mode).
    public let diagnostics: [Diagnostic]
    /// The connection to the test runner that steers this app (runtime control); `nil` unless the
    /// launch environment asked for it.
    package var control: ControlConnection? = nil

    /// Activates stubbing from the process's own launch arguments and environment.
    ///
    /// - Parameters:
    ///   - arguments: the launch arguments to read (`STUB_…` and Apple's `-KEY VALUE` form); the process's own by default.
    ///   - environment: the environment variables to read; the process's own by default.
    ///   - bundlesFolder: a folder to search first for templates.
    ///   - mode: strict (the default) refuses a bundle with errors; lenient serves its sound rules.
    ///   - register: also register the protocol for `URLSession.shared` (see <doc:PlatformsAndLimits>: Linux has no such registration for sessions made from a configuration).
    /// - Throws: ``StubKitError`` for an unknown template or, in strict mode, a bundle with errors.
    @discardableResult
    public static func activate(
        arguments: [String] = ProcessInfo.processInfo.arguments,
        environment: [String: String] = ProcessInfo.processInfo.environment,
        bundlesFolder: URL? = nil,
        mode: StubEngine.Mode = .strict,
        register: Bool = true
    ) throws(StubKitError) -> StubActivation? {
        let configuration = StubLaunchSettings(arguments: arguments, environment: environment)
        // A STUB_ setting that cannot be read asked for something: an error, never a production start.
        guard !configuration.isEmpty || !configuration.problems.isEmpty else { return nil }
        let locator = BundleLocator(explicitFolder: bundlesFolder, environment: environment)
        var activation = try prepare(configuration, locator: locator, mode: mode)
        if register { activation.engine.register() }
        // Only when the runner asked, and after the bundles are in place: its first command sees them.
        if let control = configuration.control {
            activation.control = try ControlConnection.start(control, handler: ControlCommandHandler(engine: activation.engine, locator: locator))
        }
        return activation
    }

    /// Loads the templates of a configuration into a new engine without registering it.
    package static func prepare(_ configuration: StubLaunchSettings, locator: BundleLocator, mode: StubEngine.Mode = .strict) throws(StubKitError) -> StubActivation {
        if let problem = configuration.problems.first {
            throw .invalidLaunchSetting(problem)
        }
        let plan = try RecordingPlan(configuration, locator: locator)
        var templateFolders: [URL] = []
        for template in configuration.templates {
            templateFolders.append(try locator.requireFolder(for: template))
        }
        templateFolders += plan.replayFolders
        // A replayed recording sees the time it was recorded at, unless STUB_NOW says otherwise.
        let now = configuration.now ?? templateFolders.compactMap(RecordingPlan.recordedAt(of:)).last
        let engine = StubEngine(mode: mode, killSwitch: configuration.killSwitch || plan.killSwitch, now: now,
                                seed: configuration.seed ?? 0, recorder: plan.recorder)
        var folders: [URL] = []
        var diagnostics: [Diagnostic] = []
        for folder in templateFolders {
            diagnostics += try engine.activate(folder: folder)
            folders.append(folder)
        }
        if let path = configuration.liveJournalPath {
            let rules = engine.activeBundles.flatMap(LiveJournalLine.Rule.rules(of:))
            engine.journal.startLiveJournal(try LiveJournalWriter(path: path), rules: rules)
        }
        return StubActivation(engine: engine, configuration: configuration, folders: folders, diagnostics: diagnostics)
    }
}
