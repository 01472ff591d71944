import Foundation
import StubKit
import StubKitTesting

/// What a UI-test author writes: the launch configuration handed to the app, and the app's live
/// journal read while it runs. (With XCUITest, `launchArguments` and `launchEnvironment` go to an
/// `XCUIApplication`; here they are returned, so this compiles on every platform.)
public struct CheckoutUITests {
    public init() {}

    /// The arguments and environment of a launch with two layered templates, the kill switch, a fixed
    /// clock and seed, flags, and a live journal.
    public func launchSettings(journalURL: URL) throws -> (arguments: [String], environment: [String: String]) {
        var config = AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true,
                                            now: ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"), seed: 42,
                                            bundlePaths: ["/tmp/StubBundles"], liveJournalPath: journalURL.path)
        config = config.layering("restaurants_closed")
        config.featureFlags = ["newCheckout": true, "banner": ["title": "Grüß \"dich\"", "weights": [1, 2.5]]]
        config.automationFlags = ["simulateUserAlreadyLoggedIn": true]
        config.extraArguments = ["-AppleLanguages", "(de)"]
        config.environment["API_BASE"] = "https://api.takeaway.test"
        config.killSwitch = true
        config.templates.append("restaurants_weekend")
        _ = (config.now, config.seed, config.liveJournalPath, config.bundlePaths)
        return (try config.launchArguments, config.launchEnvironment)
    }

    /// A launch that records the session into a bundle the first time, then replays it.
    public func recordingLaunch() throws -> [String] {
        var recording = RecordingLaunchSettings.recording("checkout", into: "/tmp/StubBundles", mode: .once,
                                                          ignoring: [.body(["email"])])
        recording.redact = ["paymentToken"]
        recording.hosts = ["api.takeaway.test"]
        recording.prettyJSON = true
        let config = AppLaunchConfiguration(recording: recording)
        _ = config.recording?.template
        return try config.launchArguments
    }

    /// Waits and checks on the app's live journal as the test taps through it.
    public func checkJournal(at journalURL: URL) async throws {
        let journal = try LiveJournal(url: journalURL)
        defer { journal.stop() }
        try await journal.waitForRequest(matching: RequestPredicate("GET", path: "/restaurants/*/menu"), timeout: 5)
        try journal.waitForRequestBlocking(matching: RequestPredicate("GET", path: "/restaurants"), count: 1, timeout: 5)
        try await journal.expectNoRequest(matching: RequestPredicate("DELETE", path: "/basket"), within: 0.5)
        try journal.expectNoRequestBlocking(matching: RequestPredicate("POST", path: "/orders"), within: 1)
        do {
            try journal.verifyAllRulesUsed(in: "restaurants_closed")
        } catch {
            print(error.description)   // the unused rules, by name and location
        }
        journal.refresh()
        for entry in journal.requests(matching: RequestPredicate(answered: true)) {
            print("\(entry.request.method) \(entry.request.url.path) -> \(entry.status ?? 0) by \(entry.rule?.name ?? "-")")
        }
        print("\(journal.entries.count) entries in \(journal.url.lastPathComponent); problems: \(journal.problems)")
    }

    #if os(macOS) || os(Linux)
    /// A command-line app driven step by step, as a UI test taps.
    public func driveCommandLineApp(_ executable: URL) async throws {
        let app = try AppUnderTest.launch(executable, with: AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true),
                                          arguments: ["--interactive"])
        defer { _ = app.terminate() }
        try app.send("GET https://api.takeaway.test/restaurants")
        try await app.journal.waitForRequest(matching: RequestPredicate("GET", path: "/restaurants"), timeout: 60)
        _ = (app.isRunning, app.processIdentifier, app.configuration.templates, app.nextOutputLine(timeout: 1), app.standardError)
        _ = app.finish(limit: 5)
    }
    #endif
}
