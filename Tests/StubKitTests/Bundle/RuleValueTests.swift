import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Values of the right type that can never work, and diagnostics a newcomer can act on.
struct RuleValueTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var rules: String
        var file = "stubsRules.json"
        /// `code keyPath` of each diagnostic, in order.
        var expected: [String]
        var fragment: String
        var testDescription: String { name }
    }

    static func load(_ rules: String, file: String = "stubsRules.json", extra: [String: String] = [:], options: BundleLoader.Options = .engine) throws -> [Diagnostic] {
        let folder = try TemporaryFolder()
        var files = extra
        files[file] = rules
        let bundle = try folder.bundle("b", files)
        return BundleLoader(options: options).load(folder: bundle).diagnostics.sortedForDisplay()
    }

    static let values: [Case] = [
        Case(name: "response header value with CR LF", rules: #"[{"path": "/a", "headers": {"X-A": "1\r\nSet-Cookie: s=1"}}]"#,
             expected: ["SK022 [0].headers.X-A"], fragment: "contains a line break (CR)"),
        Case(name: "bundle-wide header value with LF", rules: #"{"headers": {"X-A": "1\nX-B: 2"}, "rules": [{"path": "/a"}]}"#,
             expected: ["SK022 headers.X-A"], fragment: "inject another"),
        Case(name: "request header condition with LF", rules: #"[{"path": "/a", "requestHeaders": {"Accept": "a\nb"}}]"#,
             expected: ["SK022 [0].requestHeaders.Accept"], fragment: "line break (LF)"),
        Case(name: "header name with a colon and space", rules: #"[{"path": "/a", "headers": {"X-A: b": "1"}}]"#,
             expected: ["SK022 [0].headers.X-A: b"], fragment: "not a valid HTTP header name"),
        Case(name: "header in a sequence item with a NUL", rules: #"[{"path": "/a", "responses": [{"headers": {"X": "a\u0000b"}}]}]"#,
             expected: ["SK022 [0].responses[0].headers.X"], fragment: "NUL"),
        Case(name: "delay of 1e300 seconds", rules: #"[{"path": "/a", "delay": 1e300}]"#,
             expected: ["SK023 [0].delay"], fragment: "longer than the maximum of 3600 seconds"),
        Case(name: "random delay bound of 1e300", rules: #"[{"path": "/a", "delay": {"min": 0, "max": 1e300}}]"#,
             expected: ["SK023 [0].delay.max"], fragment: "maximum of 3600"),
        Case(name: "bundle-wide delay of two hours", rules: #"{"delay": 7200, "rules": [{"path": "/a"}]}"#,
             expected: ["SK023 delay"], fragment: "one hour"),
        Case(name: "negative delay", rules: #"[{"path": "/a", "delay": -1}]"#, expected: ["SK017 [0].delay"], fragment: "negative"),
        Case(name: "NaN delay in a plist", rules: "<plist><array><dict><key>path</key><string>/a</string><key>delay</key><real>nan</real></dict></array></plist>",
             file: "stubsRules.plist", expected: ["SK017 [0].delay"], fragment: "not a finite number"),
        Case(name: "negative random delay", rules: #"[{"path": "/a", "delay": {"min": -2, "max": 1}}]"#,
             expected: ["SK017 [0].delay.min"], fragment: "negative"),
        Case(name: "the bundle folder itself as the response file", rules: #"[{"path": "/a", "response": "."}]"#,
             expected: ["SK001 [0].response"], fragment: "response file '.' is a folder"),
    ]

    @Test("values that could never work are diagnostics with codes", arguments: values)
    func impossibleValues(_ c: Case) throws {
        let diagnostics = try Self.load(c.rules, file: c.file)
        #expect(Set(diagnostics.map { "\($0.code) \($0.keyPath)" }) == Set(c.expected), "\(diagnostics)")
        #expect(diagnostics.first?.message.contains(c.fragment) == true, "\(diagnostics)")
    }

    @Test("a one-hour delay is still accepted")
    func oneHour() throws {
        #expect(try Self.load(#"[{"path": "/a", "delay": 3600, "headers": {"X-Ok": "a, b"}}]"#).isEmpty)
    }

    @Test("keys from other tools get the StubKit key", arguments: [
        ("statusCode", "status"), ("responseCode", "status"), ("httpStatus", "status"), ("responseFile", "response"),
        ("mockFile", "response"), ("latency", "delay"), ("verbs", "method"), ("responseBody", "body"), ("mockBody", "body"),
    ])
    func aliases(key: String, expected: String) throws {
        let diagnostics = try Self.load("[{\"path\": \"/a\", \"\(key)\": 1}]")
        #expect(diagnostics.map(\.code) == [.unknownKey])
        #expect(diagnostics.first?.fix == "did you mean '\(expected)'?")
    }

    @Test("an unknown 'url' is one error that offers 'path' and 'urlRegex', not also 'missing path'")
    func url() throws {
        let diagnostics = try Self.load(#"[{"url": "https://api.example/a"}]"#)
        #expect(diagnostics.map(\.code) == [.unknownKey])
        #expect(diagnostics.first?.fix?.contains("did you mean 'path'") == true)
        #expect(diagnostics.first?.fix?.contains("'urlRegex'") == true)
    }

    @Test("did-you-mean never suggests a legacy key", arguments: ["json_fil", "status_cod", "http_metod", "matching_ur", "inline_respons", "jsonfile"])
    func noLegacySuggestions(key: String) throws {
        let diagnostics = try Self.load("[{\"path\": \"/a\", \"\(key)\": 1}]")
        #expect(diagnostics.map(\.code) == [.unknownKey])
        for legacy in RuleKeys.legacy.keys { #expect(diagnostics.first?.fix?.contains("'\(legacy)'") != true, "\(diagnostics)") }
    }

    @Test("legacy keys give one note per file listing each key used, with counts and current forms")
    func legacyOnce() throws {
        let rule = #"{"matching_url": "/a", "status_code": "200", "json_file": "a", "inline_response": ""}"#
        let diagnostics = try Self.load("[\(rule), \(rule)]", extra: ["a.json": "{}"])
        let notes = diagnostics.filter { $0.code == .legacyKey }
        #expect(diagnostics.count == notes.count, "\(diagnostics)")
        let summary = try #require(notes.first { $0.message.hasPrefix("this file uses legacy keys") })
        #expect(summary.message == "this file uses legacy keys, which still work: 'matching_url' (2 times), 'status_code' (2 times), 'json_file' (2 times), 'inline_response' (2 times)")
        #expect(summary.fix?.contains("json_file → 'response' with the file name and its '.json'") == true)
        #expect(notes.filter { $0.message.hasPrefix("this file uses") }.count == 1)
    }

    @Test("an empty inline_response says remove it")
    func emptyInline() throws {
        let diagnostics = try Self.load(#"[{"path": "/a", "inline_response": ""}]"#)
        #expect(diagnostics.contains { $0.message == "'inline_response' is empty, so it does nothing" && $0.fix == "remove it" }, "\(diagnostics)")
    }

    @Test("documentation files in a bundle are not unused files; other files still are")
    func documentation() throws {
        let extra = ["README.md": "# about", "README": "x", "NOTES.txt": "x", "docs/guide.md": "x", "stray.json": "{}"]
        let diagnostics = try Self.load(#"[{"path": "/a"}]"#, extra: extra, options: .lint)
        #expect(diagnostics.map(\.code) == [.unusedFile])
        #expect(diagnostics.first?.file.hasSuffix("stray.json") == true)
    }
}
