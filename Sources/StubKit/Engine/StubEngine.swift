import Foundation

/// Loads stub bundles, keeps the active set, and answers requests from it.
///
/// Thread-safe: the active bundles and their index form one immutable snapshot behind a lock;
/// a lookup takes the snapshot and matches without holding the lock, so concurrent requests never
/// wait for each other and always see a consistent set of bundles.
public final class StubEngine: Sendable {
    /// What to do with a bundle that has errors.
    public enum Mode: String, Sendable {
        /// Refuse to activate a bundle with any error (the default: a broken bundle fails loudly).
        case strict
        /// Activate the rules without errors, and hand back the diagnostics.
        case lenient
    }

    public let mode: Mode
    private let loader: BundleLoader
    private let state: Locked<Snapshot>

    /// The active bundles, their index and the kill switch, replaced as a whole on every change.
    struct Snapshot: Sendable {
        var bundles: [StubBundle] = []
        var index = RuleIndex(bundles: [])
        var killSwitch = false
    }

    public init(mode: Mode = .strict, killSwitch: Bool = false, loaderOptions: BundleLoader.Options = .engine) {
        self.mode = mode
        self.loader = BundleLoader(options: loaderOptions)
        self.state = Locked(Snapshot(killSwitch: killSwitch))
    }

    // MARK: Activation

    /// Loads the bundle in `folder` and puts it on top of the active ones.
    ///
    /// - Returns: every diagnostic found (notes and warnings included).
    /// - Throws: ``StubKitError`` in strict mode when the bundle has errors; nothing is activated then.
    @discardableResult
    public func activate(folder: URL) throws(StubKitError) -> [Diagnostic] {
        let result = loader.load(folder: folder)
        if mode == .strict && result.diagnostics.hasErrors {
            throw .bundleHasErrors(template: result.bundle.template, diagnostics: result.diagnostics)
        }
        if result.bundle.rulesFile == nil && result.diagnostics.hasErrors {
            throw .bundleHasErrors(template: result.bundle.template, diagnostics: result.diagnostics)
        }
        activate(result.bundle)
        return result.diagnostics
    }

    /// Puts an already loaded bundle on top of the active ones.
    public func activate(_ bundle: StubBundle) {
        state.withLock { snapshot in
            snapshot.bundles.append(bundle)
            snapshot.index = RuleIndex(bundles: snapshot.bundles)
        }
    }

    /// Deactivates every bundle. The kill switch keeps its setting.
    public func reset() {
        state.withLock { snapshot in
            snapshot.bundles = []
            snapshot.index = RuleIndex(bundles: [])
        }
    }

    /// When on, requests that no rule answers fail at once instead of reaching the network.
    public var isKillSwitchOn: Bool {
        get { state.withLock { $0.killSwitch } }
        set { state.withLock { $0.killSwitch = newValue } }
    }

    public func setKillSwitch(_ on: Bool) {
        state.withLock { $0.killSwitch = on }
    }

    /// Template names of the active bundles, in activation order.
    public var activeTemplates: [String] {
        state.withLock { $0.bundles.map(\.template) }
    }

    var snapshot: Snapshot {
        state.withLock { $0 }
    }

    // MARK: Answering

    /// The rule that answers a request, or `nil` when none does.
    public func match(_ request: StubRequest) -> StubMatch? {
        let index = state.withLock { $0.index }
        guard let (entry, parameters) = index.firstMatch(for: request) else { return nil }
        return StubMatch(rule: entry.rule, bundle: entry.bundle, parameters: parameters)
    }

    /// What the engine does with a request: answer it, refuse it (kill switch), or let it through.
    public func decision(for request: StubRequest) -> Decision {
        let (index, killSwitch) = state.withLock { ($0.index, $0.killSwitch) }
        if let (entry, parameters) = index.firstMatch(for: request) {
            return .answer(StubMatch(rule: entry.rule, bundle: entry.bundle, parameters: parameters))
        }
        let snapshot = self.snapshot
        if killSwitch {
            return .refuse(UnmatchedRequestReport(request: request, bundles: snapshot.bundles.map(\.template),
                                                  nearMisses: NearMiss.closest(to: request, in: snapshot.index)))
        }
        return .passThrough
    }

    public enum Decision: Sendable {
        case answer(StubMatch)
        case refuse(UnmatchedRequestReport)
        case passThrough
    }

    /// Whether the URL protocol should take the request at all.
    func handles(_ request: @autoclosure () -> StubRequest) -> Bool {
        let (index, killSwitch) = state.withLock { ($0.index, $0.killSwitch) }
        // With the kill switch on every request is ours, so the request need not even be built.
        return killSwitch || index.hasMatch(for: request())
    }
}

/// The rule that answers a request, the bundle it came from, and the path parameters it captured.
public struct StubMatch: Sendable {
    public var rule: StubRule
    public var bundle: String
    public var parameters: [String: String]
}
