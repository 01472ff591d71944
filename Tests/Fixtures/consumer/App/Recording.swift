import Foundation
import StubKit

/// Recording from code: what goes to the network is written into a bundle, then replayed.
public func makeRecordingEngine(into folder: URL) throws(RecordingError) -> StubEngine {
    let configuration = RecorderConfiguration(template: "checkout_session", folder: folder, mode: .missing,
                                              ignored: [.body(["email"]), .query("ts"), RecorderConfiguration.VolatileField(parsing: "header.X-Request-ID")!],
                                              redact: ["paymentToken"], keep: ["session"], prettyJSON: true, hosts: ["api.takeaway.test"])
    print("recording into \(configuration.bundleFolder.path), ignoring \(configuration.ignored.map(\.description))")
    let recorder = try Recorder(configuration: configuration)
    return StubEngine(killSwitch: false, recorder: recorder)
}

/// The summary a test prints when the recording run ends.
public func recordingSummary(of engine: StubEngine) -> String {
    guard let recorder = engine.recorder else { return "not recording" }
    let summary = recorder.summary
    return "\(summary.bundle): \(summary.recorded) recorded, \(summary.replayed) replayed, \(summary.redacted) redacted, "
        + "\(summary.failed) failed \(summary.problems); \(recorder.configuration.mode.rawValue); \(summary)"
}

/// What a recording error tells the caller.
public func describe(_ error: RecordingError) -> String {
    "\(error.path): \(error.reason) (\(error.localizedDescription))"
}
