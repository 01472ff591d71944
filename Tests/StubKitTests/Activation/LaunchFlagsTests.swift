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
        #expect(try config.launchArguments == [
            "STUB_API_CALLS_restaurants_base", "STUB_API_CALLS_restaurants_closed", "STUB_KILL_NETWORK",
            "STUB_NOW=2024-05-01T19:30:00Z", "STUB_SEED=7", "STUB_JOURNAL_LIVE=/tmp/live.jsonl",
            #"STUB_FEATURE_FLAGS={"flags":{"newCheckout":true},"version":1}"#,
            #"STUB_AUTOMATION_FLAGS={"flags":{"simulateUserAlreadyLoggedIn":true},"version":1}"#,
            "--app-option",
        ])
        #expect(config.launchEnvironment == ["STUB_BUNDLES_PATH": "/a:/b", "LANG": "de_DE"])
        // The app reads back exactly what the runner set.
        let parsed = StubLaunchSettings(arguments: ["/app"] + (try config.launchArguments), environment: config.launchEnvironment)
        #expect(parsed.templates == config.templates)
        #expect(parsed.killSwitch && parsed.now == now && parsed.seed == 7 && parsed.liveJournalPath == "/tmp/live.jsonl")
        #expect(parsed.problems.isEmpty)
    }

    @Test("record settings set by the runner are the ones the app reads")
    func recordSettings() throws {
        var recording = RecordingLaunchSettings.recording("checkout", into: "/tmp/bundles", mode: .all)
        recording.redact = ["x-api-key", "password"]
        recording.keep = ["authorization"]
        recording.prettyJSON = true
        let config = AppLaunchConfiguration(recording: recording)
        let parsed = StubLaunchSettings(arguments: ["/app"] + (try config.launchArguments), environment: [:])
        #expect(parsed.recording == recording)
        #expect(parsed.problems.isEmpty)
    }

    @Test("awkward values survive the encoding, typed; a whole Double reads back through double(_:)")
    func roundTrip() throws {
        let decoded = try LaunchFlags(decoding: Self.awkward.encoded(), source: "test")
        #expect(decoded == Self.awkward)
        #expect(decoded.string("spaces and unicode") == "  Grüß Gott — 🍕 寿司  ")
        #expect(decoded.int("int") == -42 && decoded.double("int") == -42)
        #expect(decoded.dictionary("dictionary")?["weights"] == [0.1, 7])
        let whole = try LaunchFlags(decoding: LaunchFlags(["ratio": .double(2)]).encoded(), source: "test")
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
        // The reason names the value's place and what is wrong with it, not a generic "not valid JSON".
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"n":1e400}}"#], message: "(at flags.n: 1e400 is out of the range of a Double)"),
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"list":[1,-1e999]}}"#], message: "(at flags.list[1]: -1e999 is out of the range of a Double)"),
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1.5,"flags":{}}"#], message: "(at version: the version is a whole number such as 1, got 1.5)"),
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"a":null}}"#], message: "(at flags.a: null is not a value; leave the flag out instead)"),
        // A dot inside a key is quoted, so the path cannot be read as two levels.
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"a.b":{"c":null}}}"#], message: #"(at flags["a.b"].c: null is not a value"#),
        Malformed(arguments: [#"STUB_FEATURE_FLAGS={"version":1,"flags":{"a":{"b":{"c":null}}}}"#], message: "(at flags.a.b.c: null is not a value"),
    ])
    func malformed(_ c: Malformed) {
        do {
            _ = try LaunchOverrides(arguments: ["/app"] + c.arguments, environment: c.environment)
            Issue.record("expected an error containing \(c.message)")
        } catch {
            #expect(error.description.contains(c.message), "\(error.description)")
        }
    }

    @Test("a NaN or infinite flag value is an error naming the flag, not a crash in the runner", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(_ value: Double) {
        var config = AppLaunchConfiguration(templates: ["restaurants_base"])
        config.featureFlags = ["banner": ["weights": [1, .double(value)]]]
        do {
            let arguments = try config.launchArguments
            Issue.record("launchArguments accepted \(value): \(arguments)")
        } catch {
            #expect(error.description.contains("STUB_FEATURE_FLAGS: flags.banner.weights[1]: \(value) cannot be passed to the app: JSON has no NaN or infinity"), "\(error.description)")
        }
        do {
            _ = try LaunchFlags(["a.b": .double(value)]).encoded()
            Issue.record("encoded() accepted \(value)")
        } catch {
            #expect(error.description.contains(#"flags["a.b"]: "# + "\(value) cannot be passed"), "\(error.description)")
        }
    }

    @Test("Apple's -NAME value form and environment variables carry flags too")
    func otherForms() throws {
        let encoded = try LaunchFlags(["simulateUserAlreadyLoggedIn": true]).encoded()
        let dashed = try LaunchOverrides(arguments: ["/app", "-STUB_AUTOMATION_FLAGS", encoded], environment: [:])
        #expect(dashed.automationFlags.bool("simulateUserAlreadyLoggedIn") == true)
        let variable = try LaunchOverrides(arguments: ["/app"], environment: ["STUB_FEATURE_FLAGS": encoded])
        #expect(variable.featureFlags.bool("simulateUserAlreadyLoggedIn") == true)
        #expect(variable.flags(.automation).isEmpty)
    }

    @Test("a production launch: no flags, no clock, no seed")
    func production() throws {
        let bridge = try LaunchOverrides(arguments: ["/app", "--some-option"], environment: ["HOME": "/home/x"])
        #expect(!bridge.isTestLaunch)
        #expect(bridge.featureFlags.isEmpty && bridge.automationFlags.isEmpty)
        #expect(bridge.now == nil && bridge.seed == nil && bridge.makeRandomNumberGenerator() == nil)
        let before = Date()
        let date = bridge.date()
        #expect(date >= before && date <= Date())
    }

    @Test("a launch that only activates stubs or the kill switch is a test launch")
    func stubsOnly() throws {
        #expect(try LaunchOverrides(arguments: ["/app", "STUB_API_CALLS_base"], environment: [:]).isTestLaunch)
        #expect(try LaunchOverrides(arguments: ["/app"], environment: ["STUB_KILL_NETWORK": "1"]).isTestLaunch)
        #expect(try !LaunchOverrides(arguments: ["/app"], environment: ["STUB_KILL_NETWORK": "0"]).isTestLaunch)
    }

    @Test("STUB_NOW is the date the app sees")
    func fixedNow() throws {
        let bridge = try LaunchOverrides(arguments: ["/app", "STUB_NOW=2024-05-01T19:30:00Z"], environment: [:])
        #expect(bridge.isTestLaunch)
        #expect(bridge.date() == ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
    }

    @Test("the app's date follows the engine's clock after launch (runtime control's setNow), until set by hand")
    func nowFollowsEngine() throws {
        let activation = try StubActivation.prepare(StubLaunchSettings(arguments: ["/app", "STUB_NOW=2024-05-01T19:30:00Z"], environment: [:]),
                                                    locator: BundleLocator(explicitFolder: nil, environment: [:], includeMainBundle: false))
        var launch = try LaunchOverrides(arguments: ["/app", "STUB_NOW=2024-05-01T19:30:00Z"], environment: [:], activation: activation)
        #expect(launch.date() == ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        let later = try #require(ISO8601DateFormatter().date(from: "2030-01-02T03:04:05Z"))
        activation.engine.setNow(later)
        #expect(launch.date() == later)
        activation.engine.setNow(nil)
        #expect(abs(launch.date().timeIntervalSinceNow) < 3600)
        let byHand = Date(timeIntervalSince1970: 0)
        launch.now = byHand
        #expect(launch.date() == byHand)
    }

    @Test("STUB_SEED gives the app a repeatable generator")
    func seed() throws {
        let bridge = try LaunchOverrides(arguments: ["/app", "STUB_SEED=42"], environment: [:])
        var first = try #require(bridge.makeRandomNumberGenerator())
        var second = try #require(bridge.makeRandomNumberGenerator())
        let a = (0..<5).map { _ in Int.random(in: 0..<1000, using: &first) }
        let b = (0..<5).map { _ in Int.random(in: 0..<1000, using: &second) }
        #expect(a == b)
        // SplitMix64's first outputs for seed 42 (computed by an independent implementation): a
        // generator that ignored the seed, or another algorithm, would differ on every platform.
        var generator = try #require(bridge.makeRandomNumberGenerator())
        #expect((0..<3).map { _ in generator.next() } == [0xBDD7_3226_2FEB_6E95, 0x28EF_E333_B266_F103, 0x4752_6757_130F_9F52])
        var other = try #require(LaunchOverrides(arguments: ["/app", "STUB_SEED=43"], environment: [:]).makeRandomNumberGenerator())
        #expect(other.next() != 0xBDD7_3226_2FEB_6E95)
    }
}
