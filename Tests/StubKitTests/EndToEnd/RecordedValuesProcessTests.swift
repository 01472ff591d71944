import Foundation
import Testing
@testable import StubKit
import StubKitTesting
import StubKitTestSupport

/// The random e-mail problem across real processes: stubdemo records a sign-up whose body carries a
/// generated e-mail, then another stubdemo replays it with the network off, the runner typing the
/// e-mail it reads back.
struct RecordedValuesProcessTests {
    func signUp(_ email: String, at base: String) -> [String] {
        ["POST", "\(base)/signup", "--data", #"{"email":"\#(email)","name":"Ann"}"#, "--header", "Content-Type: application/json"]
    }

    // Mode all empties the bundle folder when the app starts recording; the value, made once before
    // the launch and never asked for again, must survive that.
    @Test("a value made before launching the app and recorded with the sign-up is read back at replay, and the replayed request matches the recording",
          arguments: [RecorderConfiguration.Mode.missing, .all])
    func recordThenReplayInNewProcesses(mode: RecorderConfiguration.Mode) throws {
        let backend = try RecordingServer()
        let folder = try TemporaryFolder()
        let base = backend.baseURL.absoluteString

        let record = AppLaunchConfiguration(recording: .recording("signup", into: folder.url.path, mode: mode))
        let recording = try RecordedValues(for: record)
        let email = try recording.recordedValue("email") { "user-\(UUID().uuidString.prefix(8).lowercased())@example.test" }
        let recorded = try ChildProcess.run("stubdemo", arguments: try record.launchArguments + signUp(email, at: base), environment: record.launchEnvironment)
        #expect(recorded.status == 0, "\(recorded.stderr)")
        #expect(recorded.stderr.contains("StubKit recording: recorded 1"), "\(recorded.stderr)")
        #expect(recorded.jsonLines.first?["status"] as? Int == 201, "\(recorded.stdout)")
        backend.stop()

        // A later run: the kill switch on, the backend gone, a new store made from the replay's configuration.
        let replay = AppLaunchConfiguration(templates: ["signup"], killSwitch: true, bundlePaths: [folder.url.path])
        let replayed = try RecordedValues(for: replay)
        let again = try replayed.recordedValue("email") { "user-\(UUID().uuidString.prefix(8).lowercased())@example.test" }
        #expect(again == email)
        let out = try ChildProcess.run("stubdemo", arguments: try replay.launchArguments + signUp(again, at: base), environment: replay.launchEnvironment)
        let line = try #require(out.jsonLines.first, "\(out.stdout) \(out.stderr)")
        #expect(line["error"] == nil && line["status"] as? Int == 201 && line["body"] as? String == #"{"created":true}"#, "\(line)")

        // The recording matches the e-mail exactly: a new random one, as a test without the store types, misses.
        let other = try ChildProcess.run("stubdemo", arguments: try replay.launchArguments + signUp("other@example.test", at: base), environment: replay.launchEnvironment)
        #expect(other.jsonLines.first?["error"] != nil, "\(other.stdout)")

        let lint = BundleLoader(options: .lint).load(folder: folder.url.appendingPathComponent("signup"))
        #expect(lint.diagnostics.isEmpty, "\(lint.diagnostics.map(\.description))")
    }

    @Test("two runner processes saving values into one bundle at once lose none of each other's names")
    func twoProcessesSaveAtOnce() async throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        async let first: Void = Self.saveInChildProcess(root: root, own: "a", other: "b")
        async let second: Void = Self.saveInChildProcess(root: root, own: "b", other: "a")
        _ = await (first, second)
        let onDisk = try RecordedValues(bundle: folder.url.appendingPathComponent("signup"), mode: .replay).values
        for prefix in ["a", "b"] {
            let count = try #require(Int(String(contentsOf: folder.url.appendingPathComponent("\(prefix).count"), encoding: .utf8)))
            let lost = (0..<count).map { "\(prefix)\($0)" }.filter { onDisk[$0] == nil }
            #expect(lost.isEmpty, "process \(prefix) saved \(count) names; the file lost \(lost.count): \(lost.prefix(5))")
        }
    }

    /// A child process (a parallel runner clone) saving one name per store, as one test each, in mode
    /// missing: it keeps on until it has saved 100 names after first seeing the other process's, so the
    /// two certainly save at the same time, then writes how many it saved.
    static func saveInChildProcess(root: String, own: String, other: String) async {
        await #expect(processExitsWith: .success) { [root, own, other] in
            let bundle = URL(fileURLWithPath: root).appendingPathComponent("signup")
            var saved = 0
            var sawOtherAt: Int?
            while sawOtherAt.map({ saved - $0 < 100 }) ?? true {
                guard saved < 1_000 else { exit(3) }   // the other process never saved anything (each save reads the whole file: keep this small)
                let store = try RecordedValues(bundle: bundle, mode: .recordMissing)
                if sawOtherAt == nil, store.values.keys.contains(where: { $0.hasPrefix(other) }) { sawOtherAt = saved }
                _ = try store.recordedValue("\(own)\(saved)") { "value" }
                saved += 1
            }
            try String(saved).write(to: URL(fileURLWithPath: root).appendingPathComponent("\(own).count"), atomically: true, encoding: .utf8)
        }
    }
}
