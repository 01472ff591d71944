import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// A configuration turned into launch arguments for a child app and read back there is the same
/// configuration: no record setting is lost on the way.
struct RecordSettingsRoundTripTests {
    static var full: StubLaunchSettings {
        var configuration = StubLaunchSettings(templates: ["base", "extra"], killSwitch: false, seed: 7)
        var recording = RecordingLaunchSettings(template: "session")
        recording.path = "/tmp/record here"
        recording.mode = .all
        recording.ignored = [.body(["user", "email"]), .query("ts"), .header("X-Request-ID")]
        recording.redact = ["order_ref", "X-Trace"]
        recording.keep = ["page_token"]
        recording.prettyJSON = true
        recording.hosts = ["api.example.com", "*.cdn.example.com"]
        configuration.recording = recording
        return configuration
    }

    @Test("every record setting survives launchArguments → StubLaunchSettings(arguments:)")
    func lossless() {
        let configuration = Self.full
        let back = StubLaunchSettings(arguments: ["app"] + configuration.launchArguments, environment: [:])
        #expect(back.problems.isEmpty, "\(back.problems)")
        #expect(back.recording == configuration.recording)
        #expect(back == configuration)
    }

    @Test("defaults stay out of the arguments: a plain STUB_RECORD round-trips as itself")
    func defaultsRoundTrip() {
        var configuration = StubLaunchSettings()
        configuration.recording = RecordingLaunchSettings(template: "t")
        let back = StubLaunchSettings(arguments: ["app"] + configuration.launchArguments, environment: [:])
        #expect(back.recording == configuration.recording)
        #expect(!configuration.launchArguments.contains { $0.hasPrefix(RecordingLaunchSettings.prettyKey) || $0.hasPrefix(RecordingLaunchSettings.hostsKey) })
    }

    @Test("STUB_RECORD_HOSTS is read from arguments and environment")
    func hostsParsed() {
        let configuration = StubLaunchSettings(arguments: ["app", "STUB_RECORD=t"], environment: ["STUB_RECORD_HOSTS": "api.example.com, *.example.org"])
        #expect(configuration.recording?.hosts == ["api.example.com", "*.example.org"])
        #expect(configuration.recording?.configuration(folder: URL(fileURLWithPath: "/tmp")).hosts == ["api.example.com", "*.example.org"])
    }
}
