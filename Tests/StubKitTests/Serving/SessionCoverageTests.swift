import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

/// Whether this platform can put StubKit into the default and ephemeral configurations (Apple's
/// Objective-C runtime); on Linux those tests are skipped, visibly, with the reason.
let appleRuntime: Bool = {
    #if canImport(ObjectiveC)
    return true
    #else
    return false
    #endif
}()

extension URLProtocolSuites {
/// Which sessions a registered engine reaches. The per-platform table in PlatformsAndLimits.md (StubKit.docc) states the same.
@Suite(.serialized)
struct SessionCoverageTests {
    @Test("Apple: once registered, new .default and .ephemeral configurations carry StubURLProtocol first; the opt-out and unregister() remove it",
          .enabled(if: appleRuntime, "needs the Objective-C runtime to replace the configuration getters: Apple platforms only"))
    func appleConfigurationsCovered() {
        let engine = StubEngine()
        engine.register()
        #expect(URLSessionConfiguration.default.protocolClasses?.first == StubURLProtocol.self)
        #expect(URLSessionConfiguration.ephemeral.protocolClasses?.first == StubURLProtocol.self)
        engine.register(covering: .sharedSessionOnly)
        #expect(URLSessionConfiguration.default.protocolClasses?.contains { $0 == StubURLProtocol.self } != true)
        engine.register()
        engine.unregister()
        #expect(URLSessionConfiguration.ephemeral.protocolClasses?.contains { $0 == StubURLProtocol.self } != true)
    }

    @Test("Linux: a registered engine does not reach sessions made from a configuration (use install(into:))",
          .enabled(if: !appleRuntime, "the Linux caveat; Apple platforms cover these sessions"))
    func linuxConfigurationsNotCovered() {
        let engine = StubEngine()
        engine.register()
        defer { engine.unregister() }
        #expect(URLSessionConfiguration.default.protocolClasses?.contains { $0 == StubURLProtocol.self } != true)
        let configuration = URLSessionConfiguration.stubbed(by: engine)
        #expect(configuration.protocolClasses?.first is StubURLProtocol.Type)
    }

    @Test("the forwarder's configuration drops StubURLProtocol, so a forwarded request cannot loop back")
    func forwarderIsNotIntercepted() {
        // What the ephemeral configuration looks like on Apple platforms while an engine is registered.
        let covered = URLSessionConfiguration.ephemeral
        StubURLProtocol.prepend(to: covered)
        let configuration = Forwarder.configuration(from: covered)
        #expect(configuration.protocolClasses?.contains { $0 == StubURLProtocol.self } == false)
        // Nor one an engine was installed into.
        StubEngine().install(into: covered)
        #expect(Forwarder.configuration(from: covered).protocolClasses?.contains { $0 is StubURLProtocol.Type } == false)
        #expect(configuration.httpCookieStorage == nil)
        #expect(Forwarder.shared.protocolClasses.contains { $0 == StubURLProtocol.self } == false)
    }

    @Test("a stubbed configuration asks no URL cache (stubs are never cached), and its base keeps its own")
    func stubbedConfigurationHasNoCache() {
        let engine = StubEngine()
        let base = URLSessionConfiguration.ephemeral
        let cache = base.urlCache
        let configuration = URLSessionConfiguration.stubbed(by: engine, base: base)
        #expect(configuration.urlCache == nil)
        #expect(configuration.protocolClasses?.first is StubURLProtocol.Type)
        #expect(base.urlCache === cache)
        #expect(URLSessionConfiguration.stubbed(by: engine, base: base, keepingURLCache: true).urlCache === cache)
        engine.unregister()
    }
}
}
