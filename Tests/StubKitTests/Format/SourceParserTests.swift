import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

struct SourceParserTests {
    @Test("JSON values and keys carry their line and column")
    func jsonPositions() throws {
        let text = "{\n  \"rules\": [\n    { \"path\": \"/a\", \"status\": 200 }\n  ]\n}"
        let root = try JSONSourceParser().parse(Data(text.utf8))
        let rules = try #require(root.dictionaryValue?.first)
        #expect(rules.keyPosition == SourcePosition(line: 2, column: 3))
        let rule = try #require(rules.value.arrayValue?.first)
        #expect(rule.position == SourcePosition(line: 3, column: 5))
        let status = try #require(rule.dictionaryValue?.last)
        #expect(status.keyPosition == SourcePosition(line: 3, column: 21))
        if case .integer(200) = status.value.kind {} else { Issue.record("status is \(status.value.kind)") }
    }

    @Test("columns count characters, not bytes")
    func unicodeColumns() throws {
        let root = try JSONSourceParser().parse(Data("{\"ü\": \"é\", \"x\": 1}".utf8))
        #expect(root.dictionaryValue?.last?.keyPosition == SourcePosition(line: 1, column: 12))
    }

    @Test("JSON syntax errors name the position", arguments: [
        ("{\"a\": 1,}", 1, 9, "trailing comma"),
        ("{\"a\" 1}", 1, 6, "expected ':'"),
        ("[1, 2\n", 2, 1, "expected ',' or ']'"),
        ("{'a': 1}", 1, 2, "double quotes"),
        ("", 1, 1, "empty"),
        ("{\"a\": tru}", 1, 7, "expected a JSON value"),
        ("{\"a\": \"x\n\"}", 1, 9, "unterminated string"),
        ("[1E400]", 1, 2, "too large"),
    ])
    func jsonErrors(text: String, line: Int, column: Int, fragment: String) {
        expectSyntaxError({ (data: Data) throws(SourceSyntaxError) in try JSONSourceParser().parse(data) }, text, line, column, fragment)
    }

    /// Parses `text` and expects a syntax error at the position, with the fragment in its message.
    func expectSyntaxError(_ parse: (Data) throws(SourceSyntaxError) -> SourceValue, _ text: String, _ line: Int, _ column: Int, _ fragment: String,
                           sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try parse(Data(text.utf8))
            Issue.record("parsed without error", sourceLocation: sourceLocation)
        } catch {
            #expect(error.position == SourcePosition(line: line, column: column), "\(error)", sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
        }
    }

    @Test("deeply nested JSON is refused, not a stack overflow")
    func deepNesting() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: SourceSyntaxError.self) { try JSONSourceParser().parse(Data(text.utf8)) }
    }

    @Test("JSON with a byte order mark parses")
    func byteOrderMark() throws {
        let value = try JSONSourceParser().parse(Data([0xEF, 0xBB, 0xBF]) + Data("[1]".utf8))
        #expect(value.arrayValue?.count == 1)
    }

    @Test("JSON strings decode escapes and surrogate pairs")
    func escapes() throws {
        let value = try JSONSourceParser().parse(Data(#"["a\"b\\c\n\u00e9\ud83c\udf55"]"#.utf8))
        #expect(value.arrayValue?.first?.stringValue == "a\"b\\c\né🍕")
    }

    @Test("an XML property list keeps positions, entities and types")
    func xmlPlist() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
        \t<dict>
        \t\t<key>path</key>
        \t\t<string>/a&amp;b</string>
        \t\t<key>status</key>
        \t\t<integer>201</integer>
        \t\t<key>delay</key>
        \t\t<real>0.5</real>
        \t\t<key>on</key>
        \t\t<true/>
        \t\t<key>empty</key>
        \t\t<string/>
        \t</dict>
        </array>
        </plist>
        """
        let root = try PropertyListSourceParser().parse(Data(text.utf8))
        let rule = try #require(root.arrayValue?.first)
        #expect(rule.position == SourcePosition(line: 5, column: 2))
        let entries = try #require(rule.dictionaryValue)
        #expect(entries.map(\.key) == ["path", "status", "delay", "on", "empty"])
        #expect(entries[0].value.stringValue == "/a&b")
        #expect(entries[1].keyPosition == SourcePosition(line: 8, column: 3))
        if case .integer(201) = entries[1].value.kind {} else { Issue.record("status") }
        if case .real(0.5) = entries[2].value.kind {} else { Issue.record("delay") }
        if case .bool(true) = entries[3].value.kind {} else { Issue.record("on") }
        #expect(entries[4].value.stringValue == "")
    }

    @Test("a binary property list is read (without positions)")
    func binaryPlist() throws {
        let object: [[String: Any]] = [["path": "/a", "status": 404, "flag": true]]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let root = try PropertyListSourceParser().parse(data)
        let entries = try #require(root.arrayValue?.first?.dictionaryValue)
        #expect(entries.map(\.key) == ["flag", "path", "status"])
        if case .bool(true) = entries[0].value.kind {} else { Issue.record("flag is \(entries[0].value.kind)") }
        if case .integer(404) = entries[2].value.kind {} else { Issue.record("status is \(entries[2].value.kind)") }
    }

    @Test("XML property list errors name the position", arguments: [
        ("<plist><array><dict><key>a</key></dict></array></plist>", 1, 33, "has no value"),
        ("<plist><array><integer>x</integer></array></plist>", 1, 15, "invalid <integer>"),
        ("<plist><array><strin>a</strin></array></plist>", 1, 15, "unknown property list element"),
        ("<plist><array><string>a</array></plist>", 1, 24, "expected </string>"),
        ("<plist><dict><string>a</string></dict></plist>", 1, 14, "expected <key>"),
    ])
    func plistErrors(text: String, line: Int, column: Int, fragment: String) {
        expectSyntaxError({ (data: Data) throws(SourceSyntaxError) in try PropertyListSourceParser().parse(data) }, text, line, column, fragment)
    }

    @Test("binary junk is a syntax error, not a crash (seeded: the seed is in every failure message)")
    func junk() {
        var generator = SeededGenerator.fromEnvironment(default: 0x5EED_0001)
        for round in 0..<20 {
            let junk = Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let context: Comment = "seed \(generator.seed), round \(round) (rerun with STUBKIT_SEED=\(generator.seed))"
            #expect(throws: SourceSyntaxError.self, context) { try JSONSourceParser().parse(junk) }
            #expect(throws: SourceSyntaxError.self, context) { try PropertyListSourceParser().parse(junk) }
            #expect(throws: SourceSyntaxError.self, context) { try PropertyListSourceParser().parse(Data("bplist00".utf8) + junk) }
        }
        #expect(throws: SourceSyntaxError.self) { try PropertyListSourceParser().parse(Data("bplist00garbage".utf8)) }
    }
}
