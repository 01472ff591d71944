#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// A recorded '+' in a query value is what the client sent: the importer writes it in the explicit
/// `{"equals": …}` form, which matches it and gets no SK024 note (that note is for hand-written values).
struct PlusInQueryImportTests {
    static let cassette = """
        interactions:
        - request:
            body: null
            headers: {}
            method: GET
            uri: https://api.plus.test/search?q=pizza+margherita&tz=%2B01:00
          response:
            body: {string: '{"results": 3}'}
            headers:
              Content-Type: [application/json]
            status: {code: 200, message: OK}
        version: 1
        """

    @Test("an imported cassette with '+' and '%2B' in its query lints without SK024 and replays both forms as sent")
    func importedPlus() throws {
        let folder = try TemporaryFolder()
        let file = try folder.file("plus.yaml", data: Data(Self.cassette.utf8))
        let out = folder.url.appendingPathComponent("bundles")
        let imported = try ChildProcess.run("stubkit", arguments: ["import", file.path, "--to", out.path, "--template", "plus"])
        #expect(imported.status == 0, "\(imported.stdout) \(imported.stderr)")
        let rules = try String(contentsOf: out.appendingPathComponent("plus/stubsRules.json"), encoding: .utf8)
        #expect(rules.contains(#"{ "equals": "pizza+margherita" }"#), "\(rules)")
        let lint = try ChildProcess.run("stublint", arguments: ["lint", out.appendingPathComponent("plus").path])
        #expect(lint.status == 0 && !lint.stdout.contains("SK024"), "\(lint.stdout)")
        let replay = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_plus", "STUB_KILL_NETWORK",
                                                                  "GET", "https://api.plus.test/search?q=pizza+margherita&tz=%2B01:00",
                                                                  "GET", "https://api.plus.test/search?q=pizza%2Bmargherita&tz=%2B01:00"],
                                          environment: ["STUB_BUNDLES_PATH": out.path])
        let lines = replay.jsonLines
        #expect(lines.first?["status"] as? Int == 200, "\(replay.stdout) \(replay.stderr)")
        #expect(lines.last?["status"] == nil, "the escaped plus is another request: \(replay.stdout)")
    }
}
#endif
