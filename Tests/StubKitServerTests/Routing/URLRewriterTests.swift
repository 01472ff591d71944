#if Tools
import Foundation
import Testing
@testable import StubKitServer
import StubKit

/// `URLRewriter` value in, value out, with no socket: a URL changes only when its own host is stubbed.
struct URLRewriterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var input: String
        var expected: String
        var testDescription: String { name }
    }

    static let rewriter = URLRewriter(hosts: ["api.stubbed.example", "cdn.stubbed.example"], base: "http://127.0.0.1:8080")
    static let local = "http://127.0.0.1:8080"

    static let cases: [Case] = [
        Case(name: "a stubbed host's URL", input: #"{"next":"https://api.stubbed.example/v1?page=2"}"#,
             expected: #"{"next":"\#(local)/api.stubbed.example/v1?page=2"}"#),
        Case(name: "a stubbed host's URL in JSON's escaped form", input: #"{"next":"https:\/\/api.stubbed.example\/v1"}"#,
             expected: #"{"next":"http:\/\/127.0.0.1:8080\/api.stubbed.example\/v1"}"#),
        Case(name: "a stubbed URL in a foreign link's query stays",
             input: #"{"map":"https://www.openstreetmap.example/?from=https://api.stubbed.example/x"}"#,
             expected: #"{"map":"https://www.openstreetmap.example/?from=https://api.stubbed.example/x"}"#),
        Case(name: "a stubbed URL in a foreign link's query stays, JSON-escaped",
             input: #"{"map":"https:\/\/www.openstreetmap.example\/?from=https:\/\/api.stubbed.example\/x"}"#,
             expected: #"{"map":"https:\/\/www.openstreetmap.example\/?from=https:\/\/api.stubbed.example\/x"}"#),
        Case(name: "a stubbed URL in the query of a foreign link with a port stays",
             input: "see http://localhost:3000/cb?u=https://api.stubbed.example/x now",
             expected: "see http://localhost:3000/cb?u=https://api.stubbed.example/x now"),
        Case(name: "a stubbed URL in the query of a longer host name stays",
             input: "https://api.stubbed.example.evil/?u=https://api.stubbed.example/x",
             expected: "https://api.stubbed.example.evil/?u=https://api.stubbed.example/x"),
        Case(name: "after a foreign link ends, the next stubbed URL is rewritten",
             input: #"<a href="https://maps.example/?from=https://api.stubbed.example/a">map</a> <a href="https://cdn.stubbed.example/b">b</a>"#,
             expected: #"<a href="https://maps.example/?from=https://api.stubbed.example/a">map</a> <a href="\#(local)/cdn.stubbed.example/b">b</a>"#),
        Case(name: "a foreign link ended by white space, then a stubbed one",
             input: "https://maps.example/?from=https://api.stubbed.example/a\nhttps://api.stubbed.example/b",
             expected: "https://maps.example/?from=https://api.stubbed.example/a\n\(local)/api.stubbed.example/b"),
        Case(name: "a percent-encoded stubbed URL in a foreign query stays",
             input: "https://www.nhs.example/?ref=https%3A%2F%2Fapi.stubbed.example",
             expected: "https://www.nhs.example/?ref=https%3A%2F%2Fapi.stubbed.example"),
        Case(name: "a stubbed URL with another port stays", input: "https://api.stubbed.example:8443/x",
             expected: "https://api.stubbed.example:8443/x"),
        Case(name: "a stubbed URL inside a stubbed URL: both point back here",
             input: "https://api.stubbed.example/login?next=https://cdn.stubbed.example/a",
             expected: "\(local)/api.stubbed.example/login?next=\(local)/cdn.stubbed.example/a"),
        Case(name: "upper-case scheme, and a full stop after the host", input: "Go to HTTPS://API.STUBBED.EXAMPLE.",
             expected: "Go to \(local)/API.STUBBED.EXAMPLE."),
    ]

    @Test("which URLs are rewritten", arguments: cases)
    func rewrite(_ c: Case) {
        let output = Self.rewriter.rewrite(Data(c.input.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? c.input
        #expect(output == c.expected)
    }

    @Test("a Location header pointing at a foreign host keeps the stubbed URL in its query")
    func location() {
        let foreign = "https://sso.example/authorize?redirect_uri=https://api.stubbed.example/cb"
        #expect(Self.rewriter.rewrite(location: foreign) == foreign)
        #expect(Self.rewriter.rewrite(location: "https://api.stubbed.example/cb") == "\(Self.local)/api.stubbed.example/cb")
    }
}
#endif

#if Tools
extension URLRewriterTests {
    @Test("which content types are text whose URLs are rewritten", arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), (" Text/HTML ;charset=utf-8", true),
        ("application/problem+json", true), ("application/atom+xml", true), ("application/x-www-form-urlencoded", true),
        ("application/javascript", true), ("image/png", false), ("application/octet-stream", false), ("", false),
        ("application/jsonp", false),
    ])
    func textual(_ contentType: String, _ expected: Bool) {
        #expect(MediaType.isText(contentType) == expected)
    }

    @Test func noContentType() { #expect(!MediaType.isText(nil)) }

    @Test("a text with no stubbed host's URL is left alone (nil: nothing to rewrite)")
    func untouched() {
        #expect(Self.rewriter.rewrite(Data("see https://elsewhere.example/a and api.stubbed.example/b".utf8)) == nil)
    }
}
#endif
