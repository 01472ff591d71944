#if Tools
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import StubKit

/// The test runner's remote control, under `/__stubkit/` (docs: LocalServer.md): templates on and
/// off, state reset, the kill switch, the journal as HAR and HTML, and waits that return as soon as
/// the requests arrive (long polls), so a test in any language waits on the event, never sleeps.
///
/// Answers are JSON (`application/json`) except the HAR and the HTML report; a bad parameter is a
/// `400` naming it.
final class AdminAPI: Sendable {
    static let prefix = "/__stubkit/"

    let engine: StubEngine
    /// Where templates are looked up by name.
    let locator: BundleLocator
    let maximumWait: TimeInterval
    /// Serializes activation changes (load, then swap), so two admin calls cannot interleave.
    private let activation = NIOLock()

    init(engine: StubEngine, bundlesFolder: URL?, maximumWait: TimeInterval) {
        self.engine = engine
        self.locator = BundleLocator(searchFolders: bundlesFolder.map { [$0] } ?? [])
        self.maximumWait = maximumWait
    }

    struct Failure: Error {
        var status: Int
        var message: String
    }

    // MARK: Templates

    /// Loads and activates a template on top of the active ones.
    @discardableResult
    func activate(_ template: String) throws(Failure) -> [Diagnostic] {
        guard BundleLocator.isValidTemplateName(template), let folder = locator.folder(for: template) else {
            let known = locator.availableTemplates()
            let suggestion = Suggestion.closest(to: template, in: known).map { "; did you mean '\($0)'?" } ?? ""
            throw Failure(status: 404, message: "no template '\(template)' in \(locator.searchFolders.map(\.path).joined(separator: ", "))\(suggestion) (available: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        activation.lock()
        defer { activation.unlock() }
        let (bundle, diagnostics): (StubBundle, [Diagnostic])
        do {
            (bundle, diagnostics) = try engine.load(folder: folder)
        } catch {
            throw Failure(status: 422, message: "template '\(template)' has errors: \(error)")
        }
        // Activated again (a test's set-up each time): loaded afresh and moved on top, never stacked twice.
        engine.activateOrReload(bundle)
        return diagnostics
    }

    /// Deactivates a template, keeping the others in their order. Scenarios and sequences restart.
    func deactivate(_ template: String) throws(Failure) {
        activation.lock()
        defer { activation.unlock() }
        let bundles = engine.activeBundles
        guard bundles.contains(where: { $0.template == template }) else {
            throw Failure(status: 404, message: "template '\(template)' is not active (active: \(bundles.map(\.template).joined(separator: ", ")))")
        }
        engine.deactivate(template: template)
    }

    // MARK: Handling

    func handle(_ request: ReceivedRequest, on connection: ConnectionHandler, dispatcher: RequestDispatcher) {
        let (path, query) = HostRouter.split(request.head.uri)
        let parameters = Self.parameters(query)
        let route = String(path.dropFirst(Self.prefix.count))
        let method = request.head.method
        // A page on another origin may drive the server too (`--cors`).
        let cors = dispatcher.configuration.cors ? dispatcher.corsHeaders(for: request) : []
        var result: Result<Reply, Failure>
        switch (method, route) {
        case (.GET, "status"), (.GET, ""):
            result = .success(.json(status()))
        case (.POST, _) where route.hasPrefix("templates/"), (.PUT, _) where route.hasPrefix("templates/"):
            let name = String(route.dropFirst("templates/".count))
            result = Result { () throws(Failure) -> Reply in
                let diagnostics = try activate(name)
                dispatcher.refreshRouting()
                return .json(["activated": name, "active": engine.activeTemplates, "diagnostics": diagnostics.map(\.description)])
            }
        case (.DELETE, _) where route.hasPrefix("templates/"):
            let name = String(route.dropFirst("templates/".count))
            result = Result { () throws(Failure) -> Reply in
                try deactivate(name)
                dispatcher.refreshRouting()
                return .json(["deactivated": name, "active": engine.activeTemplates])
            }
        case (.POST, "reset"):
            engine.resetState()
            engine.journal.clear()
            result = .success(.json(["reset": true]))
        case (.PUT, "kill-switch"), (.POST, "kill-switch"):
            result = Result { () throws(Failure) -> Reply in
                let on = try Self.bool(parameters, "on")
                engine.setKillSwitch(on)
                return .json(["killSwitch": on])
            }
        case (.GET, "journal.har"):
            result = .success(.data(engine.journal.harData(), "application/json"))
        case (.GET, "report.html"):
            result = .success(.data(Data(JournalReport(engine: engine).html.utf8), "text/html; charset=utf-8"))
        case (.GET, "wait"), (.GET, "absent"):
            do {
                let predicate = try Self.predicate(parameters)
                let period = try Self.seconds(parameters, route == "wait" ? "timeout" : "within", limit: maximumWait)
                let count = route == "wait" ? try Self.count(parameters) : 0
                wait(route == "wait", predicate: predicate, count: count, period: period, on: connection, extra: cors)
            } catch {
                connection.send(reply: .failure(error), head: request.isHead, extra: cors)
            }
            return
        default:
            result = .failure(Failure(status: 404, message: "no admin endpoint \(method.rawValue) \(path); see LocalServer.md in the documentation"))
        }
        connection.send(reply: result, head: request.isHead, extra: cors)
    }

    private func status() -> [String: Any] {
        ["active": engine.activeTemplates, "available": locator.availableTemplates(), "killSwitch": engine.isKillSwitchOn,
         "journalEntries": engine.journal.entries.count]
    }

    /// A long poll: answered when the journal has the requests (or has none for the whole period).
    private func wait(_ arriving: Bool, predicate: RequestPredicate, count: Int, period: TimeInterval, on connection: ConnectionHandler,
                      extra: [(String, String)]) {
        let loop = connection.eventLoop
        let bound = NIOLoopBound(connection, eventLoop: loop)
        let journal = engine.journal
        // Set on the loop when the shutdown answered the poll first; the wait's own answer is then dropped.
        let answered = NIOLockedValueBox(false)
        // A client that left before the answer: nothing to schedule later either (the loop may be gone by then).
        // The token lives as long as the wait (the Task holds it), so its identifier is not reused meanwhile.
        let token = WaitToken()
        let key = ObjectIdentifier(token)
        connection.onClose[key] = { answered.withLockedValue { $0 = true } }
        connection.answerAtShutdown = { [weak connection] in
            answered.withLockedValue { $0 = true }
            connection?.send(reply: .failure(Failure(status: 503, message: "the server is shutting down; the wait ended early")), head: false, extra: extra)
        }
        Task {
            let outcome: Result<Reply, Failure>
            do {
                if arriving {
                    try await journal.waitForRequests(matching: predicate, count: count, timeout: period)
                    outcome = .success(.json(["arrived": journal.entries(matching: predicate).count, "predicate": predicate.description]))
                } else {
                    try await journal.expectNoRequests(matching: predicate, within: period)
                    outcome = .success(.json(["arrived": 0, "predicate": predicate.description]))
                }
            } catch {
                outcome = .failure(Failure(status: arriving ? 408 : 409, message: "\(error)"))
            }
            withExtendedLifetime(token) {}
            // After a shutdown the loop may be gone: nothing is scheduled on it then.
            guard !answered.withLockedValue({ $0 }) else { return }
            loop.execute {
                guard !answered.withLockedValue({ $0 }), bound.value.isActive else { return }
                bound.value.answerAtShutdown = nil
                bound.value.onClose[key] = nil
                bound.value.send(reply: outcome, head: false, extra: extra)
            }
        }
    }
}

/// A unique key for one long poll's entry in its connection's close actions.
private final class WaitToken: Sendable {}
#endif
