import Foundation
import StubKit

/// Steers the stubs of an app while it runs: the test runner's side of runtime control.
///
/// The runner listens on 127.0.0.1 at a port the system picks; the app, launched with
/// ``launchEnvironment`` (through ``AppLaunchConfiguration/enableRuntimeControl(timeout:)``),
/// connects out when it calls `StubActivation.activate()` and proves with a 128-bit token that this
/// runner launched it. Each call returns once the app has applied the command, or throws
/// ``AppControlError`` with the app's diagnostics.
///
/// ```swift
/// var config = AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true)
/// let control = try config.enableRuntimeControl()
/// app.launchEnvironment = config.launchEnvironment     // XCUIApplication
/// app.launch()
/// try await control.activate("restaurants_closed")      // the next request sees the closed restaurants
/// ```
///
/// Calls honour task cancellation and fail after ``timeout`` seconds; they are `async`, so an XCTest
/// calls them from an `async` test method. Commands run in the order they were sent.
public final class AppControl: Sendable {
    /// How long each call waits for the app (to connect, then to answer) before it throws.
    public let timeout: TimeInterval
    let session: ControlSession

    /// Starts listening for the app on 127.0.0.1.
    ///
    /// - Parameter timeout: seconds each call waits for the app.
    /// - Throws: a socket error when no loopback port can be opened.
    public init(timeout: TimeInterval = 60) throws {
        self.timeout = timeout
        session = try ControlSession()
    }

    /// A control whose listener hands each accepted descriptor to `acceptHook` before settling its
    /// flags (tests play a BSD kernel there).
    package init(timeout: TimeInterval, acceptHook: @escaping @Sendable (Int32) -> Void) throws {
        self.timeout = timeout
        session = try ControlSession(acceptHook: acceptHook)
    }

    deinit {
        session.release("the runner's AppControl was released")
    }

    /// The variables that tell the app where to connect and how to prove who launched it; merge them
    /// into the app's launch environment (``AppLaunchConfiguration/enableRuntimeControl(timeout:)`` does).
    public var launchEnvironment: [String: String] { session.settings.launchEnvironment }

    /// The settings the launch environment carries.
    package var settings: ControlLaunchSettings { session.settings }

    // MARK: Commands

    /// Activates a template on top of the active ones; one already active is reloaded and moved on top.
    ///
    /// Like every change to the active templates (and the admin API's), this restarts every scenario
    /// and sequence, not only the template's: set scenario states after activating.
    ///
    /// - Throws: ``AppControlError`` for a template the app cannot find (with the closest name and the
    ///   templates available) or one with errors.
    public func activate(_ template: String) async throws {
        try await perform(.activate(template: template), label: "activate \(template)")
    }

    /// Deactivates an active template, keeping the others in their order; scenarios and sequences restart.
    public func deactivate(_ template: String) async throws {
        try await perform(.deactivate(template: template), label: "deactivate \(template)")
    }

    /// Adds one rule, written as bundle JSON (one object, as in a rules file's `rules` array), above
    /// every template; among added rules the latest comes first. Its response is written inline.
    ///
    /// - Returns: the id that ``removeRule(_:)`` takes (`rule-1`, …), also the rule's file in journals.
    /// - Throws: ``AppControlError`` listing the rule's errors, each at its line and column in `json`.
    @discardableResult
    public func addRule(_ json: String) async throws -> String {
        let reply = try await perform(.addRule(json: json), label: "addRule")
        return reply.ruleID ?? ""
    }

    /// Removes a rule added with ``addRule(_:)``.
    public func removeRule(_ id: String) async throws {
        try await perform(.removeRule(id: id), label: "removeRule \(id)")
    }

    /// Moves a scenario to a state, as a rule's `setState` would (scenarios start in `Started`).
    public func setScenario(_ scenario: String, state: String) async throws {
        try await perform(.setScenarioState(scenario: scenario, state: state), label: "setScenario \(scenario) \(state)")
    }

    /// Returns every scenario to `Started` and every sequence to its first response.
    public func resetState() async throws {
        try await perform(.resetState, label: "resetState")
    }

    /// Turns the kill switch on (requests no rule answers fail) or off (they reach the network).
    public func setKillSwitch(_ on: Bool) async throws {
        try await perform(.setKillSwitch(on), label: "setKillSwitch \(on)")
    }

    /// Fixes the time templates see (`{{now}}`), or with `nil` returns them to the real clock. The app's
    /// own `LaunchOverrides.date()` follows it too, when the app made its overrides with its activation
    /// (`LaunchOverrides.current(activation:)`); the `now` property keeps the launch's value.
    public func setNow(_ date: Date?) async throws {
        try await perform(.setNow(date), label: "setNow \(date.map { ISO8601DateFormatter().string(from: $0) } ?? "clock")")
    }

    /// Empties the app's journal. The live journal file gets a line that says so, and a
    /// ``LiveJournal`` reading it (``AppUnderTest/journal``) forgets the requests before it: once this
    /// returns, its entries, waits and ``LiveJournal/verifyAllRulesUsed(in:)`` count later requests only.
    public func clearJournal() async throws {
        try await perform(.clearJournal, label: "clearJournal")
    }

    @discardableResult
    private func perform(_ command: ControlCommand, label: String) async throws -> ControlReply {
        let reply = try await session.perform(command, label: label, timeout: timeout)
        guard reply.ok else {
            throw AppControlError(command: label, message: reply.error ?? "refused without a reason", diagnostics: reply.diagnostics)
        }
        return reply
    }

    /// Ends the session when the app's process has exited, so waiting and later calls fail at once
    /// with its exit status (``AppUnderTest`` calls this).
    package func appExited(status: Int32) {
        session.appExited("the app has exited (status \(status))")
    }

    /// A launch is starting: calls wait for the new app again instead of failing with the last exit.
    package func launching() {
        session.launching()
    }
}
