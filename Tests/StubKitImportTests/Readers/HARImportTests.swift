#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

@Suite("HAR import and export")
struct HARImportTests {
    @Test("repeated requests to one URL become one rule whose responses keep the recorded order")
    func repeatedRequestsBecomeASequence() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("polls.har", data: harDocument((1...3).map { n in
            ["request": ["method": "GET", "url": "https://api.test/orders/9/status"],
             "response": ["status": 200, "headers": [["name": "Content-Type", "value": "application/json"]],
                          "content": ["size": 20, "mimeType": "application/json", "text": "{\"state\":\"step\(n)\"}"]]]
        }))
        let report = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        #expect(report.exitCode == 0)
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        try #require(rules.count == 1)
        let sequence = try #require(rules[0].sequence)
        #expect(sequence.responses.map { String(decoding: bodyData(of: $0), as: UTF8.self) } == ["{\"state\":\"step1\"}", "{\"state\":\"step2\"}", "{\"state\":\"step3\"}"])
    }

    @Test("base64 and gzip-declared bodies are stored decoded; the BOM is skipped; form params become the body condition")
    func bodiesDecoded() throws {
        let folder = try TemporaryFolder()
        var data = Data([0xEF, 0xBB, 0xBF])
        data += harDocument([
            // gzip of "hello gzip", base64 in the file, declared with Content-Encoding: gzip
            ["request": ["method": "GET", "url": "https://api.test/gz"],
             "response": ["status": 200, "headers": [["name": "Content-Encoding", "value": "gzip"], ["name": "Content-Type", "value": "text/plain"]],
                          "content": ["size": 10, "mimeType": "text/plain", "encoding": "base64", "text": "H4sIAAAAAAAC/8tIzcnJV0ivyiwAABlq0t8KAAAA"]]],
            ["request": ["method": "POST", "url": "https://api.test/login",
                         "postData": ["mimeType": "application/x-www-form-urlencoded", "params": [["name": "user", "value": "ann b"], ["name": "lang", "value": "en"]]]],
             "response": ["status": 204]],
        ])
        let har = try folder.file("bom.har", data: data)
        _ = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        try #require(rules.count == 2)
        #expect(String(decoding: bodyData(of: rules[0].response), as: UTF8.self) == "hello gzip")
        #expect(!rules[0].response.headers.contains { $0.name.lowercased() == "content-encoding" })
        #expect(rules[1].request.body == [.equals("user=ann%20b&lang=en")])
    }

    @Test("status 0, WebSocket upgrades and 304s are reported per entry; a corrupt gzip body is reported, not stored")
    func reportedEntries() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("odd.har", data: harDocument([
            ["request": ["method": "GET", "url": "https://api.test/blocked"], "response": ["status": 0]],
            ["request": ["method": "GET", "url": "https://api.test/ws"], "response": ["status": 101]],
            ["request": ["method": "GET", "url": "https://api.test/cached"],
             "response": ["status": 304, "content": ["size": 2, "mimeType": "application/json", "text": "{}"]]],
            ["request": ["method": "GET", "url": "https://api.test/broken"],
             "response": ["status": 200, "headers": [["name": "Content-Encoding", "value": "gzip"]],
                          "content": ["size": 24, "mimeType": "text/html", "encoding": "base64", "text": "H4sIAAAAAAAAAyE+EjNBD/iT6u4EAAAA"]]],
        ]))
        let report = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        #expect(report.exitCode == 1)
        let messages = report.notes.map(\.description)
        #expect(messages.count == 4, "\(messages)")
        #expect(messages.contains { $0.contains("log.entries[0]") && $0.contains("status 0") })
        #expect(messages.contains { $0.contains("log.entries[1]") && $0.contains("WebSocket") })
        #expect(messages.contains { $0.contains("log.entries[2]") && $0.contains("imported as 200") })
        #expect(messages.contains { $0.contains("log.entries[3]") && $0.contains("cannot be decompressed") })
        let markdown = try String(contentsOf: folder.url.appendingPathComponent("b/IMPORT-NOTES.md"), encoding: .utf8)
        #expect(markdown.contains("status 0") && markdown.contains("cannot be decompressed"))
        let rules = loadedRules(folder.url.appendingPathComponent("b"))
        #expect(rules.map(\.response.status) == [200])
    }

    @Test("secrets are redacted by default as in recording; --keep and --redact adjust the names")
    func redaction() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("login.har", data: harDocument([
            ["request": ["method": "POST", "url": "https://api.test/login?api_key=k-123456", "postData": ["mimeType": "application/json", "text": #"{"user":"ann","password":"hunter22"}"#]],
             "response": ["status": 200, "headers": [["name": "Content-Type", "value": "application/json"], ["name": "Set-Cookie", "value": "sid=abcdef123456"]],
                          "content": ["size": 40, "mimeType": "application/json", "text": #"{"access_token":"tok-987654","session":"s-42"}"#]]],
        ]))
        let plain = folder.url.appendingPathComponent("plain")
        let report = try importFiles([har], to: plain)
        #expect(report.redacted >= 4, "\(report.redacted)")
        let written = try FileManager.default.contentsOfDirectory(atPath: plain.path).map { try String(contentsOf: plain.appendingPathComponent($0), encoding: .utf8) }.joined()
        for secret in ["k-123456", "hunter22", "tok-987654", "abcdef123456"] { #expect(!written.contains(secret), "\(secret) written") }

        let adjusted = folder.url.appendingPathComponent("adjusted")
        let run = try ChildProcess.run("stubkit", arguments: ["import", har.path, "--to", adjusted.path, "--keep", "access_token", "--redact", "session"])
        #expect(run.status == 0, "\(run.stderr)")
        let body = try #require(loadedRules(adjusted).first).response
        let text = String(decoding: bodyData(of: body), as: UTF8.self)
        #expect(text.contains("tok-987654") && !text.contains("s-42"), "\(text)")
    }

    @Test("unreadable input exits 2 naming the file and line, and writes nothing")
    func unreadableInput() throws {
        let folder = try TemporaryFolder()
        let har = try folder.file("broken.har", data: Data("{\n  \"log\": {\n    \"entries\": [\n      {]\n".utf8))
        let bundle = folder.url.appendingPathComponent("b")
        let run = try ChildProcess.run("stubkit", arguments: ["import", har.path, "--to", bundle.path])
        #expect(run.status == 2)
        #expect(run.stderr.contains("\(har.path):4:8: error: not valid JSON"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: bundle.path))
    }

    @Test("HAR → bundle → HAR → bundle gives the same bundle and the same HAR", .enabled(if: RealWorldImportTests.enabled, "../shared/realworld is absent (CI requires it)"),
          arguments: RealWorldFile.all(.har).filter { !$0.isCorrupted })
    func roundTrip(_ file: RealWorldFile) throws {
        let folder = try TemporaryFolder()
        // The same template name, so the exported comments (template: rule) are comparable too.
        let first = folder.url.appendingPathComponent("1/bundle"), second = folder.url.appendingPathComponent("2/bundle")
        _ = try importFiles([file.url], to: first)
        // A webSocket rule's script has no HAR form in the bundle exporter (HARWebSocketImportTests covers its import).
        if loadedRules(first).contains(where: { $0.webSocket != nil }) { return }
        let exported = try HARExporter().export([first])
        let har = try folder.file("exported.har", data: exported.data)
        _ = try importFiles([har], to: second)
        try expectSameBundle(first, second)
        #expect(try HARExporter().export([second]).data == exported.data, "exporting the re-imported bundle gives the same HAR")
    }

    func expectSameBundle(_ a: URL, _ b: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let fm = FileManager.default
        let names = try fm.contentsOfDirectory(atPath: a.path).filter { $0 != "IMPORT-NOTES.md" }.sorted()
        #expect(names == (try fm.contentsOfDirectory(atPath: b.path).filter { $0 != "IMPORT-NOTES.md" }.sorted()), sourceLocation: sourceLocation)
        for name in names {
            #expect(fm.contents(atPath: a.appendingPathComponent(name).path) == fm.contents(atPath: b.appendingPathComponent(name).path), "\(name) differs", sourceLocation: sourceLocation)
        }
    }
}
#endif
