import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Inputs that used to cost quadratic time or memory in the readers. Each bound is generous (debug
/// build, shared machine) yet far below what the quadratic code took, so a regression fails loudly.
struct ReaderCostTests {
    func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    @Test("1,000,000 \\n escapes in one JSON string parse in linear time (200,000 took 2 s, 800,000 took 17 s)")
    func manyEscapes() throws {
        let text = "[\"" + String(repeating: "\\n", count: 1_000_000) + "x\"]"
        var value: SourceValue?
        let elapsed = try seconds { value = try JSONSourceParser().parse(Data(text.utf8)) }
        #expect(value?.arrayValue?.first?.stringValue?.utf8.count == 1_000_001)
        #expect(elapsed < 3, "took \(elapsed) s")
    }

    @Test("a dictionary of 50,000 keys is checked for duplicates in linear time, and a late duplicate is still found")
    func manyKeys() throws {
        let n = 50_000
        let query = (0..<n).map { "\"q\($0)\": \"v\"" }.joined(separator: ", ")
        let rules = "[{\"path\": \"/a\", \"query\": {\(query), \"q7\": \"again\"}}]"
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": rules])
        var diagnostics: [Diagnostic] = []
        let elapsed = seconds { diagnostics = BundleLoader().load(folder: bundle).diagnostics }
        #expect(diagnostics.map(\.code) == [.duplicateKey])
        #expect(diagnostics.first?.keyPath == "[0].query.q7")
        #expect(elapsed < 5, "took \(elapsed) s")
    }

    @Test("a rule's 20,000 headers over 20,000 bundle-wide headers merge in linear time (took 30 s)")
    func manyHeaders() throws {
        let headers = "{" + (0..<20_000).map { "\"X-H\($0)\": \"v\"" }.joined(separator: ", ") + "}"
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": "{\"headers\": \(headers), \"rules\": [{\"path\": \"/a\", \"headers\": \(headers)}]}"])
        var result: BundleLoader.Result?
        let elapsed = seconds { result = BundleLoader().load(folder: bundle) }
        #expect(result?.diagnostics.isEmpty == true)
        #expect(result?.bundle.rules.first?.response.headers.count == 20_000)
        #expect(elapsed < 5, "took \(elapsed) s")
    }

    @Test("a 1 MB unknown key gets no suggestion search over its length, and is quoted by its start only")
    func megabyteKey() throws {
        let key = String(repeating: "k", count: 1 << 20)
        let elapsed = seconds { #expect(Suggestion.closest(to: key, in: RuleKeys.rule) == nil) }
        #expect(elapsed < 0.5, "took \(elapsed) s")
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": "[{\"path\": \"/a\", \"\(key)\": 1}]"])
        let diagnostics = BundleLoader().load(folder: bundle).diagnostics
        #expect(diagnostics.map(\.code) == [.unknownKey])
        #expect((diagnostics.first?.description.utf8.count ?? .max) < 1000)
        #expect(diagnostics.first?.message.contains("(1048576 bytes)") == true)
    }

    @Test("edit distance is unchanged by the three-row rewrite", arguments: [
        ("stauts", "status", 1), ("", "abc", 3), ("abc", "", 3), ("kitten", "sitting", 3), ("ca", "abc", 3), ("path", "path", 0),
        ("reponse", "response", 1), ("methdo", "method", 1),
    ])
    func editDistance(a: String, b: String, expected: Int) {
        #expect(Suggestion.editDistance(a, b) == expected)
    }
}
