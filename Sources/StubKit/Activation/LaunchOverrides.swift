import Foundation

/// What a UI test hands the app besides stubs: feature flags, automation flags, the clock and the seed.
///
/// The app-side half of `StubKitTesting`'s `AppLaunchConfiguration`. Read it once at start-up, after
/// ``StubActivation/activate(arguments:environment:bundlesFolder:mode:register:)``:
///
/// ```swift
/// let activation = try StubActivation.activate()
/// let launch = try LaunchOverrides.current(activation: activation)
/// if launch.automationFlags.bool("simulateUserAlreadyLoggedIn") == true { session.signInAsTestUser() }
/// featureToggles.override(with: launch.featureFlags.values)
/// let today = launch.date()            // STUB_NOW, or the recording's time, or the real clock
/// ```
///
/// In a production launch (no `STUB_…` argument or variable) every flag set is empty, ``now`` and
/// ``seed`` are `nil`, and nothing is read from or written to disk.
public struct LaunchOverrides: Sendable {
    /// Product toggles the test set (`STUB_FEATURE_FLAGS`); empty in production.
    public var featureFlags: LaunchFlags
    /// Test-only shortcuts the test set (`STUB_AUTOMATION_FLAGS`); empty in production.
    public var automationFlags: LaunchFlags
    /// The fixed "now" for the app's own date logic at launch: `STUB_NOW`, else the `recordedAt` of the
    /// last active recorded bundle (so the app sees the day its stubs were recorded), else `nil`.
    /// ``date()`` follows the engine's clock after launch too (runtime control's `setNow`) until this
    /// is set by hand.
    public var now: Date? {
        didSet { engine = nil }
    }
    /// The activation's engine, whose clock ``date()`` reads while runtime control may change it.
    private var engine: StubEngine?
    /// `STUB_SEED`, for the app's own random choices.
    public var seed: UInt64?

    /// Whether the launch asks for stubbing (templates, the kill switch, recording, a live journal).
    public var stubsRequested: Bool

    /// Where WebSockets go: the local stub server the runner named, or nowhere with the kill switch.
    var webSocketRoute = WebSocketRoute(server: nil, killSwitch: false)

    /// Whether the launch carries anything for tests: stubs, flags, a fixed clock or a seed; `false` in
    /// a production launch.
    public var isTestLaunch: Bool {
        stubsRequested || !featureFlags.isEmpty || !automationFlags.isEmpty || now != nil || seed != nil || webSocketRoute.server != nil
    }

    /// The flags of one kind.
    public func flags(_ kind: LaunchFlags.Kind) -> LaunchFlags {
        switch kind {
        case .feature: featureFlags
        case .automation: automationFlags
        }
    }

    /// Reads the process's own launch arguments and environment.
    ///
    /// - Parameter activation: the app's activation, whose engine's fixed time (`STUB_NOW` or the
    ///   recorded bundle's `recordedAt`) becomes ``now``.
    /// - Throws: ``StubKitError`` naming the argument or variable whose flags are malformed.
    public static func current(activation: StubActivation? = nil) throws(StubKitError) -> LaunchOverrides {
        try LaunchOverrides(arguments: ProcessInfo.processInfo.arguments, environment: ProcessInfo.processInfo.environment, activation: activation)
    }

    package init(arguments: [String], environment: [String: String], activation: StubActivation? = nil) throws(StubKitError) {
        var sets: [LaunchFlags.Kind: LaunchFlags] = [:]
        for kind in LaunchFlags.Kind.allCases {
            guard let text = StubLaunchSettings.value(of: kind.argumentName, arguments: arguments, environment: environment) else { continue }
            let fromArgument = StubLaunchSettings.value(of: kind.argumentName, arguments: arguments, environment: [:]) != nil
            sets[kind] = try LaunchFlags(decoding: text, source: "\(fromArgument ? "launch argument" : "environment variable") \(kind.argumentName)")
        }
        featureFlags = sets[.feature] ?? LaunchFlags()
        automationFlags = sets[.automation] ?? LaunchFlags()
        if let activation {
            now = activation.engine.fixedNow
            engine = activation.engine
            seed = activation.configuration.seed
            stubsRequested = !activation.configuration.isEmpty
            webSocketRoute = WebSocketRoute(server: activation.configuration.webSocketServer, killSwitch: activation.configuration.killSwitch)
        } else {
            let configuration = StubLaunchSettings(arguments: arguments, environment: environment)
            stubsRequested = !configuration.isEmpty
            if let problem = configuration.problems.first { throw .invalidLaunchSetting(problem) }
            // As activation does: a replayed recording sees the time it was recorded at.
            let locator = BundleLocator(explicitFolder: nil, environment: environment)
            now = configuration.now ?? configuration.templates.compactMap(locator.folder(for:)).compactMap(RecordingPlan.recordedAt(of:)).last
            seed = configuration.seed
            webSocketRoute = WebSocketRoute(server: configuration.webSocketServer, killSwitch: configuration.killSwitch)
        }
    }

    /// Overrides given in code, for an app's own unit tests of the code that reads them.
    public init(featureFlags: LaunchFlags = [:], automationFlags: LaunchFlags = [:], now: Date? = nil, seed: UInt64? = nil,
                stubsRequested: Bool = false) {
        self.stubsRequested = stubsRequested
        self.featureFlags = featureFlags
        self.automationFlags = automationFlags
        self.now = now
        self.seed = seed
    }

    /// The date the app should treat as "now": the activation's engine's time (fixed by `STUB_NOW`, the
    /// recording, or at runtime by the test runner's `AppControl.setNow`), else ``now`` when fixed,
    /// else the real clock.
    public func date() -> Date {
        if let engine { return engine.now }
        return now ?? Date()
    }

    /// The URL to open a WebSocket to `url` with, under test: no URL protocol can answer a WebSocket
    /// in-process (on Apple platforms or Linux), so the test runner starts the local stub server
    /// (`stubkit serve`), names it in the launch (`AppLaunchConfiguration.webSocketServer`, or
    /// `STUB_WEBSOCKET_SERVER=http://127.0.0.1:PORT`), and the app opens its sockets through this:
    ///
    /// ```swift
    /// let task = session.webSocketTask(with: launch.webSocketURL(for: URL(string: "wss://chat.example.com/orders/1/chat")!))
    /// ```
    ///
    /// The server must be loopback (127.0.0.1, ::1, localhost) unless the app's environment has
    /// `STUB_WEBSOCKET_SERVER_ALLOW_REMOTE=1`, and is honoured only in a launch that asks for templates,
    /// the kill switch or recording.
    ///
    /// - Returns: `ws://127.0.0.1:PORT/chat.example.com/orders/1/chat` when a server is named (the
    ///   server's rules for `chat.example.com` answer it); with the kill switch on and no server, or when
    ///   `url` cannot be rebuilt on the server, the constant `ws://stubkit-refused.invalid/`: a host that
    ///   never resolves and nothing of `url` (no user, host, path or query), so the socket fails rather
    ///   than reach the real host; in a production launch, `url` unchanged.
    public func webSocketURL(for url: URL) -> URL {
        webSocketRoute.url(for: url)
    }

    /// A generator seeded with ``seed``, or `nil` when the launch sets none (use the system's then).
    public func makeRandomNumberGenerator() -> (some RandomNumberGenerator & Sendable)? {
        seed.map(SeededRandomNumberGenerator.init(seed:))
    }
}
