import Foundation
import StubKit

/// Everything a test runner hands the app it launches, as one value: stubs, flags, clock, seed.
///
/// ```swift
/// var config = AppLaunchConfiguration(templates: ["restaurants_base", "restaurants_closed"], killSwitch: true)
/// config.automationFlags["simulateUserAlreadyLoggedIn"] = true
/// config.featureFlags = ["newCheckout": true, "banner": ["title": "Grüß \"dich\"", "weights": [1, 2.5]]]
/// config.now = ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z")
/// app.launchArguments = try config.launchArguments      // XCUIApplication, or Process.arguments
/// app.launchEnvironment = config.launchEnvironment
/// ```
///
/// The `STUB_…` arguments are written by the same StubKit code the app reads them with: one
/// encoding, written once. Flags go as one argument per kind in `LaunchFlags`' versioned JSON.
public struct AppLaunchConfiguration: Sendable, Hashable {
    /// Templates, kill switch, `now`, seed, record settings and the live journal path, as the app reads them.
    package var stubs: StubLaunchSettings
    /// Folders searched for templates (`STUB_BUNDLES_PATH`, set in the environment).
    public var bundlePaths: [String]
    /// Product toggles handed to the app (`STUB_FEATURE_FLAGS`), read with `LaunchOverrides`.
    public var featureFlags: LaunchFlags
    /// Test-only shortcuts handed to the app (`STUB_AUTOMATION_FLAGS`), read with `LaunchOverrides`.
    public var automationFlags: LaunchFlags
    /// Arguments after the generated ones (the app's own options).
    public var extraArguments: [String]
    /// Environment variables added to ``launchEnvironment`` (they win over generated ones).
    public var environment: [String: String]

    /// A launch with these stubs, flags, clock, seed, record settings and live journal; everything is off by default.
    public init(templates: [String] = [], killSwitch: Bool = false, now: Date? = nil, seed: UInt64? = nil,
                recording: RecordingLaunchSettings? = nil, bundlePaths: [String] = [], featureFlags: LaunchFlags = [:],
                automationFlags: LaunchFlags = [:], liveJournalPath: String? = nil,
                extraArguments: [String] = [], environment: [String: String] = [:]) {
        stubs = StubLaunchSettings(templates: templates, killSwitch: killSwitch, now: now, seed: seed)
        stubs.recording = recording
        stubs.liveJournalPath = liveJournalPath
        self.bundlePaths = bundlePaths
        self.featureFlags = featureFlags
        self.automationFlags = automationFlags
        self.extraArguments = extraArguments
        self.environment = environment
    }

    /// Stub templates in activation order: later ones layer over earlier ones.
    public var templates: [String] {
        get { stubs.templates }
        set { stubs.templates = newValue }
    }

    /// Fail every request no rule answers (`STUB_KILL_NETWORK`).
    public var killSwitch: Bool {
        get { stubs.killSwitch }
        set { stubs.killSwitch = newValue }
    }

    /// The time templates and the app's `LaunchOverrides` see (`STUB_NOW`).
    public var now: Date? {
        get { stubs.now }
        set { stubs.now = newValue }
    }

    /// The seed of random delays and of the app's `LaunchOverrides` generator (`STUB_SEED`).
    public var seed: UInt64? {
        get { stubs.seed }
        set { stubs.seed = newValue }
    }

    /// Record mode (`STUB_RECORD…`).
    public var recording: RecordingLaunchSettings? {
        get { stubs.recording }
        set { stubs.recording = newValue }
    }

    /// The file the app appends its journal to as it goes (`STUB_JOURNAL_LIVE`); read it with ``LiveJournal``.
    public var liveJournalPath: String? {
        get { stubs.liveJournalPath }
        set { stubs.liveJournalPath = newValue }
    }

    /// The local stub server the app's WebSockets go to (`STUB_WEBSOCKET_SERVER`): start `stubkit serve`
    /// with the WebSocket rules' templates, put its URL here, and the app opens each socket at
    /// `LaunchOverrides.webSocketURL(for:)`.
    public var webSocketServer: URL? {
        get { stubs.webSocketServer }
        set { stubs.webSocketServer = newValue }
    }

    /// Starts runtime control for the app launched with this configuration: the returned
    /// ``AppControl`` listens on 127.0.0.1, and ``launchEnvironment`` from now on tells the app where to
    /// connect and carries the token that proves this runner launched it.
    ///
    /// - Parameter timeout: seconds each ``AppControl`` call waits for the app.
    /// - Throws: a socket error when no loopback port can be opened.
    public mutating func enableRuntimeControl(timeout: TimeInterval = 60) throws -> AppControl {
        let control = try AppControl(timeout: timeout)
        stubs.control = control.settings
        return control
    }

    /// Adds templates on top of those already set.
    public func layering(_ templates: String...) -> AppLaunchConfiguration {
        var copy = self
        copy.templates += templates
        return copy
    }

    /// What to assign to `XCUIApplication.launchArguments` or `Process.arguments`.
    ///
    /// - Throws: `StubKitError` naming the flag when a flag's Double is NaN or infinite: JSON has no
    ///   form for them, so the app could not be handed the value (rather than a crash in the runner).
    public var launchArguments: [String] {
        get throws(StubKitError) {
            var arguments = stubs.launchArguments
            for kind in LaunchFlags.Kind.allCases {
                let flags = kind == .feature ? featureFlags : automationFlags
                if !flags.isEmpty { arguments.append("\(kind.argumentName)=\(try flags.encoded(as: kind))") }
            }
            return arguments + extraArguments
        }
    }

    /// What to assign to `XCUIApplication.launchEnvironment` (or merge into `Process.environment`).
    public var launchEnvironment: [String: String] {
        var variables: [String: String] = [:]
        if !bundlePaths.isEmpty { variables[StubLaunchSettings.bundlesPathVariable] = bundlePaths.joined(separator: ":") }
        // In the environment, never the arguments: `ps` shows arguments to every user of the machine.
        if let control = stubs.control { variables.merge(control.launchEnvironment) { _, new in new } }
        return variables.merging(environment) { _, own in own }
    }
}
