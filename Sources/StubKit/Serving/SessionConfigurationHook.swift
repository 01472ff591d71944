#if canImport(ObjectiveC)
import Foundation
import ObjectiveC

/// Apple platforms only: puts ``StubURLProtocol`` first in every configuration made from
/// `URLSessionConfiguration.default` or `.ephemeral` while an engine is registered with
/// ``StubEngine/SessionCoverage/sharedAndNewConfigurations`` (the default).
///
/// `URLProtocol.registerClass` reaches `URLSession.shared` only; most SDKs (Alamofire, Firebase, …)
/// make their own sessions from these two configurations, and would bypass the stubs and the kill
/// switch. OHHTTPStubs covers them the same way: it replaces the two class getters. The getters are
/// replaced once, on the first registration, and from then on ask ``ConfigurationCoverage/isCovering``
/// each time, so unregistering (or registering with ``StubEngine/SessionCoverage/sharedSessionOnly``)
/// turns it off. Sessions made before registration keep the configuration they were made with.
/// Background sessions, `WKWebView` and `AVPlayer` never pass through a `URLProtocol`. When the swap
/// happens, and who waits for it, is ``ConfigurationCoverage``'s (shared, tested on every platform).
enum SessionConfigurationHook {
    static let coverage = ConfigurationCoverage {
        for name in ["defaultSessionConfiguration", "ephemeralSessionConfiguration"] {
            replaceGetter(NSSelectorFromString(name))
        }
    }

    private static func replaceGetter(_ selector: Selector) {
        guard let method = class_getClassMethod(URLSessionConfiguration.self, selector) else { return }
        typealias Getter = @convention(c) (AnyClass, Selector) -> URLSessionConfiguration
        let original = unsafeBitCast(method_getImplementation(method), to: Getter.self)
        // A block IMP receives the receiver first and no selector.
        let replacement: @convention(block) (AnyClass) -> URLSessionConfiguration = { receiver in
            let configuration = original(receiver, selector)
            if coverage.isCovering { StubURLProtocol.prepend(to: configuration) }
            return configuration
        }
        method_setImplementation(method, imp_implementationWithBlock(replacement))
    }
}
#endif
