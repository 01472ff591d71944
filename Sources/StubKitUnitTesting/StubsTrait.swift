#if canImport(Testing)
import Foundation
import StubKit
import Testing

/// Gives a test (or each test of a suite) stubs of its own: an engine loaded with templates, torn down
/// after the test. Add it with ``Testing/Trait/stubs(_:killSwitch:now:seed:lenient:bundlesFolder:bundle:reportsMisses:)``.
///
/// The test body reaches the stubs as ``TestStubs/current``. On a suite the trait is recursive: each
/// test, and each case of a parameterized test, gets an engine of its own, so they run in parallel
/// without `.serialized`. A request the kill switch refused is recorded as an issue of the test, naming
/// the request and the closest rules, once the body has returned (unless `reportsMisses` is false). A
/// template that cannot be found or loaded, or an engine that cannot get sessions of its own (more than
/// 256 tests with stubs at once), fails the test with StubKit's error, and the body does not run.
public struct StubsTrait: TestTrait, SuiteTrait, TestScoping {
    /// The templates to activate, bottom layer first.
    public var templates: [String]
    /// Whether requests no rule answers fail (and are reported) instead of reaching the network.
    public var killSwitch: Bool
    /// The time templates see; `nil` for the real clock.
    public var now: Date?
    /// The seed of random delays.
    public var seed: UInt64
    /// Whether a bundle with errors is served in part instead of failing the test.
    public var lenient: Bool
    /// A folder searched first for templates.
    public var bundlesFolder: URL?
    /// A resource folder searched next (a test target's `Bundle.module`).
    public var resources: URL?
    /// Whether each request the kill switch refused is recorded as an issue of the test.
    public var reportsMisses: Bool
    /// The table the engine takes its slot in (tests of this package use a small one).
    package var slots: Locked<EngineSlots> = StubURLProtocol.slots

    /// Each test of a suite gets its own stubs.
    public var isRecursive: Bool { true }

    /// Runs the test with its own ``TestStubs`` as ``TestStubs/current``, then reports the kill switch's
    /// misses (unless ``reportsMisses`` is false).
    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let stubs = try TestStubs(templates: templates, killSwitch: killSwitch, now: now, seed: seed, lenient: lenient,
                                  bundlesFolder: bundlesFolder, resources: resources, slots: slots)
        defer {
            if reportsMisses {
                for miss in stubs.misses { Issue.record(Comment(rawValue: miss), sourceLocation: test.sourceLocation) }
            }
            stubs.finish()
        }
        try await TestStubs.$current.withValue(stubs) {
            try await function()
        }
    }
}

extension Trait where Self == StubsTrait {
    /// Stubs of the test's own: `templates` loaded into an engine that answers ``TestStubs/current``'s session.
    ///
    /// ```swift
    /// @Test(.stubs("restaurants_base", killSwitch: true))
    /// func listsRestaurants() async throws {
    ///     let client = APIClient(configuration: TestStubs.current!.configuration)
    ///     #expect(try await client.restaurants().count == 3)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - templates: the templates to activate, bottom layer first, found as `StubActivation` finds them
    ///     (`bundlesFolder`, then `bundle`'s resources and their `StubBundles` folder, `STUB_BUNDLES_PATH`,
    ///     the main bundle, `./StubBundles`).
    ///   - killSwitch: fail every request no rule answers, and record each as an issue of the test
    ///     (see `reportsMisses`).
    ///   - now: the time templates see; `nil` for the real clock.
    ///   - seed: the seed of random delays.
    ///   - lenient: serve the sound rules of a bundle with errors instead of failing the test.
    ///   - bundlesFolder: a folder to search first.
    ///   - bundle: a bundle whose resources hold templates, such as a test target's `Bundle.module`.
    ///   - reportsMisses: record each request the kill switch refused as an issue of the test, once the
    ///     body has returned. Pass `false` for a test that expects misses, and check
    ///     ``TestStubs/misses`` in the body instead (an issue recorded after the body cannot be caught
    ///     by `withKnownIssue`).
    public static func stubs(_ templates: String..., killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0,
                             lenient: Bool = false, bundlesFolder: URL? = nil, bundle: Bundle? = nil,
                             reportsMisses: Bool = true) -> Self {
        StubsTrait(templates: templates, killSwitch: killSwitch, now: now, seed: seed, lenient: lenient,
                   bundlesFolder: bundlesFolder, resources: bundle?.resourceURL, reportsMisses: reportsMisses)
    }
}
#endif
