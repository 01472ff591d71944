import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Apple's `-KEY VALUE` launch arguments, template discovery, and template names that try to leave
/// the search folders.
struct LaunchArgumentTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var templates: [String]
        var killSwitch: Bool
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test("-KEY VALUE pairs are read as UserDefaults reads them", arguments: [
        Case(arguments: ["-STUB_KILL_NETWORK", "NO"], templates: [], killSwitch: false),
        Case(arguments: ["-STUB_KILL_NETWORK", "YES"], templates: [], killSwitch: true),
        Case(arguments: ["-STUB_KILL_NETWORK", "false"], templates: [], killSwitch: false),
        Case(arguments: ["-STUB_KILL_NETWORK", "1"], templates: [], killSwitch: true),
        Case(arguments: ["-STUB_KILL_NETWORK", "0", "-STUB_API_CALLS_base", "YES"], templates: ["base"], killSwitch: false),
        Case(arguments: ["-STUB_API_CALLS_base", "NO", "-STUB_API_CALLS_closed", "true"], templates: ["closed"], killSwitch: false),
        // A word that is no boolean is not a value: it stays an argument of its own.
        Case(arguments: ["-STUB_KILL_NETWORK", "GET", "STUB_API_CALLS_base"], templates: ["base"], killSwitch: true),
        // Without the dash, the next argument is never taken as a value.
        Case(arguments: ["STUB_KILL_NETWORK", "NO"], templates: [], killSwitch: true),
    ])
    func dashKeyValue(_ c: Case) {
        let configuration = StubLaunchSettings(arguments: ["/app"] + c.arguments, environment: [:])
        #expect(configuration.templates == c.templates)
        #expect(configuration.killSwitch == c.killSwitch)
        #expect(configuration.problems.isEmpty)
    }

    @Test("-STUB_SEED 42 and -STUB_NOW <date> take the next argument; a missing value is a problem")
    func dashSettings() {
        let configuration = StubLaunchSettings(arguments: ["/app", "-STUB_SEED", "42", "-STUB_NOW", "2024-05-01T19:30:00Z"], environment: [:])
        #expect(configuration.seed == 42)
        #expect(configuration.now == ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        let missing = StubLaunchSettings(arguments: ["/app", "-STUB_SEED"], environment: [:])
        #expect(missing.problems == ["launch argument -STUB_SEED: no value follows it"])
        // A flag after it is no value: the kill switch is still read.
        let followed = StubLaunchSettings(arguments: ["/app", "-STUB_SEED", "-STUB_KILL_NETWORK"], environment: [:])
        #expect(followed.killSwitch)
        #expect(followed.problems == ["launch argument -STUB_SEED: no value follows it"])
    }

    @Test("a folder without a rules file is no template: SwiftPM resource bundles are not offered or suggested")
    func discoverySkipsResourceBundles() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("StubKitDemo_StubKitDemo.bundle", ["Info.plist": "<plist/>", "logo.png": "png"])
        try folder.bundle("restaurants.bundle", ["stubsRules.json": #"[ { "path": "/x" } ]"#])
        try folder.bundle("orders", ["stubsRules.json": #"[ { "path": "/y" } ]"#])
        let locator = BundleLocator(searchFolders: [folder.url])
        #expect(locator.availableTemplates() == ["orders", "restaurants"])
        do {
            _ = try StubActivation.prepare(StubLaunchSettings(templates: ["StubKitDemo_StubKitDem"]), locator: locator)
            Issue.record("activated an unknown template")
        } catch {
            #expect(error.code == .unknownTemplate)
            #expect(!error.description.contains("StubKitDemo_StubKitDemo"))
        }
    }

    @Test("a template name cannot reach outside the search folders", arguments: ["../outside", "..", "a/../../outside", "/tmp"])
    func templateNameEscapes(_ name: String) throws {
        let root = try TemporaryFolder()
        try root.bundle("outside", ["stubsRules.json": #"[ { "path": "/x" } ]"#])
        try root.bundle("search/inside", ["stubsRules.json": #"[ { "path": "/x" } ]"#])
        let locator = BundleLocator(searchFolders: [root.url.appendingPathComponent("search")])
        #expect(locator.folder(for: name) == nil)
        let configuration = StubLaunchSettings(arguments: ["/app", "STUB_API_CALLS_" + name], environment: [:])
        do {
            _ = try StubActivation.prepare(configuration, locator: locator)
            Issue.record("activated \(name)")
        } catch {
            #expect(error.code == .invalidValue)
            #expect(error.description.contains("without '/'"))
        }
    }
}
