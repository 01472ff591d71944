#if Tools
import Foundation
import Testing
import StubKit
@testable import StubKitServer

/// `HostRouter` value in, value out, with no socket: which URL the rules see for a request target and
/// `Host` header, and which targets are refused.
struct HostRouterTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var target: String
        var host: String? = nil
        var forwardsMisses = false
        /// The URL the rules see and the stubbed host, or `nil` for a refusal.
        var url: String?
        var stubbedHost: String? = nil
        var testDescription: String { name }
    }

    static let server = "127.0.0.1:8080"

    static func router(forwardsMisses: Bool) -> HostRouter {
        var configuration = StubServerConfiguration()
        configuration.extraHosts = ["api.shop.example", "CDN.Shop.Example"]
        configuration.onMiss = forwardsMisses ? .forward : .refuse
        return HostRouter(bundles: [], configuration: configuration)
    }

    static let cases: [Case] = [
        Case(name: "a stubbed host first in the path stands for its https URL", target: "/api.shop.example/v1/menu?x=1",
             url: "https://api.shop.example/v1/menu?x=1", stubbedHost: "api.shop.example"),
        Case(name: "the host in the path is matched whatever its case; declared hosts are lower-cased", target: "/CDN.SHOP.EXAMPLE/logo",
             url: "https://cdn.shop.example/logo", stubbedHost: "cdn.shop.example"),
        Case(name: "a stubbed host alone is its root", target: "/api.shop.example", url: "https://api.shop.example/", stubbedHost: "api.shop.example"),
        Case(name: "a fragment is not part of the request", target: "/api.shop.example/a?q=1#top", url: "https://api.shop.example/a?q=1",
             stubbedHost: "api.shop.example"),
        Case(name: "a path without a stubbed host is a request to the server itself", target: "/v1/menu", url: "http://127.0.0.1:8080/v1/menu"),
        Case(name: "an unknown domain first in the path is the server's own path when misses are refused", target: "/other.example/v1",
             url: "http://127.0.0.1:8080/other.example/v1"),
        Case(name: "an unknown domain first in the path is a host when misses are forwarded", target: "/other.example/v1", forwardsMisses: true,
             url: "https://other.example/v1", stubbedHost: "other.example"),
        Case(name: "a file name is no domain even when misses are forwarded", target: "/favicon.ico", forwardsMisses: true,
             url: "http://127.0.0.1:8080/favicon.ico"),
        Case(name: "a version number is no domain", target: "/v1.2/menu", forwardsMisses: true, url: "http://127.0.0.1:8080/v1.2/menu"),
        Case(name: "a Host header naming a stubbed host: a plain-HTTP proxy request", target: "/v1/menu", host: "api.shop.example",
             url: "http://api.shop.example/v1/menu", stubbedHost: "api.shop.example"),
        Case(name: "a Host header with a port still names the stubbed host", target: "/v1/menu", host: "API.shop.example:80",
             url: "http://api.shop.example/v1/menu", stubbedHost: "api.shop.example"),
        Case(name: "a Host header naming the server's port is the server, whatever the name", target: "/api.shop.example/a", host: "10.0.2.2:8080",
             url: "https://api.shop.example/a", stubbedHost: "api.shop.example"),
        Case(name: "a Host header naming an unknown host changes nothing", target: "/v1", host: "elsewhere.example", url: "http://127.0.0.1:8080/v1"),
        Case(name: "a proxy client's absolute URL stands for its plain-HTTP form", target: "https://api.shop.example/v1/menu?x=1",
             url: "http://api.shop.example/v1/menu?x=1", stubbedHost: "api.shop.example"),
        Case(name: "an absolute URL's host is lower-cased as the stubbed host", target: "http://Other.Example/a", url: "http://Other.Example/a",
             stubbedHost: "other.example"),
        Case(name: "a '..' segment is refused", target: "/api.shop.example/../etc/passwd", url: nil),
        Case(name: "a '.' segment is refused", target: "/api.shop.example/./menu", url: nil),
        Case(name: "a percent-encoded '..' segment is refused", target: "/api.shop.example/%2e%2E/menu", url: nil),
        Case(name: "a NUL byte, percent-encoded, is refused", target: "/api.shop.example/menu%00.json", url: nil),
        Case(name: "a broken percent-encoding is refused", target: "/api.shop.example/menu/%zz", url: nil),
        Case(name: "a dot segment in a proxy client's absolute URL is refused", target: "http://api.shop.example/a/%2e%2e/b", url: nil),
        Case(name: "a target that is neither a path nor an absolute URL is refused", target: "api.shop.example/v1", url: nil),
        Case(name: "three dots are a name, not a dot segment", target: "/api.shop.example/.../a", url: "https://api.shop.example/.../a",
             stubbedHost: "api.shop.example"),
        Case(name: "a dotted file name is not a dot segment", target: "/api.shop.example/.well-known/x", url: "https://api.shop.example/.well-known/x",
             stubbedHost: "api.shop.example"),
    ]

    @Test("which URL the rules see, and which targets are refused", arguments: cases)
    func route(_ c: Case) {
        let result = Self.router(forwardsMisses: c.forwardsMisses).route(target: c.target, hostHeader: c.host, serverAuthority: Self.server)
        switch result {
        case .success(let routed):
            #expect(routed.url.absoluteString == c.url, "routed to \(routed.url.absoluteString)")
            #expect(routed.stubbedHost == c.stubbedHost)
        case .failure(let refusal):
            #expect(c.url == nil, "refused: \(refusal.reason)")
            #expect(refusal.reason.contains("'"), "the reason names the target: \(refusal.reason)")
        }
    }

    @Test("the byte scan that skips decoding agrees with the segment-by-segment check",
          arguments: ["/", "/a/b", "/a/./b", "/a/../b", "/..", "/.", "/...", "/a/.b", "/a/b.", "/a//b", "", ".", "..", "/a/%2e", "/a\u{0}b"])
    func plainPaths(_ path: String) {
        #expect(HostRouter.isPlain(path) == (HostRouter.problem(inPath: path) == nil && !path.contains("%")))
    }

    struct OriginCase: Sendable, CustomTestStringConvertible {
        var target: String
        var expected: String
        var testDescription: String { target }
    }

    @Test("a request in absolute form naming the server itself is served as its path; any other target stays", arguments: [
        OriginCase(target: "http://127.0.0.1:8080/api.shop.example/fast", expected: "/api.shop.example/fast"),
        OriginCase(target: "http://localhost:8080/__stubkit/status", expected: "/__stubkit/status"),
        OriginCase(target: "http://127.0.0.1:8080?x=1", expected: "/?x=1"),
        OriginCase(target: "http://127.0.0.1:8080", expected: "/"),
        OriginCase(target: "http://api.shop.example/v1", expected: "http://api.shop.example/v1"),
        OriginCase(target: "http://127.0.0.1:9090/v1", expected: "http://127.0.0.1:9090/v1"),
        OriginCase(target: "https://127.0.0.1:8080/v1", expected: "https://127.0.0.1:8080/v1"),
        OriginCase(target: "/v1", expected: "/v1"),
    ])
    func originForm(_ c: OriginCase) {
        #expect(HostRouter.originForm(of: c.target, serverAuthority: Self.server) == c.expected)
    }

    @Test("domain-shaped first components", arguments: [
        ("api.example.com", true), ("a-b.example", true), ("x.y2.io", true), ("v1.2", false), ("favicon.ico", false),
        ("bundle.js", false), ("example", false), ("a..b", false), ("a.b_c.com", false), ("a.c", false),
    ])
    func domains(_ text: String, _ expected: Bool) {
        #expect(HostRouter.looksLikeDomain(text) == expected)
    }

    @Test("Host headers: this server by its port, a host without its port", arguments: [
        ("127.0.0.1:8080", true), ("localhost:8080", true), ("10.0.2.2:8080", true), ("api.shop.example", false), ("localhost:9090", false),
    ])
    func namesServer(_ header: String, _ expected: Bool) {
        #expect(HostRouter.namesServer(header, Self.server) == expected)
    }

    @Test func hostOnly() {
        #expect(HostRouter.hostOnly("API.Example:8443") == "api.example")
        #expect(HostRouter.hostOnly("api.example") == "api.example")
        #expect(HostRouter.hostOnly("[::1]:8080") == "[::1]:8080")
    }
}
#endif
