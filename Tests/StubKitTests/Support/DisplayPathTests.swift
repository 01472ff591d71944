import Foundation
import Testing
@testable import StubKit

/// Files named in diagnostics and reports: relative to the folder the user works in when inside it.
@Suite struct DisplayPathTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let path: String
        let base: String?
        let shown: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a file inside", path: "/work/project/b/stubsRules.json", base: "/work/project", shown: "b/stubsRules.json"),
        Case(name: "a base with a trailing slash", path: "/work/project/b/a.json", base: "/work/project/", shown: "b/a.json"),
        Case(name: "the root as base", path: "/work/a.json", base: "/", shown: "work/a.json"),
        Case(name: "'..' in the file's path", path: "/work/project/x/../b/a.json", base: "/work/project", shown: "b/a.json"),
        Case(name: "'..' in the base", path: "/work/project/b/a.json", base: "/work/other/../project", shown: "b/a.json"),
        Case(name: "a sibling whose name starts with the base's", path: "/work/project-2/a.json", base: "/work/project", shown: "/work/project-2/a.json"),
        Case(name: "the base itself", path: "/work/project", base: "/work/project", shown: "/work/project"),
        Case(name: "a file outside", path: "/tmp/a.json", base: "/work/project", shown: "/tmp/a.json"),
        Case(name: "no base", path: "/work/project/a.json", base: nil, shown: "/work/project/a.json"),
    ]

    @Test("a file's path for display", arguments: cases)
    func displayPath(_ example: Case) {
        let base = example.base.map { URL(fileURLWithPath: $0, isDirectory: true) }
        #expect(URL(fileURLWithPath: example.path).displayPath(relativeTo: base) == example.shown)
    }
}
