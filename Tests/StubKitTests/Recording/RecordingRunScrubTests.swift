import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Findings of the second record-mode review: a secret learned late leaves no earlier file holding it,
/// a `.stubkit-pending` file never deletes what is in use, scrubbing is deterministic, and a failed
/// capture of a streamed body holds nothing in memory.
struct RecordingRunScrubTests {
    @Test("a JWT first seen in a GraphQL login body is removed from that file once an Authorization header reveals it")
    func secretLearnedLater() throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url))
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.sekret-jwt-sig-912"
        let login = StubRequest(method: "POST", url: URL(string: "https://api.test/graphql")!, headers: ["Content-Type": "application/json"],
                                body: Data(#"{"query":"mutation { login(user: \"ann\") { jwt } }"}"#.utf8))
        let first = try #require(recorder.makeCapture())
        first.append(Data(#"{"data":{"login":{"user":"ann","session":"\#(jwt)"}}}"#.utf8))
        let loginFile = try recorder.record(login, status: 200, headers: ["Content-Type": "application/json"], capture: first).get()
        // `session` is data in a JSON document, so the login body still holds the JWT here.
        let before = try String(contentsOf: recorder.writer.folder.appendingPathComponent(loginFile), encoding: .utf8)
        #expect(before.contains(jwt))

        let me = StubRequest(url: URL(string: "https://api.test/me")!, headers: ["Authorization": "Bearer \(jwt)"])
        let second = try #require(recorder.makeCapture())
        second.append(Data(#"{"name":"Ann"}"#.utf8))
        _ = try recorder.record(me, status: 200, headers: ["Content-Type": "application/json"], capture: second).get()
        for name in try FileManager.default.contentsOfDirectory(atPath: recorder.writer.folder.path) {
            let text = try String(contentsOf: recorder.writer.folder.appendingPathComponent(name), encoding: .utf8)
            #expect(!text.contains(jwt), "\(name) still holds the JWT: \(text)")
            #expect(!name.hasPrefix("."), "leftover \(name)")
        }
        let result = BundleLoader(options: .lint).load(folder: recorder.writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    }

    @Test("a hostile .stubkit-pending file deletes nothing the bundle uses, and nothing before a refusal")
    func hostilePendingFile() throws {
        let folder = try TemporaryFolder()
        let rules = #"{"rules":[{"path":"/a","response":"./GET_a.json"},{"path":"/b","responses":[{"response":"GET_b.json"}]}]}"#
        try folder.file("b/stubsRules.json", data: Data(rules.utf8))
        for name in ["GET_a.json", "GET_b.json", "GET_c.json", "notes.txt"] { try folder.file("b/\(name)", data: Data("{}".utf8)) }
        try folder.file("b/GET_dir/inner.json", data: Data("{}".utf8))
        let pending = ["stubsRules.json", "GET_a.json", "./GET_a.json", "GET_b.json", "notes.txt", "GET_dir", "../x", "GET_c.json"]
        try folder.file("b/\(BundleWriter.pendingFileName)", data: Data(pending.joined(separator: "\n").utf8))
        let bundle = folder.url.appendingPathComponent("b")
        _ = try BundleWriter(folder: bundle)
        let fm = FileManager.default
        for kept in ["stubsRules.json", "GET_a.json", "GET_b.json", "notes.txt", "GET_dir/inner.json"] {
            #expect(fm.fileExists(atPath: bundle.appendingPathComponent(kept).path), "\(kept) was deleted")
        }
        #expect(!fm.fileExists(atPath: bundle.appendingPathComponent("GET_c.json").path), "the unfinished append's own file stays")
        #expect(!fm.fileExists(atPath: bundle.appendingPathComponent(BundleWriter.pendingFileName).path))

        // A plist bundle is refused before any pending file is acted on.
        try folder.file("p/stubsRules.plist", data: Data("<plist/>".utf8))
        try folder.file("p/GET_x.json", data: Data("{}".utf8))
        try folder.file("p/\(BundleWriter.pendingFileName)", data: Data("GET_x.json\n".utf8))
        #expect(throws: RecordingError.self) { _ = try BundleWriter(folder: folder.url.appendingPathComponent("p")) }
        #expect(fm.fileExists(atPath: folder.url.appendingPathComponent("p/GET_x.json").path))
    }

    @Test("secrets of equal length are replaced in a fixed order: longest first, then by text")
    func deterministicScrubOrder() {
        // Overlapping pairs: whichever is replaced first decides the output.
        var secrets: Set<String> = []
        var text = "", expected = ""
        for i in 0..<12 {
            let letter = Character(UnicodeScalar(UInt8(97 + i)))
            let a = "\(letter)bcdef1", b = "bcdef1x"  // equal length, overlapping in "bcdef1"
            secrets.insert(a); secrets.insert(b)
            text += "\(a)x "
            // Sorted: abcdef1, bbcdef1, bcdef1x, cbcdef1, …: the first two go before the shared one.
            expected += a < b ? "\(Redactor.placeholder)x " : "\(letter)\(Redactor.placeholder) "
        }
        #expect(Recorder.scrub(text, secrets: secrets).0 == expected)
    }

    @Test("a streamed body whose capture failed (disk full) is not kept in memory")
    func failedStreamedCaptureHoldsNothing() throws {
        let capture = try #require(ResponseCapture(writingTo: URL(fileURLWithPath: "/dev/full"), removesFile: false))
        for _ in 0..<4 { capture.append(Data(repeating: 7, count: 64 << 10), keepingOnFailure: false) }
        #expect(capture.failed != nil)
        #expect(capture.heldInMemory == 0)
        // A one-piece task still gets the whole body.
        let whole = try #require(ResponseCapture(writingTo: URL(fileURLWithPath: "/dev/full"), removesFile: false))
        for _ in 0..<4 { whole.append(Data(repeating: 7, count: 64 << 10), keepingOnFailure: true) }
        #expect(whole.wholeBody()?.count == 4 * (64 << 10))
    }
}
