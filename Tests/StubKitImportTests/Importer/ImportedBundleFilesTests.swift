#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// What an import leaves in the bundle folder: nothing but rules, response files and the notes, and
/// the same bytes each time for the same input.
@Suite("imported bundle files")
struct ImportedBundleFilesTests {
    /// A HAR file whose entries carry no `startedDateTime` (some exporters leave it out).
    func undatedHAR() throws -> Data {
        let dated = harDocument([
            ["request": ["method": "GET", "url": "https://api.test/a"], "response": ["status": 200, "content": ["size": 2, "mimeType": "application/json", "text": "{}"]]],
            ["request": ["method": "GET", "url": "https://api.test/b"], "response": ["status": 200, "content": ["size": 1, "mimeType": "text/plain", "text": "b"]]],
        ])
        var root = try #require(try JSONSerialization.jsonObject(with: dated) as? [String: Any])
        var log = try #require(root["log"] as? [String: Any])
        log["entries"] = try #require(log["entries"] as? [[String: Any]]).map { entry in
            var entry = entry
            entry["startedDateTime"] = nil
            return entry
        }
        root["log"] = log
        return try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys])
    }

    @Test("no .stubkit-pending file is left in an imported bundle")
    func noPendingFile() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("in.har", data: try undatedHAR())
        let bundle = folder.url.appendingPathComponent("bundle")
        _ = try importFiles([har], to: bundle)
        let names = try FileManager.default.contentsOfDirectory(atPath: bundle.path)
        #expect(!names.contains(BundleWriter.pendingFileName), "\(names.sorted())")
        #expect(names.filter { $0.hasPrefix(".") }.isEmpty, "\(names.sorted())")
    }

    @Test("undated input: no recordedAt, and importing it twice gives the same rules file")
    func undatedIsStable() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("in.har", data: try undatedHAR())
        let first = folder.url.appendingPathComponent("1/bundle"), second = folder.url.appendingPathComponent("2/bundle")
        _ = try importFiles([har], to: first)
        _ = try importFiles([har], to: second)
        let rules = try Data(contentsOf: first.appendingPathComponent("stubsRules.json"))
        #expect(!String(decoding: rules, as: UTF8.self).contains("recordedAt"))
        #expect(rules == (try Data(contentsOf: second.appendingPathComponent("stubsRules.json"))))
    }

    @Test("dated input keeps the earliest entry's time as recordedAt")
    func datedKeepsTime() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("in.har", data: harDocument([["request": ["method": "GET", "url": "https://api.test/a"], "response": ["status": 204]]]))
        let bundle = folder.url.appendingPathComponent("bundle")
        _ = try importFiles([har], to: bundle)
        let rules = String(decoding: try Data(contentsOf: bundle.appendingPathComponent("stubsRules.json")), as: UTF8.self)
        #expect(rules.contains(#""recordedAt": "2024-05-01T10:00:00Z""#), "\(rules)")
    }
}
#endif
