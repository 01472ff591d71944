import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The fast paths of building a request and matching a path give exactly what the plain ways give.
struct RequestNormalizationTests {
    static let texts = ["GET", "get", "gEt", "POST", "", "Host.Example", "api.example.com", "X-Request-ID", "x-request-id",
                        "straße", "Straße", "ÉCOLE", "école", "İstanbul", "ﬁle", "ǅ", "a1-B2_c3.D4", "\u{0130}", "ß"]

    @Test("method, scheme, host and header names are cased as uppercased()/lowercased() would, ASCII or not")
    func casing() throws {
        for text in Self.texts {
            #expect(StubRequest.asciiCased(text, upper: true) == text.uppercased(), "\(text)")
            #expect(StubRequest.asciiCased(text, upper: false) == text.lowercased(), "\(text)")
            let request = StubRequest(method: text.isEmpty ? "GET" : text, url: URL(string: "https://API.Example.COM/a")!, headers: [text: "v", "Accept": "x"])
            #expect(request.method == (text.isEmpty ? "GET" : text.uppercased()))
            #expect(request.headers[text.lowercased()] == "v" && request.headers["accept"] == "x")
            #expect(request.host == "api.example.com" && request.scheme == "https")
        }
    }

    @Test("path segments: percent-escapes decoded only where present, empty segments dropped")
    func segments() {
        let plain = StubRequest(url: URL(string: "https://h//api/v1/resource500/42/")!)
        #expect(plain.pathSegments == ["api", "v1", "resource500", "42"])
        let escaped = StubRequest(url: URL(string: "https://h/files/a%20b/%C3%A9t%C3%A9/plain")!)
        #expect(escaped.pathSegments == ["files", "a b", "été", "plain"])
    }

    @Test("query items as the bundle format's 'query' key describes: split on & and the first =, then decoded; escape case and + as documented")
    func queryItems() throws {
        let request = StubRequest(url: URL(string: "https://h/s?a=%7c%7C&b=x%26y%3Dz&c=1+2&d=1%2B2&e=a%20b&f&g=1=2&h=5%25&a=second")!)
        func compared(_ name: String) -> String? { request.queryValue(for: .equals(""), named: name) }
        #expect(compared("a") == "||" && request.queryValue("a") == "||", "escape case does not matter; the first of a repeated name")
        #expect(compared("b") == "x&y=z", "escaped separators stay data")
        #expect(compared("c") == "1+2" && compared("d") == "1%2B2", "+ and %2B compare apart")
        #expect(request.queryValue("c") == "1+2" && request.queryValue("d") == "1+2", "both are a plus decoded (templates, regexes)")
        #expect(request.queryValue(for: .matches(try RegexPattern("x")), named: "d") == "1+2", "a regex sees the decoded value")
        #expect(compared("h") == "5%25" && request.queryValue("h") == "5%", "%25 compares as an escape, decodes to %")
        #expect(compared("e") == "a b" && compared("f") == "" && compared("g") == "1=2")
        #expect(request.queryItems.count == 9)
    }

    @Test("a query without % gives one list of items for comparing and for templates (no second allocation)")
    func plainQueryShared() {
        let request = StubRequest(url: URL(string: "https://h/s?a=1+2&b=x")!)
        request.queryItems.withUnsafeBufferPointer { decoded in
            request.comparableQueryItems.withUnsafeBufferPointer { compared in #expect(decoded.baseAddress == compared.baseAddress) }
        }
    }

    // On Apple platforms a path bridged from NSString has no contiguous UTF-8 bytes and takes the split
    // through the view; on Linux every string is native, so the two are compared directly.
    @Test("the path split through the UTF-8 view (bridged strings) gives the byte scan's segments (fixed seed)")
    func segmentSplitsAgree() {
        let seed: UInt64 = 0x5E6_11E7
        var rng = SeededGenerator(seed: seed)
        let pieces = ["/", "/", "//", "a", "v1", "été", "e\u{301}", "🍕", "🇫🇷", "%2F", "日本", "\r\n", "{id}", "x/\u{301}", " "]
        for _ in 0..<5_000 {
            let path = (0..<Int.random(in: 0...8, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let fast = PathPattern.segments(ofPath: path), view = PathPattern.segmentsThroughView(ofPath: path)
            #expect(fast == view, "seed \(seed): \(path.debugDescription)")
            #expect(fast.map { path.utf8.distance(from: path.utf8.startIndex, to: $0.startIndex) }
                    == view.map { path.utf8.distance(from: path.utf8.startIndex, to: $0.startIndex) }, "seed \(seed): \(path.debugDescription)")
        }
    }

    @Test("a request is a value: a changed copy leaves the original alone; copies share the decoded body until one's body changes")
    func requestsAreValues() throws {
        let original = StubRequest(method: "post", url: URL(string: "https://h/graphql")!, headers: ["X-Op": "A"], body: Data(#"{"operationName":"A"}"#.utf8))
        var copy = original
        #expect(copy.bodyJSON == .object(["operationName": .string("A")]))
        #expect(original.holdsDecodedBody, "a copy decodes the body for the original too")
        copy.method = "PUT"
        copy.headers["x-op"] = "B"
        copy.body = Data(#"{"operationName":"B"}"#.utf8)
        copy.bodyPending = true
        #expect(original.method == "POST" && original.headers == ["x-op": "A"] && !original.bodyPending)
        #expect(original.bodyText == #"{"operationName":"A"}"# && original.bodyJSON == .object(["operationName": .string("A")]))
        #expect(copy.method == "PUT" && copy.headers["x-op"] == "B" && copy.bodyPending)
        #expect(!copy.holdsDecodedBody, "a new body is decoded afresh")
        #expect(copy.bodyJSON == .object(["operationName": .string("B")]))
        #expect(copy.pathSegments == ["graphql"] && copy.host == "h" && copy.scheme == "https")
        // Printed (and shown in test failures) with its parts, not its box.
        #expect(String(describing: original).contains("POST") && String(describing: original).contains("https://h/graphql"), "\(original)")
        // The journal drops what a copy decoded; the request it came from keeps its own.
        var kept = original
        kept.dropDecodedBody()
        #expect(!kept.holdsDecodedBody && original.holdsDecodedBody && kept.body == original.body)
    }

    @Test("PathPattern.matches agrees with match(_:) on generated patterns and paths (fixed seed)")
    func matchesAgreesWithMatch() {
        let seed: UInt64 = 0x9A7_4C3
        var rng = SeededGenerator(seed: seed)
        let words = ["a", "b", "users", "42", "v1"]
        let pieces = words + ["{id}", "*", "**"]
        for _ in 0..<3_000 {
            let text = "/" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined(separator: "/")
            // A parameter named twice is refused; such patterns are skipped.
            guard let pattern = try? PathPattern(parsing: text) else { continue }
            let segments = (0..<Int.random(in: 0...5, using: &rng)).map { _ in Substring(words.randomElement(using: &rng)!) }
            #expect(pattern.matches(segments) == (pattern.match(segments) != nil), "seed \(seed): \(pattern) against /\(segments.joined(separator: "/"))")
        }
    }
}
