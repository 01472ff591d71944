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

    static let utf16JSON: [UInt8] = [0xFF, 0xFE] + Array("[{\"path\": \"/a\"}]".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }

    static let cases: [Case] = [
        Case(name: "invalid UTF-8 in a JSON string", file: "stubsRules.json",
             bytes: Array("[{\"path\": \"/a\",\n  \"name\": \"caf".utf8) + [0xE9] + Array("\"}]".utf8),
             position: SourcePosition(line: 2, column: 15), fragments: ["invalid UTF-8 (byte 0xE9)", "save it as UTF-8"]),
        Case(name: "invalid UTF-8 in an XML plist", file: "stubsRules.plist",
             bytes: Array("<plist><array><dict><key>path</key><string>/".utf8) + [0xC0, 0xAF] + Array("</string></dict></array></plist>".utf8),
             position: SourcePosition(line: 1, column: 45), fragments: ["invalid UTF-8 (byte 0xC0)"]),
        Case(name: "UTF-16 JSON with a byte order mark", file: "stubsRules.json", bytes: utf16JSON,
             position: SourcePosition(line: 1, column: 1), fragments: ["encoded as UTF-16 (little-endian)", "save it as UTF-8"]),
        Case(name: "UTF-16 JSON without a byte order mark", file: "stubsRules.json", bytes: Array(utf16JSON.dropFirst(2)),
             position: SourcePosition(line: 1, column: 1), fragments: ["UTF-16 (little-endian, without a byte order mark)"]),
        Case(name: "UTF-16 big-endian XML plist", file: "stubsRules.plist",
             bytes: [0xFE, 0xFF] + Array("<plist><array/></plist>".utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
             position: SourcePosition(line: 1, column: 1), fragments: ["UTF-16 (big-endian)", "save it as UTF-8"]),
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
