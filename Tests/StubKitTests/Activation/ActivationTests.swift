import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

struct ActivationTests {
    @Test("launch arguments name templates in order and turn on the kill switch")
    func arguments() {
        let c = StubLaunchSettings(arguments: ["/app", "STUB_API_CALLS_base", "-STUB_API_CALLS_closed", "YES", "STUB_KILL_NETWORK", "STUB_API_CALLS_base"], environment: [:])
        #expect(c.templates == ["base", "closed"])
        #expect(c.killSwitch)
    }

    @Test("environment variables work for processes without launch arguments; arguments layer over them")
    func environment() {
        let c = StubLaunchSettings(arguments: ["/app", "STUB_API_CALLS_scenario"],
                                    environment: ["STUB_API_CALLS": "base, extra", "STUB_API_CALLS_zeta": "1", "STUB_API_CALLS_alpha": "YES", "STUB_API_CALLS_off": "0", "STUB_KILL_NETWORK": "1"])
        #expect(c.templates == ["base", "extra", "alpha", "zeta", "scenario"])
        #expect(c.killSwitch)
        #expect(StubLaunchSettings(arguments: ["/app"], environment: ["STUB_KILL_NETWORK": "false"]).isEmpty)
    }

    @Test("a switch value that is neither on nor off stops activation with an error naming it", arguments: [
        (["/app", "STUB_API_CALLS_base"], ["STUB_KILL_NETWORK": "maybe"], "environment variable STUB_KILL_NETWORK=maybe"),
        (["/app", "STUB_KILL_NETWORK=yess"], [:], "launch argument STUB_KILL_NETWORK=yess"),
        (["/app"], ["STUB_API_CALLS_base": "sometimes"], "environment variable STUB_API_CALLS_base=sometimes"),
    ])
    func unreadableSwitch(arguments: [String], environment: [String: String], named: String) throws {
        let configuration = StubLaunchSettings(arguments: arguments, environment: environment)
        #expect(configuration.problems.contains { $0.hasPrefix(named) && $0.contains("not a switch value") }, "\(configuration.problems)")
        #expect(throws: (any Error).self) { try StubActivation.activate(arguments: arguments, environment: environment, register: false) }
    }

    @Test("switch values: on, off and their words, any case; an empty value is on")
    func switchValues() {
        for on in ["1", "YES", "true", "On", ""] {
            #expect(StubLaunchSettings(arguments: ["/app"], environment: ["STUB_KILL_NETWORK": on]).killSwitch, "\(on)")
        }
        for off in ["0", "no", "FALSE", "off"] {
            let c = StubLaunchSettings(arguments: ["/app"], environment: ["STUB_KILL_NETWORK": off])
            #expect(!c.killSwitch && c.problems.isEmpty, "\(off)")
        }
        #expect(StubLaunchSettings(arguments: ["/app", "STUB_KILL_NETWORK=off"], environment: ["STUB_KILL_NETWORK": "1"]).killSwitch == false)
    }

    @Test("a configuration turns into the launch arguments a UI test passes, and back")
    func launchArgumentsRoundTrip() {
        let configuration = StubLaunchSettings(templates: ["base", "closed"], killSwitch: true,
                                                now: ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"), seed: 9)
        #expect(configuration.launchArguments == ["STUB_API_CALLS_base", "STUB_API_CALLS_closed", "STUB_KILL_NETWORK", "STUB_NOW=2024-05-01T19:30:00Z", "STUB_SEED=9"])
        #expect(StubLaunchSettings(arguments: ["/app"] + configuration.launchArguments, environment: [:]) == configuration)
    }

    @Test("no STUB_ argument: activation does nothing, as in production")
    func nothingRequested() throws {
        #expect(try StubActivation.activate(arguments: ["/app", "--verbose"], environment: [:], register: false) == nil)
    }

    @Test("templates are found in the documented order of search folders")
    func searchOrder() throws {
        let first = try TemporaryFolder(), second = try TemporaryFolder(), cwd = try TemporaryFolder()
        try first.bundle("shared.bundle", ["stubsRules.json": #"[ { "name": "first", "path": "/x" } ]"#])
        try second.bundle("shared", ["stubsRules.json": #"[ { "name": "second", "path": "/x" } ]"#])
        try second.bundle("only_second", ["stubsRules.json": #"[ { "name": "only", "path": "/x" } ]"#])
        try cwd.bundle("StubBundles/local", ["stubsRules.json": #"[ { "name": "local", "path": "/x" } ]"#])
        let locator = BundleLocator(explicitFolder: first.url, environment: ["STUB_BUNDLES_PATH": second.url.path], currentDirectory: cwd.url, includeMainBundle: false)
        #expect(locator.folder(for: "shared")?.lastPathComponent == "shared.bundle")
        #expect(locator.folder(for: "only_second") != nil)
        #expect(locator.folder(for: "local") != nil)
        let activation = try StubActivation.prepare(StubLaunchSettings(templates: ["only_second", "shared"]), locator: locator)
        #expect(activation.engine.activeTemplates == ["only_second", "shared"])
        #expect(activation.engine.match(StubRequest(url: URL(string: "https://h/x")!))?.rule.name == "first")
    }

    @Test("an unknown template lists what exists and suggests the closest name")
    func unknownTemplate() throws {
        let locator = BundleLocator(searchFolders: [PackagePaths.stubBundles])
        do {
            _ = try StubActivation.prepare(StubLaunchSettings(templates: ["restaurant_closed"]), locator: locator)
            Issue.record("activated an unknown template")
        } catch {
            #expect(error.code == .unknownTemplate)
            #expect(error.description.contains("did you mean 'restaurants_closed'?"))
            #expect(error.description.contains("restaurants_base"))
        }
    }

    @Test("strict activation refuses a broken bundle and names the file, line and key")
    func strictActivationError() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("broken", ["stubsRules.json": "[\n  { \"path\": \"/a\", \"stauts\": 200 }\n]\n"])
        do {
            _ = try StubActivation.prepare(StubLaunchSettings(templates: ["broken"]), locator: BundleLocator(searchFolders: [folder.url]))
            Issue.record("activated a broken bundle")
        } catch {
            #expect(error.description.contains("broken/stubsRules.json:2:19: error: [0].stauts: unknown key 'stauts'; did you mean 'status'? [SK010]"))
        }
    }

    @Test("every example bundle in StubBundles loads without errors")
    func exampleBundlesAreSound() {
        let report = BundleLinter().lint(PackagePaths.stubBundles)
        #expect(report.bundles.count >= 4)
        #expect(report.diagnostics.filter { $0.severity != .note }.isEmpty, "\(report.diagnostics)")
    }
}
