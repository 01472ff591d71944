import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// What the app does at start-up, before anything uses `URLSession.shared`.
public struct AppStartup {
    /// The activation, or `nil` in a production launch (no `STUB_…` argument or variable).
    public let activation: StubActivation?
    /// Flags, clock and seed the UI test handed the app; empty in production.
    public let launch: LaunchOverrides

    /// `application(_:didFinishLaunchingWithOptions:)`, or the top of `main.swift`.
    public init() throws {
        do {
            activation = try StubActivation.activate()
            launch = try LaunchOverrides.current(activation: activation)
        } catch {
            // A bad STUB_… setting or bundle: the message names the argument, file, line and key.
            print("StubKit: \(error.description) [\(error.code.rawValue)]")
            for diagnostic in error.diagnostics where diagnostic.severity == .error {
                print("  \(diagnostic.file) \(diagnostic.keyPath): \(diagnostic.message)\(diagnostic.fix.map { " (\($0))" } ?? "")")
            }
            throw error
        }
        if let activation {
            let warnings = activation.diagnostics.filter { $0.severity >= .warning }
            print("StubKit: \(activation.engine.activeTemplates.joined(separator: ", ")) from \(activation.folders.map(\.path)); \(warnings.count) warnings")
        }
    }

    /// The feature toggles the app starts with: its defaults, overridden by the test's.
    public func featureToggles(defaults: [String: Bool]) -> [String: Bool] {
        var toggles = defaults
        for name in launch.featureFlags.values.keys {
            if let value = launch.featureFlags.bool(name) { toggles[name] = value }
        }
        return toggles
    }

    /// What the app reads of the automation flags and the clock.
    public func launchSummary() -> String {
        let signedIn = launch.automationFlags.bool("simulateUserAlreadyLoggedIn") == true
        let retries = launch.flags(.automation).int("retries") ?? 3
        let banner = launch.featureFlags.dictionary("banner")?["title"]?.stringValue ?? ""
        let weights = launch.featureFlags.array("weights")?.compactMap(\.doubleValue) ?? []
        // Seeded by STUB_SEED, so the app's own random choices repeat; the system's generator otherwise.
        let pick: Int
        if var random = launch.makeRandomNumberGenerator() {
            pick = Int.random(in: 0..<10, using: &random)
        } else {
            pick = Int.random(in: 0..<10)
        }
        return "test launch \(launch.isTestLaunch), stubs \(launch.stubsRequested), signed in \(signedIn), retries \(retries), "
            + "banner '\(banner)', weights \(weights), today \(launch.date()), now \(String(describing: launch.now)), "
            + "seed \(String(describing: launch.seed)), pick \(pick)"
    }

    /// A session made from the app's own configuration: on Linux, and for sessions made before
    /// activation, the engine is installed into it; elsewhere registration already covers it.
    public func makeAPISession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        StubURLProtocol.currentEngine?.install(into: configuration)
        return URLSession(configuration: configuration)
    }
}

/// The app's own unit tests fake a test launch without arguments.
public func fakeLaunch() -> LaunchOverrides {
    let flags: LaunchFlags = ["newCheckout": true, "retries": 3, "banner": ["title": "Grüß dich", "weights": [1, 2.5]]]
    var automation = LaunchFlags()
    automation["skipOnboarding"] = .bool(true)
    let value: FlagValue = ["nested": [1, 2.5, "three", false]]
    _ = value.dictionaryValue?["nested"]?.arrayValue?.first?.intValue
    return LaunchOverrides(featureFlags: flags, automationFlags: automation,
                           now: Date(timeIntervalSince1970: 1_714_591_800), seed: 42, stubsRequested: true)
}

/// The library's version, for the app's about screen in test builds.
public let stubKitVersion = StubKitVersion.current
