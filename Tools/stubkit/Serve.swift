#if Tools
import ArgumentParser
import Foundation
import StubKit
import StubKitServer

/// `stubkit serve`: the local stub server on the command line (README, "Local server").
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve bundles over HTTP to other processes: stubs, the admin API, forwarding and recording.",
        discussion: """
        Prints "listening on http://HOST:PORT" once connections are accepted. A request path may start with a host \
        (/api.example.com/v1/menu stands for https://api.example.com/v1/menu). SIGINT or SIGTERM shuts down gracefully. \
        With --openapi, each request (and with --validate responses or both, each answer) is checked against the \
        OpenAPI document; findings go to stderr and into the journal (HAR: _stubkit.contract). \
        Exit status: 0 after a shutdown, 2 for bad arguments, a template or spec that does not load, or an address that cannot be bound.
        """
    )

    @Argument(help: "The folder holding the bundles (one folder per template).")
    var bundles: String

    @Option(name: .customLong("template"), help: "A template to activate; repeat to layer them (later ones win).")
    var templates: [String] = []

    // Unconditional: `--port -1` is a value to refuse with a reason, not a missing value and a flag.
    @Option(parsing: .unconditional, help: "The port; 0 lets the system choose a free one.")
    var port = 0

    @Option(name: .customLong("port-file"), help: "Write the chosen port to this file once listening.")
    var portFile: String?

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Flag(name: .customLong("kill-network"), help: "Answer requests no rule answers with 502 and the near-miss report (the default).")
    var killNetwork = false

    @Flag(help: "Send requests no rule answers to the real host (HTTPS) and relay the answer.")
    var forward = false

    @Option(help: "Record forwarded exchanges into this template (in the bundles folder); implies --forward.")
    var record: String?

    @Option(name: .customLong("record-mode"), help: "missing (default), all or once, as STUB_RECORD_MODE.")
    var recordMode = "missing"

    @Flag(help: "Answer CORS preflights and allow any origin (for web pages on another origin).")
    var cors = false

    @Option(help: "The time templates see ({{now}}), ISO 8601 (e.g. 2026-01-01T12:00:00Z).")
    var now: String?

    @Option(help: "The seed of random delays.")
    var seed: UInt64 = 0

    @Option(name: .customLong("upstream-scheme"), help: "The scheme a host first in the path stands for: https (default) or http.")
    var upstreamScheme = "https"

    @Option(name: .customLong("upstream-ca"), help: ArgumentHelp("A PEM file of certificate authorities that wss:// relays (WebSockets with --forward/--record) trust besides the system's.", valueName: "file"))
    var upstreamCA: String?

    @Option(name: .customLong("extra-host"), help: "A host that may come first in a path besides the rules' hosts; repeatable.")
    var extraHosts: [String] = []

    @Option(name: .customLong("max-body"), help: "The largest request body accepted, in bytes (larger: 413).")
    var maxBody = 10 << 20

    @Option(name: .customLong("header-timeout"), help: "Seconds a connection may take to send a request head (slow clients are closed).")
    var headerTimeout: Double = 30

    @Option(name: .customLong("timed-out-hold"), help: "Seconds a simulated timedOut holds the connection without an answer.")
    var timedOutHold: Double = 60

    @Option(name: .customLong("shutdown-grace"), help: "Seconds answers in flight may take to finish at shutdown before they are cut off.")
    var shutdownGrace: Double = 10

    @Option(help: ArgumentHelp("Check each exchange against this OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON); findings are journalled and printed. With --record, the recorded responses that do not fit it are reported at the end of the run.", valueName: "spec"))
    var openapi: String?

    @Option(name: .customLong("validate"), help: "With --openapi: check requests (the default), responses (the stubs' and the backend's) or both.")
    var contractScope: ServeContract.Scope?

    @Flag(name: .customLong("reject-invalid-requests"), help: "With --openapi: answer a request that violates the spec 400 (application/problem+json) instead of the stubs.")
    var rejectInvalidRequests = false

    @Option(help: "Write the journal as HAR to this file at shutdown.")
    var har: String?

    @Option(help: "Write the HTML journal report to this file at shutdown.")
    var report: String?

    /// Checks the options together. A problem exits 2 (as the discussion says), not ArgumentParser's 64
    /// for validation errors, so scripts see one status for every bad argument of `serve`.
    func validate() throws {
        // Usage errors (64, with the usage): these options say nothing without the spec.
        if openapi == nil, contractScope != nil || rejectInvalidRequests {
            throw ValidationError("\(contractScope != nil ? "--validate" : "--reject-invalid-requests") needs --openapi SPEC, the OpenAPI document to check against")
        }
        if rejectInvalidRequests && contractScope == .responses {
            throw ValidationError("--reject-invalid-requests needs the requests checked: --validate requests or both, not responses")
        }
        if let problem = argumentProblem {
            printError(problem)
            throw ExitCode.badInput
        }
    }

    private var argumentProblem: String? {
        if killNetwork && (forward || record != nil) { return "--kill-network cannot be combined with --forward or --record" }
        if !(0...65535).contains(port) { return "--port \(port) is not a port number (0 to 65535)" }
        if maxBody < 0 { return "--max-body must not be negative" }
        if !(headerTimeout > 0) { return "--header-timeout \(headerTimeout) must be a positive number of seconds" }
        if !(shutdownGrace >= 0) { return "--shutdown-grace \(shutdownGrace) must not be negative" }
        if !(timedOutHold >= 0) { return "--timed-out-hold \(timedOutHold) must not be negative" }
        if let now, Self.date(now) == nil { return "--now '\(now)' is not an ISO 8601 date and time (2026-01-01T12:00:00Z)" }
        if !["http", "https"].contains(upstreamScheme) { return "--upstream-scheme '\(upstreamScheme)' is not http or https" }
        if RecorderConfiguration.Mode(rawValue: recordMode) == nil { return "--record-mode '\(recordMode)' is not one of missing, all, once" }
        return nil
    }

    func run() async throws {
        let folder = URL(fileURLWithPath: bundles, isDirectory: true)
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), isFolder.boolValue else {
            printError("\(bundles): no such folder")
            throw ExitCode.badInput
        }
        // Recording modes as in-process (STUB_RECORD_MODE): `once` replays an existing recording with
        // the network off; `missing` replays it and records what it lacks; `all` records everything anew.
        // Loaded once, before serving: a spec that cannot be read stops the run at once (exit 2).
        let spec = try openapi.map(ServeContract.load)
        var recorder: Recorder? = nil
        var replay: [String] = []
        var onMiss: StubServerConfiguration.MissPolicy = forward ? .forward : .refuse
        if let record {
            guard BundleLocator.isValidTemplateName(record) else {
                printError("--record '\(record)' is not a template name (letters, digits, '_' and '-')")
                throw ExitCode.badInput
            }
            let recording = RecorderConfiguration(template: record, folder: folder, mode: RecorderConfiguration.Mode(rawValue: recordMode)!)
            if recording.mode == .once && recording.bundleExists {
                replay = [record]
                onMiss = .refuse
                printError("--record-mode once: \(recording.bundleFolder.path) exists; replaying it with the network off")
            } else {
                if recording.mode == .missing && recording.bundleExists { replay = [record] }
                do {
                    recorder = try Recorder(configuration: recording)
                } catch {
                    printError("cannot record into \(recording.bundleFolder.path): \(error.reason)")
                    throw ExitCode.badInput
                }
                onMiss = .forward
            }
        }
        let driftSpec = record != nil ? spec : nil
        var configuration = StubServerConfiguration()
        if let spec {
            configuration.contractCheck = ServeContract.check(spec, scope: contractScope ?? .requests, rejectsInvalidRequests: rejectInvalidRequests)
        }
        configuration.host = host
        configuration.port = port
        configuration.onMiss = onMiss
        configuration.cors = cors
        configuration.extraHosts = extraHosts
        configuration.upstreamScheme = upstreamScheme
        configuration.upstreamCertificateAuthorities = upstreamCA
        configuration.maximumRequestBodySize = maxBody
        configuration.requestHeadTimeout = headerTimeout
        configuration.timedOutHold = timedOutHold
        configuration.shutdownGrace = shutdownGrace
        let engine = StubEngine(now: now.flatMap(Self.date), seed: seed, recorder: recorder)
        let server = StubServer(engine: engine, bundlesFolder: folder, configuration: configuration)
        for template in templates + replay.filter({ !templates.contains($0) }) {
            do {
                for diagnostic in try server.activate(template) { printError(diagnostic.description) }
            } catch {
                printError(error.description)
                throw ExitCode.badInput
            }
        }
        // Caught from now on: a SIGTERM right after the `listening on` line still shuts down gracefully.
        let signals = ShutdownSignals()
        let chosen: Int
        do {
            chosen = try await server.start()
        } catch {
            printError(error.description)
            throw ExitCode.badInput
        }
        if let portFile {
            do {
                try Data("\(chosen)\n".utf8).write(to: URL(fileURLWithPath: portFile), options: .atomic)
            } catch {
                printError("\(portFile): cannot be written: \(error.localizedDescription)")
                await server.shutdown()
                throw ExitCode.badInput
            }
        }
        // Written straight to the file descriptor: a parent reading a pipe sees the line at once.
        FileHandle.standardOutput.write(Data("listening on \(server.baseURL!.absoluteString)\n".utf8))
        await server.runUntilSignalled(signals)
        if let har { write(engine.journal.harData(), to: har) }
        if let report { write(Data(JournalReport(engine: engine).html.utf8), to: report) }
        if let recorder { print(recorder.summary.description) }
        if let recorder, let driftSpec { reportDrift(of: recorder, against: driftSpec) }
        print("stopped")
    }

    private func write(_ data: Data, to path: String) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            printError("\(path): cannot be written: \(error.localizedDescription)")
        }
    }

    static func date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
#endif
