import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubEngine {
    /// Which sessions ``register(covering:)`` reaches besides `URLSession.shared`.
    public enum SessionCoverage: Sendable {
        /// `URLSession.shared` only (what `URLProtocol.registerClass` reaches by itself).
        case sharedSessionOnly
        /// Also every session made afterwards from `URLSessionConfiguration.default` or `.ephemeral`,
        /// on Apple platforms (see <doc:PlatformsAndLimits>). Linux cannot do this: use ``install(into:)``.
        case sharedAndNewConfigurations
    }

    /// Makes this engine answer requests from `URLSession.shared` and, on Apple platforms, from
    /// sessions made afterwards with the default or ephemeral configuration.
    ///
    /// - `URLSession.shared` takes the registered protocols when it is first used (on Linux; on Apple
    ///   platforms too in practice), so call this before anything touches it.
    /// - On Apple platforms, with `.sharedAndNewConfigurations` (the default), StubKit puts itself first
    ///   in the protocol classes of every configuration made from `URLSessionConfiguration.default` or
    ///   `.ephemeral` while it is registered, as OHHTTPStubs does, so SDKs that make their own sessions
    ///   are stubbed and the kill switch holds for them. Sessions made before this call, background
    ///   sessions, `WKWebView` and `AVPlayer` are never reached.
    /// - On Linux, sessions made from a `URLSessionConfiguration` never consult the registered
    ///   protocols: use ``install(into:)`` or `URLSessionConfiguration.stubbed(by:)` for them.
    public func register(covering sessions: SessionCoverage = .sharedAndNewConfigurations) {
        StubURLProtocol.servingEngine.withLock { $0 = self }
        _ = URLProtocol.registerClass(StubURLProtocol.self)
        #if canImport(ObjectiveC)
        SessionConfigurationHook.coverage.setCovering(sessions == .sharedAndNewConfigurations)
        #endif
    }

    /// Makes this engine answer the sessions created from `configuration` afterwards, on every platform,
    /// whatever other engines answer other sessions or `URLSession.shared`.
    ///
    /// The configuration gets a protocol class of this engine's own, first in its protocol classes; every
    /// other StubKit protocol class is taken out, so a configuration copied from one the process-wide
    /// engine covers (on Apple platforms) is answered by this engine alone. It does not change which
    /// engine answers `URLSession.shared` (see ``register(covering:)``).
    ///
    /// A session must not outlive its engine: keep a reference to the engine for as long as the
    /// sessions send requests. Nothing the URL loading system hands StubKit says which session a request
    /// comes from, so the configuration names its engine through one of 256 slot classes, which the
    /// engine holds until it is deinitialized. Then the requests of its sessions fail with an error
    /// saying the engine was released, until a later engine takes the slot; from then on they are
    /// answered by that engine. A released slot is taken only after every never-used slot and every
    /// slot released before it, so in a test run this happens late, if ever.
    ///
    /// At most 256 engines installed this way can be alive at once; the sessions of a further one fail
    /// their requests, naming that limit (and a line goes to standard error).
    public func install(into configuration: URLSessionConfiguration) {
        StubURLProtocol.put(StubURLProtocol.protocolClass(for: self), firstIn: configuration)
    }

    /// Stops this engine from answering requests (if it is the one that does) and unregisters the protocol.
    public func unregister() {
        let wasServing = StubURLProtocol.servingEngine.withLock { current -> Bool in
            guard current === self else { return false }
            current = nil
            return true
        }
        guard wasServing else { return }
        URLProtocol.unregisterClass(StubURLProtocol.self)
        #if canImport(ObjectiveC)
        SessionConfigurationHook.coverage.setCovering(false)
        #endif
    }
}

extension StubURLProtocol {
    /// Puts the process-wide protocol first in a configuration's protocol classes, once.
    static func prepend(to configuration: URLSessionConfiguration) {
        put(StubURLProtocol.self, firstIn: configuration)
    }

    /// Puts `protocolClass` first in a configuration's protocol classes, and no other StubKit class:
    /// one engine answers a configuration's sessions.
    static func put(_ protocolClass: StubURLProtocol.Type, firstIn configuration: URLSessionConfiguration) {
        var classes = configuration.protocolClasses ?? []
        classes.removeAll { $0 is StubURLProtocol.Type }
        classes.insert(protocolClass, at: 0)
        configuration.protocolClasses = classes
    }
}

extension URLSessionConfiguration {
    /// A copy of `.default` whose sessions are answered by `engine`: the one line for custom sessions.
    ///
    /// Only `engine` answers them, whatever other engines exist; the sessions must not outlive it (see
    /// ``StubEngine/install(into:)``).
    ///
    /// It has no URL cache unless `keepingURLCache` is true. Stubbed answers are never stored in one
    /// (they are handed over with `.notAllowed`, as are forwarded ones), yet the cache would be asked
    /// before the stubs on every request: on Linux that lookup costs about as much as all of StubKit's own
    /// work per request (docs/benchmarks.md). Without it, requests no rule takes go to the network
    /// uncached, so a test run does not depend on what an earlier request fetched. Keep the base's cache
    /// when the code under test relies on it (a cache filled in advance, `.returnCacheDataDontLoad`).
    public static func stubbed(by engine: StubEngine, base: URLSessionConfiguration = .default,
                               keepingURLCache: Bool = false) -> URLSessionConfiguration {
        stubbed(answeredBy: StubURLProtocol.protocolClass(for: engine), base: base, keepingURLCache: keepingURLCache)
    }

    /// A copy of `base` whose sessions `protocolClass` answers (from `StubEngine.ownProtocolClass(in:)`),
    /// with no URL cache unless `keepingURLCache` is true.
    package static func stubbed(answeredBy protocolClass: StubURLProtocol.Type, base: URLSessionConfiguration,
                                keepingURLCache: Bool = false) -> URLSessionConfiguration {
        let configuration = base.copy() as! URLSessionConfiguration
        StubURLProtocol.put(protocolClass, firstIn: configuration)
        if !keepingURLCache { configuration.urlCache = nil }
        return configuration
    }
}
