import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Recording from launch settings in the stand-in app, as a UI test would run it: record, stop the
/// backend, replay; and an app killed in the middle of a recording.
struct RecordingProcessTests {
    @Test("stubdemo records with STUB_RECORD (mode once), prints the summary, then replays the same bytes with the backend gone")
    func recordOnceThenReplay() throws {
        let backend = try RecordingServer()
        let folder = try TemporaryFolder()
        let base = backend.baseURL.absoluteString
        func arguments(email: String) -> [String] {
            ["GET", "\(base)/restaurants", "GET", "\(base)/logo.png", "GET", "\(base)/counter", "GET", "\(base)/counter",
             "POST", "\(base)/signup", "--data", #"{"email":"\#(email)","name":"Ann"}"#, "--header", "Content-Type: application/json",
             "GET", "\(base)/me", "--header", "Authorization: Bearer sekret-bearer-789"]
        }
        let environment = ["STUB_RECORD": "demo", "STUB_RECORD_MODE": "once", "STUB_BUNDLES_PATH": folder.url.path,
                           "STUB_RECORD_IGNORE": "body.email,header.X-Request-ID"]
        let recording = try ChildProcess.run("stubdemo", arguments: arguments(email: "one@example.com"), environment: environment)
        #expect(recording.status == 0, "\(recording.stderr)")
        #expect(recording.stderr.contains("StubKit recording: recorded 6, replayed 0, redacted 0"), "\(recording.stderr)")
        backend.stop()

        let replay = try ChildProcess.run("stubdemo", arguments: arguments(email: "two@example.com"), environment: environment)
        #expect(replay.status == 0, "\(replay.stderr)")
        #expect(!replay.stderr.contains("StubKit recording"), "an existing bundle in once mode is replayed, not recorded")
        let (first, second) = (recording.jsonLines, replay.jsonLines)
        try #require(second.count == 6 && first.count == 6, "\(recording.stderr) \(replay.stderr)")
        for (a, b) in zip(first, second) {
            #expect(b["error"] == nil, "\(b)")
            #expect(b["status"] as? Int == a["status"] as? Int)
            #expect(b["body"] as? String == a["body"] as? String)
        }
        // Identical requests answered differently replay in recorded order (pairwise equal above), not
        // the first answer twice. Exactly two /counter requests reach the backend, answered 1 then 2: a
        // third would be a request sent twice (a retry, or a load started again) and must fail here,
        // saying what the backend saw and what the app printed.
        let counters = backend.server.requestLines.filter { $0.contains("/counter") }
        #expect(counters.count == 2, "the backend saw: \(backend.server.requestLines) over \(backend.server.connectionCount) connections; the app printed: \(recording.stderr)")
        #expect(first[2]["body"] as? String == #"{"count":1}"# && first[3]["body"] as? String == #"{"count":2}"#,
                "\(first[2]) \(first[3]); the backend saw: \(backend.server.requestLines); the app printed: \(recording.stderr)")
        let lint = BundleLoader(options: .lint).load(folder: folder.url.appendingPathComponent("demo"))
        #expect(lint.diagnostics.isEmpty, "\(lint.diagnostics.map(\.description))")
    }

    @Test("an app killed in the middle of a recording leaves a bundle that lints clean with everything finished so far")
    func killedMidRecording() throws {
        let backend = try RecordingServer()
        defer { backend.release.signal(); backend.stop() }
        let folder = try TemporaryFolder()
        let base = backend.baseURL.absoluteString
        let process = Process()
        process.executableURL = ChildProcess.executable("stubdemo")
        process.arguments = ["GET", "\(base)/restaurants", "GET", "\(base)/hello.txt", "GET", "\(base)/block"]
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STUB_") }
        environment["STUB_RECORD"] = "interrupted"
        environment["STUB_BUNDLES_PATH"] = folder.url.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The third request is on the wire: the first two have completed (and were written before the app heard so).
        #expect(backend.blocked.wait(timeout: .now() + 60) == .success)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        let result = BundleLoader(options: .lint).load(folder: folder.url.appendingPathComponent("interrupted"))
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        #expect(result.bundle.rules.map(\.displayName) == ["GET /restaurants", "GET /hello.txt"])
    }

    @Test("on Linux an upload task is refused while recording rather than sent to the backend without its body")
    func uploadTaskWhileRecording() throws {
        let backend = try RecordingServer()
        defer { backend.stop() }
        let folder = try TemporaryFolder()
        let out = try ChildProcess.run("stubdemo", arguments: ["--session", "custom", "--task", "upload", "POST", "\(backend.baseURL.absoluteString)/signup", "--data", #"{"email":"a@b.c"}"#],
                                       environment: ["STUB_RECORD": "up", "STUB_BUNDLES_PATH": folder.url.path])
        #if canImport(FoundationNetworking)
        let error = out.jsonLines.first?["error"] as? [String: Any]
        #expect((error?["description"] as? String)?.contains("cannot record this upload task") == true, "\(out.stdout)")
        #expect(backend.server.connectionCount == 0)
        #else
        #expect(out.jsonLines.first?["status"] as? Int == 201)
        #endif
    }

    @Test("on Linux a download task is refused while recording with an error that says why, counted as failed in the summary",
          arguments: ["download", "async-download"])
    func downloadTaskWhileRecording(_ kind: String) throws {
        let backend = try RecordingServer()
        defer { backend.stop() }
        let folder = try TemporaryFolder()
        let out = try ChildProcess.run("stubdemo", arguments: ["--session", "custom", "--task", kind, "GET", "\(backend.baseURL.absoluteString)/hello.txt"],
                                       environment: ["STUB_RECORD": "down", "STUB_BUNDLES_PATH": folder.url.path])
        #if canImport(FoundationNetworking)
        let error = out.jsonLines.first?["error"] as? [String: Any]
        #expect((error?["description"] as? String)?.contains("cannot record download tasks on Linux") == true, "\(out.stdout)")
        #expect(out.stderr.contains("failed 1"), "\(out.stderr)")
        #expect(backend.server.connectionCount == 0)
        #else
        #expect(out.jsonLines.first?["status"] as? Int == 200)
        #endif
    }

    @Test("a recording folder that cannot be written stops activation with an error naming the path")
    func unwritableFolder() throws {
        let folder = try TemporaryFolder()
        let file = try folder.file("not-a-folder", data: Data("x".utf8))
        let target = file.appendingPathComponent("bundles").path
        let configuration = StubLaunchSettings(arguments: ["app", "STUB_RECORD=rec", "STUB_RECORD_PATH=\(target)"], environment: [:])
        #expect(throws: StubKitError.self) {
            try StubActivation.prepare(configuration, locator: BundleLocator(searchFolders: []))
        }
        do {
            _ = try StubActivation.prepare(configuration, locator: BundleLocator(searchFolders: []))
        } catch {
            #expect(error.description.contains(target + "/rec"), "\(error.description)")
            #expect(error.description.contains("STUB_RECORD=rec"))
        }
    }

    @Test("a replayed recording sees its recordedAt as STUB_NOW unless STUB_NOW is given")
    func recordedAtIsNow() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("rec", ["stubsRules.json": #"{ "recordedAt": "2024-05-01T19:30:00Z", "rules": [ { "path": "/x", "body": "{{now}}", "template": true } ] }"#])
        let locator = BundleLocator(searchFolders: [folder.url])
        let replay = try StubActivation.prepare(StubLaunchSettings(arguments: ["app", "STUB_API_CALLS_rec"], environment: [:]), locator: locator)
        #expect(replay.engine.fixedNow == ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        let given = try StubActivation.prepare(StubLaunchSettings(arguments: ["app", "STUB_API_CALLS_rec", "STUB_NOW=2030-01-01T00:00:00Z"], environment: [:]), locator: locator)
        #expect(given.engine.fixedNow == ISO8601DateFormatter().date(from: "2030-01-01T00:00:00Z"))
    }

    struct RedactionCase: Sendable, CustomTestStringConvertible {
        var name: String
        var redact: [String] = []
        var keep: [String] = []
        var secret: Bool
        var testDescription: String { "\(name)\(redact.isEmpty ? "" : " +\(redact)")\(keep.isEmpty ? "" : " -\(keep)") → \(secret)" }
    }

    static let redactionCases: [RedactionCase] = [
        RedactionCase(name: "Authorization", secret: true), RedactionCase(name: "set-cookie", secret: true),
        RedactionCase(name: "Proxy-Authorization", secret: true), RedactionCase(name: "access_token", secret: true),
        RedactionCase(name: "refreshToken", secret: true), RedactionCase(name: "X-Api-Key", secret: true),
        RedactionCase(name: "client_secret", secret: true), RedactionCase(name: "password", secret: true),
        RedactionCase(name: "email", secret: false), RedactionCase(name: "Content-Type", secret: false),
        RedactionCase(name: "session_id", redact: ["session-id"], secret: true),
        RedactionCase(name: "page_token", keep: ["page_token"], secret: false),
    ]

    @Test("which names are redacted by default, with additions and opt-outs", arguments: redactionCases)
    func redaction(_ c: RedactionCase) {
        #expect(Redactor(redact: c.redact, keep: c.keep).isSecret(c.name) == c.secret)
    }

    struct SettingsCase: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var environment: [String: String]
        var expected: RecordingLaunchSettings?
        var problem: String?
        var testDescription: String { (arguments.dropFirst() + environment.map { "\($0)=\($1)" }).joined(separator: " ") }
    }

    static let settingsCases: [SettingsCase] = {
        var ignore = RecordingLaunchSettings(template: "t")
        ignore.ignored = [.body(["user", "email"]), .query("ts"), .header("X-Request-ID")]
        var all = RecordingLaunchSettings(template: "t")
        all.mode = .all
        all.path = "/tmp/b"
        var redact = RecordingLaunchSettings(template: "t")
        redact.redact = ["session_id"]
        redact.keep = ["token"]
        return [
            SettingsCase(arguments: ["app"], environment: [:], expected: nil),
            SettingsCase(arguments: ["app", "STUB_RECORD=t"], environment: [:], expected: RecordingLaunchSettings(template: "t")),
            SettingsCase(arguments: ["app", "-STUB_RECORD", "t", "-STUB_RECORD_MODE", "all"], environment: ["STUB_RECORD_PATH": "/tmp/b"], expected: all),
            SettingsCase(arguments: ["app"], environment: ["STUB_RECORD": "t", "STUB_RECORD_IGNORE": "body.user.email, query.ts,header.X-Request-ID"], expected: ignore),
            SettingsCase(arguments: ["app", "STUB_RECORD=t", "STUB_RECORD_REDACT=session_id", "STUB_RECORD_KEEP=token"], environment: [:], expected: redact),
            SettingsCase(arguments: ["app", "STUB_RECORD=t", "STUB_RECORD_MODE=sometimes"], environment: [:], expected: RecordingLaunchSettings(template: "t"),
                         problem: "launch argument STUB_RECORD_MODE=sometimes: expected one of missing, all, once"),
            SettingsCase(arguments: ["app", "STUB_RECORD=t", "STUB_RECORD_IGNORE=email"], environment: [:], expected: RecordingLaunchSettings(template: "t"),
                         problem: "launch argument STUB_RECORD_IGNORE: 'email' is not body.<field>[.<field>…], query.<name> or header.<name>"),
        ]
    }()

    @Test("record settings from launch arguments and environment", arguments: settingsCases)
    func settings(_ c: SettingsCase) {
        let configuration = StubLaunchSettings(arguments: c.arguments, environment: c.environment)
        #expect(configuration.recording == c.expected)
        #expect(configuration.problems == (c.problem.map { [$0] } ?? []))
    }
}
