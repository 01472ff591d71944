import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit

/// An engine built from bundle folders, serving a session, the way an integration test of the app
/// (or a benchmark harness) sets one up without launch arguments.
public final class StubbedNetworking {
    public let engine: StubEngine
    public let session: URLSession

    /// Activates the bundles in order (later ones layer over earlier ones) and makes a session from them.
    public init(bundles: [URL], now: Date? = nil, killSwitch: Bool = true) throws(StubKitError) {
        engine = StubEngine(mode: .strict, killSwitch: killSwitch, now: now, seed: 42,
                            journalLimits: StubJournal.Limits(maximumEntries: 500, maximumBodySize: 64 << 10))
        for folder in bundles {
            let diagnostics = try engine.activate(folder: folder)
            if diagnostics.hasErrors { print(diagnostics.errors.map(\.description).joined(separator: "\n")) }
        }
        session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        _ = URLSessionConfiguration.stubbed(by: engine, keepingURLCache: true)
    }

    /// Makes the engine answer `URLSession.shared` and sessions made from `.default` or `.ephemeral` later.
    public func registerForWholeApp(sharedSessionOnly: Bool = false) {
        engine.register(covering: sharedSessionOnly ? .sharedSessionOnly : .sharedAndNewConfigurations)
    }

    /// Stops answering.
    public func unregister() {
        engine.unregister()
    }

    /// Fetches a URL through the stubbed session.
    public func get(_ url: URL) async throws -> (Data, Int) {
        let (data, response) = try await session.data(from: url)
        return (data, (response as? HTTPURLResponse)?.statusCode ?? 0)
    }

    /// A test's checks after driving the app: waits on events, then verifies, then writes the reports.
    public func verifyOrderFlow(reportsFolder: URL) async throws {
        let journal = engine.journal
        try await journal.waitForRequests(matching: RequestPredicate("POST", path: "/orders/{id}/pay"), count: 1, timeout: 5)
        try journal.waitForRequestsBlocking(matching: RequestPredicate("GET", path: "/menu"), timeout: 5)
        try await journal.expectNoRequests(matching: RequestPredicate(path: "/analytics/**"), within: 1)
        try journal.expectNoRequestsBlocking(matching: RequestPredicate(host: "tracker.invalid", answered: false), within: 0.1)
        do {
            try engine.verifyAllRulesUsed(in: "order_flow")
        } catch {
            print("unused rules: \(error.description)")
        }
        for entry in journal.entries(matching: .any) {
            let rule = entry.rule.map { "\($0.name) at \($0.location) (\($0.keyPath))" } ?? "no rule"
            let failure = entry.error.map { " failed \($0.code): \($0.description)" } ?? ""
            print("#\(entry.id) \(entry.startedAt) \(entry.request.method) \(entry.request.url) -> \(entry.status ?? 0) "
                  + "\(entry.bundle ?? "-") \(rule) in \(entry.duration)s\(failure); \(entry.summary)")
            _ = (entry.request.header("Authorization"), entry.request.queryValue("page"), entry.request.headers, entry.request.body)
            _ = (entry.responseHeaders, entry.responseBody, entry.responseBodySize, entry.responseBodyTruncated)
            _ = (entry.requestBodySize, entry.requestBodyTruncated, entry.passedThrough, entry.recorded, entry.recordedAs, entry.recordingFailure)
        }
        print("\(journal.entries.count) entries, \(journal.droppedEntryCount) dropped, limits \(journal.limits.maximumEntries)")
        try journal.writeHAR(to: reportsFolder.appendingPathComponent("journal.har"))
        _ = journal.harData()
        let report = JournalReport(engine: engine)
        try report.write(to: reportsFolder.appendingPathComponent("journal.html"))
        _ = report.html.count
        journal.clear()
    }

    /// Scenario and kill-switch controls a test uses between steps.
    public func resetBetweenTests() {
        print("checkout is \(engine.scenarioState("checkout")); kill switch \(engine.isKillSwitchOn); now \(engine.now)")
        engine.setKillSwitch(false)
        engine.resetState()
        engine.deactivate(template: "order_flow")
        engine.reset()
        _ = (engine.mode, engine.fixedNow, engine.seed, engine.recorder)
    }
}

/// A test catching what a failed wait says.
public func describe(_ error: VerificationError) -> String {
    error.errorDescription ?? error.description
}
