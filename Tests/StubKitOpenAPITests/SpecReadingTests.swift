#if Tools
import Foundation
import Testing
@testable import StubKitOpenAPI
import StubKit

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
}
#endif
