import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// A configuration turned into launch arguments for a child app and read back there is the same
/// configuration: no record setting is lost on the way.
struct RecordSettingsRoundTripTests {
    static var full: LaunchConfiguration {
        var configuration = LaunchConfiguration(templates: ["base", "extra"], killSwitch: false, seed: 7)
        var recording = RecordSettings(template: "session")
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

    @Test("every record setting survives launchArguments → LaunchConfiguration(arguments:)")
    func lossless() {
        let configuration = Self.full
        let back = LaunchConfiguration(arguments: ["app"] + configuration.launchArguments, environment: [:])
        #expect(back.problems.isEmpty, "\(back.problems)")
        #expect(back.recording == configuration.recording)
        #expect(back == configuration)
    }

    @Test("defaults stay out of the arguments: a plain STUB_RECORD round-trips as itself")
    func defaultsRoundTrip() {
        var configuration = LaunchConfiguration()
        configuration.recording = RecordSettings(template: "t")
        let back = LaunchConfiguration(arguments: ["app"] + configuration.launchArguments, environment: [:])
        #expect(back.recording == configuration.recording)
        #expect(!configuration.launchArguments.contains { $0.hasPrefix(RecordSettings.prettyKey) || $0.hasPrefix(RecordSettings.hostsKey) })
    }

    @Test("STUB_RECORD_HOSTS is read from arguments and environment")
    func hostsParsed() {
        let configuration = LaunchConfiguration(arguments: ["app", "STUB_RECORD=t"], environment: ["STUB_RECORD_HOSTS": "api.example.com, *.example.org"])
        #expect(configuration.recording?.hosts == ["api.example.com", "*.example.org"])
        #expect(configuration.recording?.configuration(folder: URL(fileURLWithPath: "/tmp")).hosts == ["api.example.com", "*.example.org"])
    }
}
