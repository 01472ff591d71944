import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubEngine {
    /// Makes this engine answer requests from `URLSession.shared` and from sessions made after this call
    /// with the default configuration (on Apple platforms).
    ///
    /// On Linux, `URLSession.shared` takes the registered protocols when it is first used, so call this
    /// before anything touches it; sessions made from a `URLSessionConfiguration` never consult the
    /// registered list there: use ``install(into:)`` for them.
    public func register() {
        StubURLProtocol.servingEngine.withLock { $0 = self }
        _ = URLProtocol.registerClass(StubURLProtocol.self)
    }

    /// Puts ``StubURLProtocol`` first in a configuration's protocol classes and makes this engine the
    /// one that answers. Works on every platform, for sessions created from the configuration afterwards.
    public func install(into configuration: URLSessionConfiguration) {
        StubURLProtocol.servingEngine.withLock { $0 = self }
        var classes = configuration.protocolClasses ?? []
        classes.removeAll { $0 == StubURLProtocol.self }
        classes.insert(StubURLProtocol.self, at: 0)
        configuration.protocolClasses = classes
    }

    /// Stops this engine from answering requests (if it is the one that does) and unregisters the protocol.
    public func unregister() {
        let wasServing = StubURLProtocol.servingEngine.withLock { current -> Bool in
            guard current === self else { return false }
            current = nil
            return true
        }
        if wasServing { URLProtocol.unregisterClass(StubURLProtocol.self) }
    }
}

extension URLSessionConfiguration {
    /// A copy of `.default` whose sessions are answered by `engine`: the one line for custom sessions.
    public static func stubbed(by engine: StubEngine, base: URLSessionConfiguration = .default) -> URLSessionConfiguration {
        let configuration = base.copy() as! URLSessionConfiguration
        engine.install(into: configuration)
        return configuration
    }
}
