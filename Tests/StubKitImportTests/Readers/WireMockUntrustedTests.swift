#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// WireMock roots from elsewhere are untrusted: a `bodyFileName` must not reach files outside
/// `__files`, and nothing the mapping asks for is dropped in silence.
@Suite("WireMock untrusted input")
struct WireMockUntrustedTests {
    @Test("a bodyFileName with '..' or a symbolic link out of __files copies nothing and is reported")
    func bodyFileOutsideFiles() throws {
        let folder = try TemporaryFolder()
        let secret = try folder.file("secret/id_rsa", data: Data("PRIVATE-KEY-BYTES".utf8))
        let wm = try wireMockRoot(folder, mappings: [
            "a-dots.json": #"{"request": {"url": "/dots"}, "response": {"status": 200, "bodyFileName": "../../secret/id_rsa"}}"#,
            "b-link.json": #"{"request": {"url": "/link"}, "response": {"status": 200, "bodyFileName": "inside/key"}}"#,
            "c-fine.json": #"{"request": {"url": "/fine"}, "response": {"status": 200, "bodyFileName": "ok.txt"}}"#,
        ], files: ["ok.txt": Data("fine".utf8)])
        try FileManager.default.createDirectory(at: wm.appendingPathComponent("__files/inside"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: wm.appendingPathComponent("__files/inside/key"), withDestinationURL: secret)
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        let written = try FileManager.default.contentsOfDirectory(atPath: bundle.path)
            .compactMap { FileManager.default.contents(atPath: bundle.appendingPathComponent($0).path) }
        #expect(!written.contains { String(decoding: $0, as: UTF8.self).contains("PRIVATE-KEY-BYTES") }, "the secret was copied into the bundle")
        let outside = report.notes.filter { $0.message.contains("resolves outside") }
        #expect(outside.count == 2, "\(report.notes)")
        #expect(outside.contains { $0.source.hasSuffix("a-dots.json") } && outside.contains { $0.source.hasSuffix("b-link.json") })
        #expect(report.exitCode == 1)
        let notes = try String(contentsOf: bundle.appendingPathComponent("IMPORT-NOTES.md"), encoding: .utf8)
        #expect(notes.contains("../../secret/id_rsa"))
        try Replay.check([ExpectedExchange(source: "fine", method: "GET", url: "http://localhost/fine", status: 200, responseBody: Data("fine".utf8))], bundle: bundle)
    }

    @Test("a bodyFileName naming __files itself ('.', 'x/..') is reported as a folder and the mapping kept without a body")
    func bodyFileNamesAFolder() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: [
            "a-dot.json": #"{"request": {"url": "/dot"}, "response": {"status": 204, "bodyFileName": "."}}"#,
            "b-up.json": #"{"request": {"url": "/up"}, "response": {"status": 204, "bodyFileName": "sub/.."}}"#,
        ], files: ["sub/x.txt": Data("x".utf8)])
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        let folders = report.notes.filter { $0.message.contains("names a folder") }
        #expect(folders.count == 2, "\(report.notes)")
        #expect(!report.notes.contains { $0.message.contains("is not in") }, "a folder is not a missing file: \(report.notes)")
        try Replay.check([ExpectedExchange(source: "dot", method: "GET", url: "http://localhost/dot", status: 204, responseBody: Data()),
                          ExpectedExchange(source: "up", method: "GET", url: "http://localhost/up", status: 204, responseBody: Data())], bundle: bundle)
    }
}

#endif
