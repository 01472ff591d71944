import Foundation
import Testing
import StubKit
import StubKitTesting

/// The runner's launch configuration and the app's bridge, in one process: the encoding, its errors,
/// and what a production launch sees.
struct LaunchFlagsTests {
    static let awkward: LaunchFlags = [
        "quotes": "say \"hi\", it's 'fine' \\ ok",
        "spaces and unicode": "  Grüß Gott — 🍕 寿司  ",
        "newline": "line 1\nline 2\ttab",
        "looksLikeJSON": "{\"version\":2}",
        "int": -42,
        "double": 2.5,
        "bool": false,
        "list": [1, "two", 3.25, true, ["nested"]],
        "dictionary": ["title": "Ünïcödé", "weights": [0.1, 7], "on": true],
        "empty": "",
    ]

    @Test("the runner's arguments are the STUB_… ones StubKit parses, then one JSON argument per flag kind")
    func launchArguments() throws {
        let now = try #require(ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        var config = AppLaunchConfiguration(templates: ["restaurants_base"], killSwitch: true, now: now, seed: 7,
                                            bundlePaths: ["/a", "/b"], liveJournalPath: "/tmp/live.jsonl",
                                            extraArguments: ["--app-option"], environment: ["LANG": "de_DE"])
        config = config.layering("restaurants_closed")
        config.featureFlags = ["newCheckout": true]
        config.automationFlags["simulateUserAlreadyLoggedIn"] = true
        #expect(config.launchArguments == [
            "STUB_API_CALLS_restaurants_base", "STUB_API_CALLS_restaurants_closed", "STUB_KILL_NETWORK",
            "STUB_NOW=2024-05-01T19:30:00Z", "STUB_SEED=7", "STUB_JOURNAL_LIVE=/tmp/live.jsonl",
            #"STUB_FEATURE_FLAGS={"flags":{"newCheckout":true},"version":1}"#,
            #"STUB_AUTOMATION_FLAGS={"flags":{"simulateUserAlreadyLoggedIn":true},"version":1}"#,
            "--app-option",
        ])
        #expect(config.launchEnvironment == ["STUB_BUNDLES_PATH": "/a:/b", "LANG": "de_DE"])
        // The app reads back exactly what the runner set.
        let parsed = LaunchConfiguration(arguments: ["/app"] + config.launchArguments, environment: config.launchEnvironment)
        #expect(parsed.templates == config.templates)
        #expect(parsed.killSwitch && parsed.now == now && parsed.seed == 7 && parsed.liveJournalPath == "/tmp/live.jsonl")
        #expect(parsed.problems.isEmpty)
    }

    @Test("record settings set by the runner are the ones the app reads")
    func recordSettings() {
        var recording = RecordSettings.recording("checkout", into: "/tmp/bundles", mode: .all)
        recording.redact = ["x-api-key", "password"]
        recording.keep = ["authorization"]
        recording.prettyJSON = true
        let config = AppLaunchConfiguration(recording: recording)
        let parsed = LaunchConfiguration(arguments: ["/app"] + config.launchArguments, environment: [:])
        #expect(parsed.recording == recording)
        #expect(parsed.problems.isEmpty)
    }

    @Test("awkward values survive the encoding, typed; a whole Double reads back through double(_:)")
    func roundTrip() throws {
        let decoded = try LaunchFlags(decoding: Self.awkward.encoded, source: "test")
        #expect(decoded == Self.awkward)
        #expect(decoded.string("spaces and unicode") == "  Grüß Gott — 🍕 寿司  ")
        #expect(decoded.int("int") == -42 && decoded.double("int") == -42)
        #expect(decoded.dictionary("dictionary")?["weights"] == [0.1, 7])
        let whole = try LaunchFlags(decoding: LaunchFlags(["ratio": .double(2)]).encoded, source: "test")
        #expect(whole.double("ratio") == 2)
        #expect(whole.bool("ratio") == nil)
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var environment: [String: String] = [:]
        var message: String
        var testDescription: String { message }
    }

    @Test("malformed flags fail with an error naming the argument or variable", arguments: [
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"a":tru}}"#], message: "launch argument STUB_FEATURE_FLAGS: not version-1 flags JSON"),
        Malformed(arguments: [#"STUB_AUTOMATION_FLAGS={"version":1,"flags":{"a":null}}"#], message: "launch argument STUB_AUTOMATION_FLAGS: not version-1 flags JSON"),
        Malformed(arguments: [#"STUB_AUTOMATION_FLAGS={"flags":{}}"#], message: "launch argument STUB_AUTOMATION_FLAGS: not version-1 flags JSON"),
        Malformed(arguments: ["-STUB_FEATURE_FLAGS", #"{"version":2,"flags":{}}"#], message: "launch argument STUB_FEATURE_FLAGS: flags encoding version 2; this StubKit reads version 1"),
        Malformed(arguments: [], environment: ["STUB_FEATURE_FLAGS": "newCheckout=YES"], message: "environment variable STUB_FEATURE_FLAGS: not version-1 flags JSON"),
    ])
    func malformed(_ c: Malformed) {
        do {
            _ = try LaunchBridge(arguments: ["/app"] + c.arguments, environment: c.environment)
            Issue.record("expected an error containing \(c.message)")
        } catch {
            #expect(error.description.contains(c.message), "\(error.description)")
        }
    }

    @Test("Apple's -NAME value form and environment variables carry flags too")
    func otherForms() throws {
        let encoded = LaunchFlags(["simulateUserAlreadyLoggedIn": true]).encoded
        let dashed = try LaunchBridge(arguments: ["/app", "-STUB_AUTOMATION_FLAGS", encoded], environment: [:])
        #expect(dashed.automationFlags.bool("simulateUserAlreadyLoggedIn") == true)
        let variable = try LaunchBridge(arguments: ["/app"], environment: ["STUB_FEATURE_FLAGS": encoded])
        #expect(variable.featureFlags.bool("simulateUserAlreadyLoggedIn") == true)
        #expect(variable.flags(.automation).isEmpty)
    }

    @Test("a production launch: no flags, no clock, no seed")
    func production() throws {
        let bridge = try LaunchBridge(arguments: ["/app", "--some-option"], environment: ["HOME": "/home/x"])
        #expect(!bridge.isTestLaunch)
        #expect(bridge.featureFlags.isEmpty && bridge.automationFlags.isEmpty)
        #expect(bridge.now == nil && bridge.seed == nil && bridge.makeRandomNumberGenerator() == nil)
        let before = Date()
        #expect(bridge.date() >= before)
    }

    @Test("STUB_SEED gives the app a repeatable generator")
    func seed() throws {
        let bridge = try LaunchBridge(arguments: ["/app", "STUB_SEED=42"], environment: [:])
        var first = try #require(bridge.makeRandomNumberGenerator())
        var second = try #require(bridge.makeRandomNumberGenerator())
        let a = (0..<5).map { _ in Int.random(in: 0..<1000, using: &first) }
        let b = (0..<5).map { _ in Int.random(in: 0..<1000, using: &second) }
        #expect(a == b)
    }
}
