import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Inputs the template fuzzer (Fuzz/template.swift) stopped on, checked with the fuzzer's own promises:
/// a JSON template whose text is valid JSON renders valid JSON whatever the request holds, and a header
/// value never holds a line break.
struct TemplateFuzzFindingTests {
    static func check(_ bytes: [UInt8]) throws {
        let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
        let text = String(decoding: parts[0], as: UTF8.self)
        let body = parts.count > 1 ? Data(parts[1]) : nil
        let value = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : ""
        var components = URLComponents(string: "https://h/items/1")!
        components.queryItems = [URLQueryItem(name: "q", value: value)]
        let url = try #require(components.url)
        let request = StubRequest(method: "POST", url: url, headers: ["X-V": value], body: body)
        if let template = try? ResponseTemplate(parsing: text, pathParameters: ["id"], syntax: .json) {
            var context = ResponseTemplate.Context(request: request, parameters: ["id": value], now: Date(timeIntervalSince1970: 0), hit: 1)
            let output = template.render(&context)
            if !text.isEmpty, (try? JSONSourceParser().parse(Data(text.utf8))) != nil {
                #expect((try? JSONSourceParser().parse(Data(output.utf8))) != nil,
                        "valid JSON template \(text.debugDescription) rendered \(output.debugDescription)")
            }
        }
        if let template = try? ResponseTemplate(parsing: text, pathParameters: ["id"], syntax: .text) {
            var context = ResponseTemplate.Context(request: request, parameters: ["id": value], now: Date(timeIntervalSince1970: 0), hit: 1)
            let header = template.renderHeaderValue(&context)
            #expect(!header.unicodeScalars.contains { $0 == "\r" || $0 == "\n" }, "\(header.debugDescription)")
        }
    }

    @Test("fuzz finding: a placeholder whose '}}' is missing is refused, so it cannot swallow the JSON after it")
    func jsonRendering() throws {
        let bytes = try [UInt8](Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("fuzz/template-json-rendering.bin")))
        try Self.check(bytes)
        // The fuzzer's template is refused outright (it rendered invalid JSON when it was accepted).
        let text = String(decoding: bytes.split(separator: 0, maxSplits: 1, omittingEmptySubsequences: false)[0], as: UTF8.self)
        #expect(throws: ResponseTemplate.Problems.self) { try ResponseTemplate(parsing: text, pathParameters: ["id"], syntax: .json) }
    }

    @Test("a placeholder missing its '}}' is an error naming it, not a template that swallows the JSON after it")
    func unclosedPlaceholderInBundle() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": #"""
            [ { "path": "/items/{id}", "template": true, "json": { "id": "{{path.id", "q": "{{query.q}}" } } ]
            """#])
        let diagnostics = BundleLoader().load(folder: bundle).diagnostics
        #expect(diagnostics.map(\.code) == [.unknownTemplateField], "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("missing its '}}'") == true, "\(diagnostics)")
        #expect(diagnostics.first?.keyPath == "[0].json", "\(diagnostics)")
    }
}
