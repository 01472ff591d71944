#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// A legacy Just Eat-style bundle of `../shared/realworld/stubrules`.
struct LegacyBundle: CustomTestStringConvertible, Sendable {
    var name: String
    var testDescription: String { name }

    static var all: [LegacyBundle] {
        guard let root = PackagePaths.realworld?.appendingPathComponent("stubrules/michaelhayman+OHHTTPStubsExtensions/Example/OHHTTPStubsExtensions") else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { $0.hasSuffix(".bundle") }.sorted().map(LegacyBundle.init)
    }

    var url: URL {
        PackagePaths.realworld!.appendingPathComponent("stubrules/michaelhayman+OHHTTPStubsExtensions/Example/OHHTTPStubsExtensions/\(name)")
    }
}

@Suite("stubkit migrate")
struct MigrateTests {
    @Test("a legacy bundle becomes current keys, lints with no legacy note, and answers exactly as before",
          .enabled(if: RealWorldImportTests.enabled, "../shared/realworld is absent (CI requires it)"), arguments: LegacyBundle.all)
    func migratesInPlace(_ legacy: LegacyBundle) throws {
        let folder = try TemporaryFolder()
        let original = folder.url.appendingPathComponent("before/\(legacy.name)")
        let bundle = folder.url.appendingPathComponent("after/\(legacy.name)")
        for copy in [original, bundle] {
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: legacy.url, to: copy)
        }
        let run = try ChildProcess.run("stubkit", arguments: ["migrate", bundle.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("stubsRules.json").path))
        #expect(FileManager.default.fileExists(atPath: folder.url.appendingPathComponent("after/\(legacy.name).pre-migrate/stubRules.plist").path), "the backup keeps the original")
        let lint = BundleLinter().lint(bundle)
        #expect(lint.diagnostics.isEmpty, "\(lint.diagnostics)")

        // The same requests, before and after, through the stand-in app.
        let rules = BundleLoader().load(folder: original).bundle.rules
        try #require(!rules.isEmpty)
        var requests: [String] = []
        for rule in rules {
            let pattern = try #require(rule.request.urlPattern).pattern
            requests += [rule.request.methods?.sorted().first ?? "GET", try #require(RegexSample.url(matching: pattern))]
        }
        func answers(_ folder: URL) throws -> [[String: Any]] {
            let template = StubBundle.templateName(ofFolder: folder)
            let out = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_\(template)", "STUB_KILL_NETWORK"] + requests,
                                           environment: ["STUB_BUNDLES_PATH": folder.deletingLastPathComponent().path])
            return out.jsonLines.map { line in line.filter { $0.key != "headers" }.merging(["type": (line["headers"] as? [String: String])?["Content-Type"] ?? ""]) { $1 } }
        }
        let before = try answers(original), after = try answers(bundle)
        #expect(before.count == rules.count)
        #expect(before.allSatisfy { $0["error"] == nil && $0["status"] != nil }, "\(before)")
        #expect(NSArray(array: before).isEqual(to: after), "before: \(before)\nafter: \(after)")
    }

    @Test("a second migration refuses to overwrite the backup; --to leaves the original untouched")
    func refusesAndCopies() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("legacy", ["stubRules.plist": """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><array><dict>
              <key>matching_url</key><string>/menu$</string><key>status_code</key><string>201</string>
              <key>http_method</key><string>GET</string><key>inline_response</key><string>hi</string>
            </dict></array></plist>
            """])
        let copy = folder.url.appendingPathComponent("out/migrated")
        let run = try ChildProcess.run("stubkit", arguments: ["migrate", bundle.path, "--to", copy.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(FileManager.default.fileExists(atPath: bundle.appendingPathComponent("stubRules.plist").path))
        let rule = try #require(BundleLoader().load(folder: copy).bundle.rules.first)
        #expect(rule.response.status == 201)
        #expect(bodyData(of: rule.response) == Data("hi".utf8))

        #expect(try ChildProcess.run("stubkit", arguments: ["migrate", bundle.path]).status == 0)
        let again = try ChildProcess.run("stubkit", arguments: ["migrate", bundle.path])
        #expect(again.status == 2)
        #expect(again.stderr.contains(".pre-migrate: error: a backup from an earlier migration is in the way"), "\(again.stderr)")
    }
}
#endif
