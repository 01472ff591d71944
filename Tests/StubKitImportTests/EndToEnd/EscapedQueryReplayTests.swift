#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// Every way a URL reaches a bundle (a HAR import, a recording, an export then a re-import) must give
/// a rule that answers that exact URL, whatever its path and query hold: the writers and the matcher
/// agree on one normalisation (RFC 3986 §6.2.2).
@Suite("escaped query values replay")
struct EscapedQueryReplayTests {
    static let seed: UInt64 = 0x5EED_0F_0E5C
    static let count = 60
    static let twinCount = 30

    /// The generated URLs, each with the body its rule must answer with; then pairs on one path
    /// that differ only in a `+` against a `%2B`, each with its own body.
    static func urls(base: String) -> [(url: String, body: String)] {
        var generator = QueryURLGenerator(random: .fromEnvironment(default: seed))
        let single = (0..<count).map { i in (url: generator.url(base: base, unique: i), body: "answer \(i)") }
        let twins = (count..<count + twinCount).flatMap { i in
            let twin = generator.plusTwins(base: base, unique: i)
            return [(url: twin.plain, body: "answer \(i) with +"), (url: twin.escaped, body: "answer \(i) with %2B")]
        }
        return single + twins
    }

    static var seedNote: String { "seed \(SeededGenerator.fromEnvironment(default: seed).seed) (STUBKIT_SEED reruns another)" }

    /// One HAR entry per URL, answering with its own body.
    static func har(_ urls: [(url: String, body: String)]) -> Data {
        harDocument(urls.map { url, body in
            ["request": ["method": "GET", "url": url],
             "response": ["status": 200, "content": ["size": body.utf8.count, "mimeType": "text/plain", "text": body]]]
        })
    }

    /// Imports a HAR document into `folder/name` and returns the bundle.
    static func importHAR(_ data: Data, into folder: TemporaryFolder, name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> URL {
        let file = try folder.file("\(name).har", data: data)
        let bundle = folder.url.appendingPathComponent(name)
        _ = try importFiles([file], to: bundle, format: .har, sourceLocation: sourceLocation)
        return bundle
    }

    /// The URLs the engine does not answer with their own body: the URL as parsed, and the
    /// `URLRequest` an app makes from the string, as `canInit` receives it. (Sending it through a
    /// session is the recording suite's part: the protocol serves one process-wide engine.)
    static func misses(_ urls: [(url: String, body: String)], bundle: URL) throws -> [String] {
        let engine = StubEngine(killSwitch: true)
        _ = try engine.activate(folder: bundle)
        var misses: [String] = []
        for (url, body) in urls {
            let parsed = try #require(URL(string: url), "\(url) is a URL")
            for (how, request) in [("URL", StubRequest(url: parsed)), ("URLRequest", StubRequest(URLRequest(url: parsed)))] {
                let matched = engine.match(request).map { String(decoding: bodyData(of: $0.response), as: UTF8.self) }
                if matched != body { misses.append("\(how): \(url) -> \(matched ?? "no rule")") }
            }
        }
        return misses
    }

    @Test("a HAR holding the URL imports into a rule that answers it; exported and imported again, it still does")
    func harImportAndRoundTrip() throws {
        let folder = try TemporaryFolder()
        let urls = Self.urls(base: "https://api.example.test")
        let first = try Self.importHAR(Self.har(urls), into: folder, name: "first")
        let missesFirst = try Self.misses(urls, bundle: first)
        #expect(missesFirst.isEmpty, "\(Self.seedNote)\n\(missesFirst.joined(separator: "\n"))")

        let (exported, _) = try HARExporter().export([first])
        let second = try Self.importHAR(exported, into: folder, name: "second")
        let missesSecond = try Self.misses(urls, bundle: second)
        #expect(missesSecond.isEmpty, "\(Self.seedNote)\n\(missesSecond.joined(separator: "\n"))")
    }
}

extension EscapedQueryReplayTests {
    @Test("HAR → bundle → HAR → bundle keeps a query that repeats a name and holds ~ ( ) %7C: the export does not add its items twice",
          arguments: ["https://api.example.test/v?f=(a)~b&f=%7Cc", "https://api.example.test/list?sort=name~asc&filter=(x%7Cy)&filter=(z)"])
    func pinnedQueryRoundTrip(_ url: String) throws {
        let folder = try TemporaryFolder()
        let urls = [(url: url, body: "answer")]
        let first = try Self.importHAR(Self.har(urls), into: folder, name: "first")
        let (exported, _) = try HARExporter().export([first])
        let har = try JSONSerialization.jsonObject(with: exported) as? [String: Any]
        let entries = (har?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        #expect((entries.first?["request"] as? [String: Any])?["url"] as? String == url, "the export's request is the imported one")
        let second = try Self.importHAR(exported, into: folder, name: "second")
        let misses = try Self.misses(urls, bundle: second)
        #expect(misses.isEmpty, "\(misses.joined(separator: "\n"))")
    }

    @Test("a rule pinning a query with a repeated name answers its escapes in either case, and tells + from %2B",
          arguments: [("https://api.example.test/v?f=a%7Cb&f=%C3%A9", "https://api.example.test/v?f=a%7cb&f=%c3%a9")])
    func pinnedQueryEscapeCase(_ recorded: String, _ sent: String) throws {
        let folder = try TemporaryFolder()
        let plus = recorded + "&f=1+2", escaped = recorded + "&f=1%2B2"
        let bundle = try Self.importHAR(Self.har([(plus, "plain"), (escaped, "escaped")]), into: folder, name: "pinned")
        let misses = try Self.misses([(sent + "&f=1+2", "plain"), (sent + "&f=1%2b2", "escaped")], bundle: bundle)
        #expect(misses.isEmpty, "\(misses.joined(separator: "\n"))")
    }
}
#endif
