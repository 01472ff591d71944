import Testing
import Foundation
@testable import StubKit

struct PathPatternTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var pattern: String
        var path: String
        var parameters: [String: String]?
        var testDescription: String { "\(pattern) vs \(path)" }
    }

    @Test("patterns match paths", arguments: [
        Case(pattern: "/restaurants", path: "/restaurants", parameters: [:]),
        Case(pattern: "/restaurants", path: "/restaurants/", parameters: [:]),
        Case(pattern: "/restaurants", path: "/restaurants/1", parameters: nil),
        Case(pattern: "/restaurants", path: "/Restaurants", parameters: nil),
        Case(pattern: "/restaurants/{id}", path: "/restaurants/42", parameters: ["id": "42"]),
        Case(pattern: "/restaurants/{id}", path: "/restaurants", parameters: nil),
        Case(pattern: "/restaurants/{id}/menu", path: "/restaurants/7/menu", parameters: ["id": "7"]),
        Case(pattern: "/a/*/c", path: "/a/b/c", parameters: [:]),
        Case(pattern: "/a/*/c", path: "/a/c", parameters: nil),
        Case(pattern: "/static/**", path: "/static", parameters: [:]),
        Case(pattern: "/static/**", path: "/static/a/b/c.png", parameters: [:]),
        Case(pattern: "/**/logo.png", path: "/x/y/logo.png", parameters: [:]),
        Case(pattern: "/**/logo.png", path: "/logo.png", parameters: [:]),
        Case(pattern: "/**/logo.png", path: "/x/logo.gif", parameters: nil),
        Case(pattern: "/api/**/items/{id}", path: "/api/v1/eu/items/9", parameters: ["id": "9"]),
        Case(pattern: "/files/{name}", path: "/files/a%20b", parameters: ["name": "a b"]),
        Case(pattern: "/", path: "/", parameters: [:]),
    ])
    func match(_ c: Case) throws {
        let pattern = try PathPattern(parsing: c.pattern)
        let request = StubRequest(url: URL(string: "https://h\(c.path)")!)
        #expect(pattern.match(request.pathSegments) == c.parameters)
    }

    @Test("invalid patterns are refused with a reason", arguments: [
        "restaurants", "/a/{}", "/a/{id}/{id}", "/a/b{id}", "/a/*.json", "/a?b=c",
    ])
    func invalid(_ text: String) {
        #expect(throws: PathPatternError.self) { try PathPattern(parsing: text) }
    }

    @Test("covers: a pattern covers another when it matches every path the other does", arguments: [
        ("/**", "/a/{id}", true),
        ("/a/{x}", "/a/b", true),
        ("/a/b", "/a/{x}", false),
        ("/a/**", "/a/b/**", true),
        ("/a/b/**", "/a/**", false),
        ("/a/*", "/a/{id}", true),
        ("/a/{id}", "/a/{id}/b", false),
        ("/**/z", "/a/b/z", true),
    ])
    func covers(a: String, b: String, expected: Bool) throws {
        #expect(try PathPattern(parsing: a).covers(PathPattern(parsing: b)) == expected)
    }

    @Test("a pattern prints as written")
    func description() throws {
        #expect(try PathPattern(parsing: "/a/{id}/*/**").description == "/a/{id}/*/**")
    }
}
