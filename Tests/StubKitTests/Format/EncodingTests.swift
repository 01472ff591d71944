import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Files that are not UTF-8, and integers Apple's property-list reader accepts.
struct EncodingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var file: String
        var bytes: [UInt8]
        var position: SourcePosition?
        var fragments: [String]
        var testDescription: String { name }
    }

    static func utf16LE(_ text: String) -> [UInt8] { Array(text.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
    static func utf16BE(_ text: String) -> [UInt8] { Array(text.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
    static func utf32LE(_ text: String) -> [UInt8] { text.unicodeScalars.flatMap { s in (0..<4).map { UInt8(truncatingIfNeeded: s.value >> (8 * $0)) } } }

    static let cases: [Case] = [
        Case(name: "invalid UTF-8 in a JSON string", file: "stubsRules.json",
             bytes: Array("[{\"path\": \"/a\",\n  \"name\": \"caf".utf8) + [0xE9] + Array("\"}]".utf8),
             position: SourcePosition(line: 2, column: 15), fragments: ["invalid UTF-8 (byte 0xE9)", "save it as UTF-8"]),
        Case(name: "invalid UTF-8 in an XML plist", file: "stubsRules.plist",
             bytes: Array("<plist><array><dict><key>path</key><string>/".utf8) + [0xC0, 0xAF] + Array("</string></dict></array></plist>".utf8),
             position: SourcePosition(line: 1, column: 45), fragments: ["invalid UTF-8 (byte 0xC0)"]),
        Case(name: "UTF-16 JSON with a lone surrogate on line 2", file: "stubsRules.json",
             bytes: utf16LE("[{\"path\": \"/a\",\n \"name\": \"") + [0x00, 0xD8] + utf16LE("x\"}]"),
             position: SourcePosition(line: 2, column: 11), fragments: ["a lone surrogate", "UTF-16 (little-endian, without a byte order mark)", "save it as UTF-8"]),
        Case(name: "UTF-16 big-endian XML plist cut in the middle of a character", file: "stubsRules.plist",
             bytes: [0xFE, 0xFF] + Array("<plist><array/></plist>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } + [0x00],
             position: SourcePosition(line: 1, column: 24), fragments: ["a truncated last character", "UTF-16 (big-endian)"]),
        Case(name: "XML plist declaring UTF-16 while written in UTF-8", file: "stubsRules.plist",
             bytes: Array("<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<plist><array/></plist>".utf8),
             position: SourcePosition(line: 1, column: 1), fragments: ["encoding 'utf-16'", "not in it"]),
        Case(name: "XML plist declaring an encoding StubKit does not read", file: "stubsRules.plist",
             bytes: Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<plist><array/></plist>".utf8),
             position: SourcePosition(line: 1, column: 1), fragments: ["encoding 'shift_jis'", "save it as UTF-8"]),
    ]

    @Test("a file that is not UTF-8 is a syntax error at the offending byte, with the fix", arguments: cases)
    func notUTF8(_ c: Case) throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", [:])
        try Data(c.bytes).write(to: bundle.appendingPathComponent(c.file))
        let diagnostics = BundleLoader().load(folder: bundle).diagnostics
        #expect(diagnostics.map(\.code) == [.malformedFile])
        #expect(diagnostics.first?.position == c.position)
        for fragment in c.fragments { #expect(diagnostics.first?.message.contains(fragment) == true, "\(diagnostics)") }
    }

    /// Rules text with a non-BMP character (a surrogate pair in UTF-16) and a second line.
    static let wideText = "[{\"path\": \"/caf\u{e9}\",\n  \"body\": \"\u{1F600} ok\"}]"
    static let wideCases: [(name: String, file: String, bytes: [UInt8])] = [
        ("UTF-16 LE JSON with a byte order mark", "stubsRules.json", [0xFF, 0xFE] + utf16LE(wideText)),
        ("UTF-16 LE JSON without a byte order mark", "stubsRules.json", utf16LE(wideText)),
        ("UTF-16 BE JSON with a byte order mark", "stubsRules.json", [0xFE, 0xFF] + utf16BE(wideText)),
        ("UTF-32 LE JSON with a byte order mark", "stubsRules.json", [0xFF, 0xFE, 0, 0] + utf32LE(wideText)),
        ("UTF-32 LE JSON without a byte order mark", "stubsRules.json", utf32LE(wideText)),
        ("UTF-32 BE JSON without a byte order mark", "stubsRules.json", utf32LE(wideText).chunked4Reversed),
        ("UTF-16 BE XML plist declaring UTF-16", "stubsRules.plist", [0xFE, 0xFF] + utf16BE(plistText(declaring: "UTF-16"))),
        ("UTF-16 LE XML plist without a declaration", "stubsRules.plist", [0xFF, 0xFE] + utf16LE(plistText(declaring: nil))),
    ]
    static func plistText(declaring encoding: String?) -> String {
        (encoding.map { "<?xml version=\"1.0\" encoding=\"\($0)\"?>\n" } ?? "")
            + "<plist><array><dict><key>path</key><string>/caf\u{e9}</string>\n<key>body</key><string>\u{1F600} ok</string></dict></array></plist>"
    }

    @Test("UTF-16 and UTF-32 rules files load as Apple's readers load them, with a note to save them as UTF-8",
          arguments: wideCases.map(\.name))
    func wideFiles(_ name: String) throws {
        let c = try #require(Self.wideCases.first { $0.name == name })
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", [:])
        try Data(c.bytes).write(to: bundle.appendingPathComponent(c.file))
        let result = BundleLoader().load(folder: bundle)
        #expect(result.diagnostics.map(\.code) == [.wideEncoding], "\(result.diagnostics)")
        #expect(result.diagnostics.first?.fix?.contains("save it as UTF-8") == true)
        let rule = try #require(result.bundle.rules.first)
        #expect(rule.request.path?.description == "/caf\u{e9}")
        if case .inline(let body) = rule.response.body {
            #expect(String(decoding: body, as: UTF8.self) == "\u{1F600} ok")
        } else {
            Issue.record("body: \(String(describing: rule.response.body))")
        }
        // Foundation reads the same bytes to the same values.
        let foundation: Any = c.file.hasSuffix(".json")
            ? try JSONSerialization.jsonObject(with: Data(c.bytes))
            : try PropertyListSerialization.propertyList(from: Data(c.bytes), format: nil)
        let first = try #require((foundation as? [[String: Any]])?.first)
        #expect(first["path"] as? String == "/caf\u{e9}")
        #expect(first["body"] as? String == "\u{1F600} ok")
    }

    @Test("an XML plist declared ISO-8859-1 is read as Latin-1")
    func latin1() throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><array><string>caf".utf8) + [0xE9] + Array("</string></array></plist>".utf8)
        let value = try PropertyListSourceParser().parse(Data(bytes))
        #expect(value.arrayValue?.first?.stringValue == "café")
    }

    @Test("<integer> takes what Apple's reader takes", arguments: [
        ("42", "42"), (" 7 ", "7"), ("+5", "5"), ("-12", "-12"), ("0x1F", "31"), ("0XfF", "255"), ("-0x10", "-16"),
        ("9223372036854775807", "9223372036854775807"), ("-9223372036854775808", "-9223372036854775808"),
        ("18446744073709551615", "1.8446744073709552e+19"), ("0xFFFFFFFFFFFFFFFF", "1.8446744073709552e+19"),
    ])
    func integers(text: String, expected: String) throws {
        let value = try PropertyListSourceParser().parse(Data("<plist><integer>\(text)</integer></plist>".utf8))
        switch value.kind {
        case .integer(let i): #expect(String(i) == expected)
        case .real(let d): #expect("\(d)" == expected)
        default: Issue.record("\(value.kind)")
        }
    }

    @Test("<integer> refuses what no reader takes", arguments: ["", "x", "1.5", "18446744073709551616", "-9223372036854775809", "0x", "--1", "+-1"])
    func badIntegers(text: String) {
        #expect(throws: SourceSyntaxError.self) { try PropertyListSourceParser().parse(Data("<plist><integer>\(text)</integer></plist>".utf8)) }
    }
}

extension EncodingTests {
    @Test("a UTF-16 JSON response file is an error (the app would get UTF-16 bytes as JSON), and a UTF-16 template file too")
    func wideResponseFiles() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", ["stubsRules.json": #"""
            [ { "path": "/a", "response": "a.json" },
              { "path": "/t", "response": "t.json", "template": true } ]
            """#])
        try Data([0xFF, 0xFE] + Self.utf16LE(#"{"a": 1}"#)).write(to: bundle.appendingPathComponent("a.json"))
        try Data([0xFF, 0xFE] + Self.utf16LE(#"{"t": "{{path.x}}"}"#)).write(to: bundle.appendingPathComponent("t.json"))
        let diagnostics = BundleLoader(options: .lint).load(folder: bundle).diagnostics
        #expect(diagnostics.map(\.code).sorted { $0.rawValue < $1.rawValue } == [.invalidJSONResponse, .unknownTemplateField], "\(diagnostics)")
        #expect(diagnostics.contains { $0.code == .invalidJSONResponse && $0.message.contains("UTF-16 (little-endian)") && $0.file.hasSuffix("a.json") })
        #expect(diagnostics.contains { $0.code == .unknownTemplateField && $0.message.contains("'t.json' is not UTF-8") })
    }
}

private extension Array where Element == UInt8 {
    /// Each 4-byte group reversed: little-endian UTF-32 to big-endian.
    var chunked4Reversed: [UInt8] { stride(from: 0, to: count, by: 4).flatMap { self[$0..<Swift.min($0 + 4, count)].reversed() } }
}
