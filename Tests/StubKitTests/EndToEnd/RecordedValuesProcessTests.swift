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

    @Test("a value recorded with the sign-up is read back at replay, and the replayed request matches the recording")
    func recordThenReplayInNewProcesses() throws {
        let backend = try RecordingServer()
        let folder = try TemporaryFolder()
        let base = backend.baseURL.absoluteString

        let record = AppLaunchConfiguration(recording: .recording("signup", into: folder.url.path))
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
}
