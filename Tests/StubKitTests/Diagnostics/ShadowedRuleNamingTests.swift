#if Tools
import Foundation
import Testing
import StubKit
import StubKitTestSupport

/// A shadowed or duplicate rule is named in its warning by its `name`, index and location, the same in
/// `stublint lint` and in what the engine hands back; an unnamed rule by index, what it matches and location.
struct ShadowedRuleNamingTests {
    static let rules = """
    [
      { "name": "menu", "method": "GET", "path": "/menu", "body": "new" },
      { "name": "menu (legacy)", "method": "GET", "path": "/menu", "query": { "v": "1" }, "body": "old" },
      { "method": "GET", "path": "/orders/{id}", "body": "a" },
      { "method": "GET", "path": "/orders/{id}", "body": "b" }
    ]
    """
    static let shadowed = "b/stubsRules.json:3:3: warning: [1]: rule 'menu (legacy)' [1] (b/stubsRules.json:3:3) can never match: it is shadowed by rule 'menu' [0] (b/stubsRules.json:2:3), which matches every request it would; move it before rule 'menu' [0], or give it a higher 'priority' [SK041]"
    static let shadowedNote = "b/stubsRules.json:2:3: note: [0]: rule 'menu' [0] matches first"
    static let duplicate = "b/stubsRules.json:5:3: warning: [3]: rule [3] GET /orders/{id} (b/stubsRules.json:5:3) has the same request conditions as rule [2] GET /orders/{id} (b/stubsRules.json:4:3), which always answers first; delete one, or give them different conditions [SK040]"

    @Test("stublint lint names both rules of a shadowed pair, and both of a duplicate pair")
    func stublint() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("b", ["stubsRules.json": Self.rules])
        let out = try ChildProcess.run("stublint", arguments: ["lint", "."], currentDirectory: folder.url)
        let lines = out.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains(Self.shadowed), "\(out.stdout)")
        #expect(lines.contains(Self.shadowedNote), "\(out.stdout)")
        #expect(lines.contains(Self.duplicate), "\(out.stdout)")
    }

    @Test("the engine's diagnostics name the rules the same way")
    func engine() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": Self.rules])
        let engine = StubEngine(loaderOptions: BundleLoader.Options(reportRuleOverlaps: true, displayBase: folder.url))
        let diagnostics = try engine.activate(folder: bundle)
        let lines = diagnostics.map(\.description)
        #expect(lines.contains(Self.shadowed), "\(lines)")
        #expect(lines.contains(Self.duplicate), "\(lines)")
        let warning = try #require(diagnostics.first { $0.code == .shadowedRule })
        #expect(warning.related?.message == "rule 'menu' [0] matches first")
    }
}
#endif
