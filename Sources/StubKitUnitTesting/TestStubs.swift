import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// The stubs of one test: an engine of its own, loaded with the test's templates, and a session it answers.
///
/// Made by the `.stubs(…)` trait (reach it as ``current`` in the test body) or by
/// `XCTestCase.useStubs(…)`. Its engine answers only the sessions made from ``configuration`` or
/// ``session``, so tests that each have their own stubs run in parallel without seeing each other's
/// requests; `URLSession.shared` is not touched.
public final class TestStubs: Sendable {
    /// The stubs of the test running now, set by the `.stubs(…)` trait for the test's body.
    @TaskLocal public static var current: TestStubs?

    /// The engine serving the test's templates.
    public let engine: StubEngine
    /// Where each template was found, in activation order.
    public let folders: [URL]
    /// A session answered by ``engine`` (ephemeral, no URL cache); invalidated when the test ends.
    public let session: URLSession
    /// The protocol class that routes a configuration's requests to ``engine``.
    private let protocolClass: StubURLProtocol.Type

    /// Loads `templates` into a new engine, found as `StubActivation` finds them: `bundlesFolder`, then
    /// `resources` and its `StubBundles` folder, then each folder in `STUB_BUNDLES_PATH`, the main
    /// bundle's resources and `./StubBundles`.
    ///
    /// - Parameters:
    ///   - templates: the templates to activate, bottom layer first.
    ///   - killSwitch: fail every request no rule answers (reported as a test issue by the trait and by `useStubs`).
    ///   - now: the time templates see; `nil` for the real clock.
    ///   - seed: the seed of random delays.
    ///   - lenient: serve the sound rules of a bundle with errors instead of refusing it.
    ///   - bundlesFolder: a folder to search first.
    ///   - resources: a resource folder to search next, such as `Bundle.module.resourceURL`.
    /// - Throws: `StubKitError` for an unknown template (with the closest name) or a bundle with errors,
    ///   and when as many engines with sessions of their own are alive as StubKit can route (256: for
    ///   example a parameterized test with more cases, which Swift Testing runs at once).
    public convenience init(templates: [String], killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0, lenient: Bool = false,
                            bundlesFolder: URL? = nil, resources: URL? = nil) throws(StubKitError) {
        try self.init(templates: templates, killSwitch: killSwitch, now: now, seed: seed, lenient: lenient,
                      bundlesFolder: bundlesFolder, resources: resources, slots: StubURLProtocol.slots)
    }

    /// As the public initializer, taking the engine's slot in `slots` (tests use a small table of their own).
    package init(templates: [String], killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0, lenient: Bool = false,
                 bundlesFolder: URL? = nil, resources: URL? = nil, slots: Locked<EngineSlots>) throws(StubKitError) {
        var locator = BundleLocator(explicitFolder: bundlesFolder, environment: ProcessInfo.processInfo.environment)
        if let resources {
            let folders = [resources, resources.appendingPathComponent("StubBundles", isDirectory: true)].map(\.standardizedFileURL)
            locator.searchFolders.removeAll { folders.contains($0) }
            locator.searchFolders.insert(contentsOf: folders, at: bundlesFolder == nil ? 0 : 1)
        }
        let settings = StubLaunchSettings(templates: templates, killSwitch: killSwitch, now: now, seed: seed)
        let activation = try StubActivation.prepare(settings, locator: locator, mode: lenient ? .lenient : .strict)
        engine = activation.engine
        folders = activation.folders
        protocolClass = try engine.ownProtocolClass(in: slots)
        session = URLSession(configuration: .stubbed(answeredBy: protocolClass, base: .ephemeral))
    }

    /// The test's requests, as its engine journalled them.
    public var journal: StubJournal { engine.journal }

    /// A new configuration answered by ``engine``, for a session the code under test makes itself.
    public var configuration: URLSessionConfiguration { .stubbed(answeredBy: protocolClass, base: .ephemeral) }

    /// One line per request the kill switch refused: the request and the rules that nearly matched it.
    public var misses: [String] {
        journal.entries.compactMap(\.killSwitchMiss)
    }

    /// Ends the session; the engine goes when the last reference to these stubs does.
    func finish() {
        session.finishTasksAndInvalidate()
    }
}

extension JournalEntry {
    /// What a test reports for a request the kill switch refused, or `nil` for any other entry.
    var killSwitchMiss: String? {
        // The kill switch fails a request as offline; a rule's simulated error names its rule.
        guard rule == nil, !passedThrough, let error, error.code == URLError.notConnectedToInternet.rawValue else { return nil }
        var text = "StubKit: no stub answered \(request.method) \(request.url.absoluteString) and the kill switch refused it"
        text += nearMisses.isEmpty ? "; no rule is close" : "; closest rules:\n" + nearMisses.map { "  " + $0.description }.joined(separator: "\n")
        return text
    }
}
