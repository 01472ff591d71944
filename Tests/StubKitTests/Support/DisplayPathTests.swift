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
        Case(name: "a file inside", path: "/srv/project/b/stubsRules.json", base: "/srv/project", shown: "b/stubsRules.json"),
        Case(name: "a base with a trailing slash", path: "/srv/project/b/a.json", base: "/srv/project/", shown: "b/a.json"),
        Case(name: "the root as base", path: "/srv/a.json", base: "/", shown: "srv/a.json"),
        Case(name: "'..' in the file's path", path: "/srv/project/x/../b/a.json", base: "/srv/project", shown: "b/a.json"),
        Case(name: "'..' in the base", path: "/srv/project/b/a.json", base: "/srv/other/../project", shown: "b/a.json"),
        Case(name: "a sibling whose name starts with the base's", path: "/srv/project-2/a.json", base: "/srv/project", shown: "/srv/project-2/a.json"),
        Case(name: "the base itself", path: "/srv/project", base: "/srv/project", shown: "/srv/project"),
        Case(name: "a file outside", path: "/tmp/a.json", base: "/srv/project", shown: "/tmp/a.json"),
        Case(name: "no base", path: "/srv/project/a.json", base: nil, shown: "/srv/project/a.json"),
    ]

    @Test("a file's path for display", arguments: cases)
    func displayPath(_ example: Case) {
        let base = example.base.map { URL(fileURLWithPath: $0, isDirectory: true) }
        #expect(URL(fileURLWithPath: example.path).displayPath(relativeTo: base) == example.shown)
    }
}
