import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Requests that differ only where path and query conditions do not look (a trailing slash, the
/// scheme, the port, a repeated query name) are recorded as distinct rules, and each replays its own
/// answer; identical ones still become one rule with a sequence.
struct RecordingDistinctRequestsTests {
    /// Records each URL with the body `answer <i>` and returns the linted bundle.
    func record(_ urls: [String], in folder: TemporaryFolder, ignored: [RecorderConfiguration.VolatileField] = [],
                sourceLocation: SourceLocation = #_sourceLocation) throws -> (StubEngine, Int) {
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url, ignored: ignored))
        for (i, url) in urls.enumerated() {
            let capture = try #require(recorder.makeCapture(), sourceLocation: sourceLocation)
            capture.append(Data("answer \(i)".utf8))
            _ = try recorder.record(StubRequest(url: URL(string: url)!), status: 200, headers: ["Content-Type": "text/plain"], capture: capture).get()
        }
        let result = BundleLoader(options: .lint).load(folder: recorder.writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))", sourceLocation: sourceLocation)
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        return (engine, result.bundle.rules.count)
    }

    func answer(_ engine: StubEngine, _ url: String) -> String? {
        guard case .answer(let match) = engine.decision(for: StubRequest(url: URL(string: url)!)) else { return nil }
        switch match.response.body {
        case .file(let file): return try? String(contentsOf: file, encoding: .utf8)
        case .inline(let data): return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }

    @Test("/a and /a/, http and https, and another port are four rules, each answering its own request")
    func slashSchemeAndPort() throws {
        let urls = ["http://h.test/a", "http://h.test/a/", "https://h.test/a", "http://h.test:8080/a"]
        let folder = try TemporaryFolder()
        let (engine, count) = try record(urls, in: folder)
        #expect(count == 4)
        for (i, url) in urls.enumerated() {
            #expect(answer(engine, url) == "answer \(i)", "\(url)")
        }
        #expect(answer(engine, "http://h.test:80/a") == "answer 0", "the default port written out is the same request")
        #expect(answer(engine, "http://h.test:9090/a") == nil)
    }

    @Test("a rule pinned by port or trailing slash still matches its query in any order and encoding")
    func pinnedQueryOrder() throws {
        let folder = try TemporaryFolder()
        let (engine, count) = try record(["http://h.test:8080/a?x=1&y=2", "http://h.test:9090/a?x=1&y=2", "http://h.test/b/?q=a%20b&n=1", "http://h.test/b?q=c"], in: folder)
        #expect(count == 4)
        #expect(answer(engine, "http://h.test:8080/a?y=2&x=1") == "answer 0")
        #expect(answer(engine, "http://h.test:8080/a?x=%31&y=2") == "answer 0")
        #expect(answer(engine, "http://h.test:9090/a?y=2&x=1") == "answer 1")
        #expect(answer(engine, "http://h.test/b/?n=1&q=a+b") == "answer 2" || answer(engine, "http://h.test/b/?n=1&q=a%20b") == "answer 2")
        #expect(answer(engine, "http://h.test:8080/a?x=2&y=2") == nil)
        #expect(answer(engine, "http://h.test/b?q=c") == "answer 3")
    }

    @Test("identical requests still make one rule whose responses replay in order")
    func identicalStillGrouped() throws {
        let folder = try TemporaryFolder()
        let (engine, count) = try record(["http://h.test/a?x=1", "http://h.test/a?x=1"], in: folder)
        #expect(count == 1)
        #expect(answer(engine, "http://h.test/a?x=1") == "answer 0")
        #expect(answer(engine, "http://h.test/a?x=1") == "answer 1")
    }

    @Test("a repeated query name is recorded with all its values, in order, and matched that way")
    func repeatedQueryNames() throws {
        let folder = try TemporaryFolder()
        let (engine, count) = try record(["https://h.test/items?id=1&id=2", "https://h.test/items?id=1&id=3", "https://h.test/items?id=1"], in: folder)
        #expect(count == 3)
        #expect(answer(engine, "https://h.test/items?id=1&id=2") == "answer 0")
        #expect(answer(engine, "https://h.test/items?id=1&id=3") == "answer 1")
        #expect(answer(engine, "https://h.test/items?id=1") == "answer 2")
        #expect(answer(engine, "https://h.test/items?id=1&id=2&id=3") == nil)
        #expect(answer(engine, "https://h.test/items?id=2&id=1") == nil)
    }

    @Test("an ignored or secret item among repeated names matches any value")
    func repeatedWithVolatile() throws {
        let folder = try TemporaryFolder()
        let (engine, _) = try record(["https://h.test/items?id=1&id=2&ts=100&token=sekret-rep-123"], in: folder, ignored: [.query("ts")])
        #expect(answer(engine, "https://h.test/items?id=1&id=2&ts=999&token=other") == "answer 0")
        let rules = try String(contentsOf: folder.url.appendingPathComponent("rec/stubsRules.json"), encoding: .utf8)
        #expect(!rules.contains("sekret-rep-123") && !rules.contains("100"))
    }

    @Test("a multipart upload replays whatever boundary the app makes for it")
    func multipartBoundary() throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url))
        func upload(_ boundary: String) -> StubRequest {
            let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a.txt\"\r\n\r\nhello\r\n--\(boundary)--\r\n"
            return StubRequest(method: "POST", url: URL(string: "https://h.test/upload")!,
                               headers: ["Content-Type": "multipart/form-data; boundary=\(boundary)"], body: Data(body.utf8))
        }
        let capture = try #require(recorder.makeCapture())
        capture.append(Data("stored".utf8))
        _ = try recorder.record(upload("Boundary-1111"), status: 201, headers: ["Content-Type": "text/plain"], capture: capture).get()
        let result = BundleLoader(options: .lint).load(folder: recorder.writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        guard case .answer(let match) = engine.decision(for: upload("Boundary-2222")) else {
            Issue.record("the replayed upload with a new boundary was not answered")
            return
        }
        #expect(match.response.status == 201)
    }
}
