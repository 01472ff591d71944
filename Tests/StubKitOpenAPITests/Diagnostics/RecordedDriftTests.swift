#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// A recorded bundle's responses are the real backend's: where they do not fit the spec, `stublint lint
/// --openapi` and `stubkit serve --record --openapi` report drift (SK217), not a wrong stub.
struct RecordedDriftTests {
    static let folder = PackagePaths.fixtures.appendingPathComponent("openapi")
    static let recorded = "Tests/Fixtures/openapi/recorded"
    static let spec = "Tests/Fixtures/openapi/takeaway.yaml"

    @Test("a recording's findings are drift: the golden output, SK217 with the pointer and the spec's line")
    func golden() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", Self.recorded, "--openapi", Self.spec])
        try GoldenFile.expect(out.stdout, matches: Self.folder.appendingPathComponent("stublint-recorded.txt"))
        #expect(out.status == 1, "\(out.stderr)")
        #expect(out.stdout.contains("Tests/Fixtures/openapi/recorded/restaurants.json:4:58: error: the real backend's recorded answer does not fit the spec: /restaurants/1/deliveryMinutes: expected integer, got string"),
                "\(out.stdout)")
        #expect(out.stdout.contains("Tests/Fixtures/openapi/takeaway.yaml:17:17: note: paths./restaurants.get.responses.200.content.application/json.schema"))
        #expect(!out.stdout.contains("[SK203]") && !out.stdout.contains("[SK205]"), "a recording reported as a wrong stub:\n\(out.stdout)")
    }

    @Test("the same bundle without 'recordedAt' gives the same findings, as wrong stubs (SK203, SK205)")
    func sameFindingsAsHandWritten() throws {
        let temp = try TemporaryFolder()
        let source = PackagePaths.root.appendingPathComponent(Self.recorded)
        let rules = try String(contentsOf: source.appendingPathComponent("stubsRules.json"), encoding: .utf8)
        let handWritten = try temp.bundle("hand", [
            "stubsRules.json": rules.replacingOccurrences(of: #""recordedAt": "2026-01-01T10:00:00Z","#, with: #""name": "hand-written","#),
            "restaurants.json": try String(contentsOf: source.appendingPathComponent("restaurants.json"), encoding: .utf8),
        ])
        func diagnostics(_ bundle: String) throws -> [[String: Any]] {
            let out = try ChildProcess.run("stublint", arguments: ["lint", bundle, "--openapi", Self.spec, "--format", "json"])
            let object = try JSONSerialization.jsonObject(with: out.stdoutData) as? [String: Any]
            return try #require(object?["diagnostics"] as? [[String: Any]], "\(out.stdout)\(out.stderr)")
        }
        let drift = try diagnostics(Self.recorded), stub = try diagnostics(handWritten.path)
        func places(_ items: [[String: Any]]) -> [String] {
            items.compactMap { item in
                guard let code = item["code"] as? String, let line = item["line"] as? Int, let column = item["column"] as? Int else { return nil }
                return "\((item["file"] as? String).map { ($0 as NSString).lastPathComponent } ?? ""):\(line):\(column) \(code)"
            }
        }
        let driftPlaces = places(drift), stubPlaces = places(stub)
        #expect(driftPlaces.count == 2 && driftPlaces.allSatisfy { $0.hasSuffix("SK217") }, "\(driftPlaces)")
        #expect(stubPlaces.map { $0.replacingOccurrences(of: "SK203", with: "SK217").replacingOccurrences(of: "SK205", with: "SK217") } == driftPlaces,
                "\(stubPlaces) vs \(driftPlaces)")
    }
}
#endif
