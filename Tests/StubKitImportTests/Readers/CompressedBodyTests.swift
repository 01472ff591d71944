#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// Bodies a HAR file stored still gzip-compressed: every member inflated, and a zip bomb refused.
@Suite("compressed bodies")
struct CompressedBodyTests {
    func gzippedHAR(_ body: Data) -> Data {
        harDocument([["request": ["method": "GET", "url": "https://api.test/z"],
                      "response": ["status": 200, "headers": [["name": "Content-Type", "value": "text/plain"], ["name": "Content-Encoding", "value": "gzip"]],
                                   "content": ["size": 0, "mimeType": "text/plain", "encoding": "base64", "text": body.base64EncodedString()]]]])
    }

    @Test("concatenated gzip members are all inflated, as gzip -d does")
    func multiMember() throws {
        let folder = try TemporaryFolder()
        let gzipped = try shellOutput("printf 'hello ' | gzip -c; printf 'world' | gzip -c")
        let har = try folder.file("z.har", data: gzippedHAR(gzipped))
        let bundle = folder.url.appendingPathComponent("b")
        let report = try importFiles([har], to: bundle)
        #expect(report.notes.isEmpty, "\(report.notes)")
        let rule = try #require(loadedRules(bundle).first)
        #expect(String(decoding: bodyData(of: rule.response), as: UTF8.self) == "hello world")
    }

    @Test("a body inflating past 64 MB + 100 × the input is reported as over the limit, not imported")
    func zipBomb() throws {
        let folder = try TemporaryFolder()
        // 200 MB of zeros: about 200 KB compressed, so the budget is about 64 MB + 27 MB.
        let bomb = try shellOutput("head -c 200000000 /dev/zero | gzip -c")
        let har = try folder.file("bomb.har", data: gzippedHAR(bomb))
        let report = try importFiles([har], to: folder.url.appendingPathComponent("b"))
        let note = try #require(report.notes.first, "\(report.notes)")
        #expect(note.message.contains("over the limit") && !note.message.contains("ends early"), "\(note.message)")
        #expect(report.rules == 0)
    }
}
#endif
