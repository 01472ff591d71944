#if Tools
import Foundation
import Testing
@testable import StubKitOpenAPI
import StubKit
import StubKitTestSupport

/// The spec's YAML read into positioned values as YAML means it.
struct SpecReadingTests {
    @Test("YAML merge keys take the merged mapping's keys unless written beside them; quoted scalars stay text")
    func mergeKeysAndTags() throws {
        let yaml = """
        base: &base {type: integer, minimum: 1}
        merged:
          <<: *base
          minimum: 5
        listed:
          <<: [*base, {format: int64}]
        quoted: {a: "true", b: true, c: '200', d: 200, e: 2024-05-01T12:00:00Z, f: ~}
        """
        let root = try SpecValueReader.read(Data(yaml.utf8), fileName: "spec.yaml")
        let merged = try #require(root["merged"])
        #expect(merged.dictionaryValue?.map(\.key) == ["minimum", "type"])
        #expect(merged["minimum"]?.numberValue == 5)
        #expect(root["listed"]?.dictionaryValue?.map(\.key) == ["type", "minimum", "format"])
        let quoted = try #require(root["quoted"])
        #expect(quoted["a"]?.stringValue == "true")
        #expect(quoted["b"]?.boolValue == true)
        #expect(quoted["c"]?.stringValue == "200")
        #expect(quoted["d"]?.numberValue == 200)
        #expect(quoted["e"]?.stringValue == "2024-05-01T12:00:00Z")
        if case .null = quoted["f"]?.kind {} else { Issue.record("~ is null") }
        #expect(merged.position == SourcePosition(line: 3, column: 3))
    }

    @Test("a spec whose YAML aliases expand to a million values is refused by the document reader, naming the file")
    func aliasBomb() throws {
        let spec = YAMLAliasBomb.text(levels: 6, after: "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
        do {
            let loaded = try OpenAPISpec.load(Data(spec.utf8), fileName: "bomb.yaml", display: "specs/bomb.yaml")
            Issue.record("read as a spec with \(loaded.operations.count) operations")
        } catch {
            #expect(error.description.hasPrefix("specs/bomb.yaml: the YAML document's aliases (*name) expand it to more than"), "\(error.description)")
            #expect(error.description.hasSuffix("nodes for \(spec.utf8.count) bytes; refused as an alias bomb"), "\(error.description)")
        }
    }
}
#endif
