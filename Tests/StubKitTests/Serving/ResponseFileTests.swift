import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Response files as the app receives them: links resolved, only regular files, headers that follow
/// the rule, and a journal that stays within its limits.
@Suite(.serialized)
struct ResponseFileTests {
    @Test("a response file that is a link to another file in the bundle is served with the target's length")
    func symlinkedResponse() async throws {
        let folder = try TemporaryFolder()
        let target = #"{"menu": ["margherita", "marinara", "quattro formaggi"]}"#
        let bundle = try folder.bundle("links", ["stubsRules.json": #"[ { "path": "/menu", "response": "menu.json" } ]"#,
                                                 "data/real-menu-file.json": target])
        try FileManager.default.createSymbolicLink(atPath: bundle.appendingPathComponent("menu.json").path,
                                                   withDestinationPath: "data/real-menu-file.json")
        let engine = StubEngine()
        try engine.activate(folder: bundle)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://any.test/menu")
        #expect(result.text == target)
        #expect(result.response?.value(forHTTPHeaderField: "Content-Length") == String(target.utf8.count))
        #expect(engine.journal.entries.last?.responseBodySize == target.utf8.count)
        // The linter does not call the link's target unused.
        let linted = BundleLoader(options: .lint).load(folder: bundle)
        #expect(!linted.diagnostics.contains { $0.code == .unusedFile })
    }

    @Test("a response file that is a named pipe is a load-time error, never a hang")
    func fifoIsRefused() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("pipes", ["stubsRules.json": #"[ { "path": "/a", "response": "pipe.json" }, { "path": "/b", "body": "fine" } ]"#])
        #expect(mkfifo(bundle.appendingPathComponent("pipe.json").path, 0o644) == 0)
        let result = BundleLoader().load(folder: bundle)
        let error = try #require(result.diagnostics.first { $0.severity == .error })
        #expect(error.code == .unreadableFile)
        #expect(error.keyPath == "[0].response")
        #expect(error.description.contains("named pipe"))
        #expect(result.bundle.rules.count == 1)
    }

    @Test("a response file replaced by a named pipe after loading fails the request at once instead of blocking")
    func fifoAtServeTime() async throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("later", ["stubsRules.json": #"[ { "path": "/a", "response": "a.json" }, { "path": "/b", "body": "fine" } ]"#,
                                                 "a.json": "{}"])
        let engine = StubEngine()
        try engine.activate(folder: bundle)
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("a.json"))
        #expect(mkfifo(bundle.appendingPathComponent("a.json").path, 0o644) == 0)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://any.test/a")
        #expect(result.error?.code == .cannotOpenFile)
        #expect(result.error?.localizedDescription.contains("not a regular file") == true)
        // And the next request is answered: nothing is stuck.
        #expect(await session.result("GET", "https://any.test/b").text == "fine")
    }

    @Test("changing a StubResponse's headers or body in code changes what is served")
    func responseChangedInCode() async throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("code", ["stubsRules.json": #"[ { "path": "/v", "body": "version one", "headers": { "X-Version": "1" } } ]"#])
        var loaded = BundleLoader().load(folder: bundle).bundle
        loaded.rules[0].response.headers = [(name: "X-Version", value: "2")]
        loaded.rules[0].response.body = .inline(Data("version two, longer".utf8))
        let engine = StubEngine()
        engine.activate(loaded)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://any.test/v")
        #expect(result.response?.value(forHTTPHeaderField: "X-Version") == "2")
        #expect(result.text == "version two, longer")
        #expect(result.response?.value(forHTTPHeaderField: "Content-Length") == "19")
    }

    @Test("a rule is a value: changing a copy in code changes neither the rule it was copied from nor what that one serves")
    func rulesAreValues() async throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("values", ["stubsRules.json": #"[ { "name": "menu", "path": "/menu", "body": "original" } ]"#])
        let loaded = BundleLoader().load(folder: bundle).bundle
        var changed = loaded
        changed.rules[0].name = "changed"
        changed.rules[0].priority = 9
        changed.rules[0].response.body = .inline(Data("changed".utf8))
        changed.rules[0].request.host = "elsewhere.test"
        #expect(loaded.rules[0].name == "menu" && loaded.rules[0].priority == 0 && loaded.rules[0].request.host == nil)
        #expect(changed.rules[0].name == "changed" && changed.rules[0].priority == 9 && changed.rules[0].request.host == "elsewhere.test")
        let engine = StubEngine()
        engine.activate(loaded)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://any.test/menu")
        #expect(result.text == "original")
        #expect(engine.journal.entries.last?.rule?.name == "menu")
    }

    @Test("the journal keeps its limits: oldest entries dropped and counted, bodies cut and marked in HAR and report")
    func journalLimits() async throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine(journalLimits: StubJournal.Limits(maximumEntries: 3, maximumBodySize: 8))
        try folder.activate(engine, bundle: "limits", rules: #"[ { "method": "POST", "path": "/echo", "body": "0123456789abcdef" } ]"#)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        for i in 0..<5 {
            _ = await session.result("POST", "https://any.test/echo", body: "request body number \(i)")
        }
        let entries = engine.journal.entries
        #expect(entries.count == 3)
        #expect(engine.journal.droppedEntryCount == 2)
        #expect(entries.map { $0.request.body.map { String(decoding: $0, as: UTF8.self) } } == ["request ", "request ", "request "])
        #expect(entries.last?.requestBodyTruncated == true)
        #expect(entries.last?.requestBodySize == "request body number 4".utf8.count)
        #expect(entries.last?.responseBody == Data("01234567".utf8))
        #expect(entries.last?.responseBodyTruncated == true)
        #expect(entries.last?.responseBodySize == 16)

        let har = try #require(try JSONSerialization.jsonObject(with: engine.journal.harData()) as? [String: Any])
        let log = try #require(har["log"] as? [String: Any])
        #expect((log["comment"] as? String)?.contains("dropped the 2 oldest") == true)
        let harEntries = try #require(log["entries"] as? [[String: Any]])
        let content = try #require((harEntries.last?["response"] as? [String: Any])?["content"] as? [String: Any])
        #expect((content["comment"] as? String)?.contains("first 8 of 16 bytes") == true)
        #expect(content["size"] as? Int == 16)

        let html = JournalReport(engine: engine).html
        #expect(html.contains("data-dropped=\"2\""))
        #expect(html.contains("response body truncated: 8 of 16 bytes kept"))
    }

    @Test("the journal shows the body that was sent, even when the (memory-mapped) response file is rewritten afterwards")
    func journalKeepsItsOwnCopyOfAMappedFile() async throws {
        let folder = try TemporaryFolder()
        // Over ResponseBodyReader.mapThreshold, so the body is read memory-mapped.
        let size = 200 << 10
        let sent = String(repeating: "a", count: size)
        let bundle = try folder.bundle("mapped", ["stubsRules.json": #"[ { "path": "/big", "response": "big.txt" } ]"#, "big.txt": sent])
        let engine = StubEngine()
        try engine.activate(folder: bundle)
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        let result = await session.result("GET", "https://any.test/big")
        #expect(result.data?.count == size)
        // Rewritten in place (same size, same inode): a mapping of the file would now show the new bytes.
        let handle = try FileHandle(forWritingTo: bundle.appendingPathComponent("big.txt"))
        try handle.write(contentsOf: Data(String(repeating: "b", count: size).utf8))
        try handle.close()
        let kept = try #require(engine.journal.entries.last?.responseBody)
        #expect(kept.count == size)
        #expect(kept.allSatisfy { $0 == UInt8(ascii: "a") }, "the journal's body changed with the file: it holds the mapping, not a copy")
    }

    @Test("the journal's total body budget drops the oldest entries")
    func journalByteBudget() {
        let journal = StubJournal(limits: StubJournal.Limits(maximumEntries: 100, maximumBodySize: 100, maximumTotalBodyBytes: 250))
        for i in 0..<10 {
            journal.record { id in
                JournalEntry(id: id, startedAt: Date(), duration: 0, request: StubRequest(url: URL(string: "https://h/\(i)")!), bundle: nil, rule: nil,
                             status: 200, responseHeaders: [:], responseBody: Data(count: 100), responseBodySize: 100, error: nil, nearMisses: [])
            }
        }
        #expect(journal.entries.map(\.request.url.lastPathComponent) == ["8", "9"])
        #expect(journal.droppedEntryCount == 8)
    }

    @Test("a body dropped from the journal is released at once, not held until the journal compacts its storage")
    func droppedBodiesAreReleased() {
        let journal = StubJournal(limits: StubJournal.Limits(maximumEntries: 100, maximumBodySize: 100, maximumTotalBodyBytes: 250))
        let released = Locked(false)
        // A body whose storage reports when it is freed (made in place: the test holds no reference to it).
        func watched() -> Data {
            Data(bytesNoCopy: UnsafeMutableRawPointer.allocate(byteCount: 100, alignment: 1), count: 100, deallocator: .custom { pointer, _ in
                pointer.deallocate()
                released.withLock { $0 = true }
            })
        }
        for i in 0..<4 {
            journal.record { id in
                JournalEntry(id: id, startedAt: Date(), duration: 0, request: StubRequest(url: URL(string: "https://h/\(i)")!), bundle: nil, rule: nil,
                             status: 200, responseHeaders: [:], responseBody: i == 0 ? watched() : Data(count: 100), responseBodySize: 100,
                             error: nil, nearMisses: [])
            }
        }
        #expect(journal.droppedEntryCount == 2)
        #expect(released.withLock { $0 }, "the dropped entry's body is still held")
    }
}
}
