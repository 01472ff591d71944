import Foundation
import Testing
@testable import StubKit
import StubKitTesting
import StubKitTestSupport

/// The live journal file read in one process: lines are taken whole, bad lines are named, not fatal.
struct LiveJournalTests {
    func line(id: Int, path: String) -> Data {
        let entry = JournalEntry(id: id, startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 0.25,
                                 request: StubRequest(method: "POST", url: URL(string: "https://api.example\(path)")!, headers: ["X-A": "b"], body: Data("Grüß".utf8)),
                                 bundle: nil, rule: nil, status: nil, responseHeaders: [:], responseBody: nil, responseBodySize: 0,
                                 error: .init(code: -1009, description: "offline"), nearMisses: [])
        return LiveJournalLine.request(entry).encoded
    }

    @Test("a journal entry names its rule by file:line:column and key path, put together only when read, and across processes")
    func ruleReferenceIsPutTogetherWhenRead() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("refs", ["stubsRules.json": "[\n  { \"path\": \"/a\" },\n  { \"name\": \"menu\", \"path\": \"/menu\", \"body\": \"{}\" }\n]\n"])
        let rules = BundleLoader().load(folder: bundle).bundle.rules
        let rule = try #require(rules.last)
        let lazy = JournalEntry.RuleReference(rule)
        let location = bundle.appendingPathComponent("stubsRules.json").path + ":3:3"
        #expect(lazy.name == "menu" && lazy.keyPath == "[1]")
        #expect(lazy.location == location)
        // One made from text (what a test runner reads from the live journal) is the same reference.
        let eager = JournalEntry.RuleReference(name: "menu", location: location, keyPath: "[1]")
        #expect(lazy == eager && Set([lazy, eager]).count == 1)
        #expect(String(describing: lazy) == String(describing: eager) && String(describing: lazy).contains("menu"), "\(lazy)")
        var moved = lazy
        moved.location = "other.json:1:1"
        #expect(moved.location == "other.json:1:1" && moved.name == "menu" && moved != lazy)
        var renamed = lazy
        renamed.name = "lunch menu"
        #expect(renamed.name == "lunch menu" && renamed.location == location && renamed.keyPath == "[1]")
        // A rule without a name is named by its method and path, when read.
        let unnamed = JournalEntry.RuleReference(try #require(rules.first))
        #expect(unnamed.name == rules[0].displayName && unnamed.name.hasSuffix("/a") && unnamed.location == bundle.appendingPathComponent("stubsRules.json").path + ":2:3")

        let entry = JournalEntry(id: 7, startedAt: Date(timeIntervalSince1970: 1_700_000_000), duration: 0, request: StubRequest(url: URL(string: "https://h/menu")!),
                                 bundle: "refs", rule: lazy, status: 200, responseHeaders: [:], responseBody: nil, responseBodySize: 0, error: nil, nearMisses: [])
        guard case .request(let read)? = try LiveJournalLine(decoding: LiveJournalLine.request(entry).encoded) else {
            Issue.record("the live journal line was not read back as a request")
            return
        }
        #expect(read.rule == lazy && read.rule?.location == location)
    }

    @Test("half a line is not read until its newline arrives; the rest wakes the wait; a bad line is named")
    func partialLines() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-live-test-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = try LiveJournal(url: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let whole = line(id: 1, path: "/orders")
        try handle.write(contentsOf: whole.prefix(20))
        #expect(journal.entries.isEmpty)
        try await journal.waitForRequest(matching: RequestPredicate("POST", path: "/orders"), count: 1, timeout: 120,
                                         whenArmed: { try? handle.write(contentsOf: whole.dropFirst(20) + Data("not json\n".utf8)) })
        let entry = try #require(journal.entries.first)
        #expect(entry.id == 1 && entry.request.header("x-a") == "b" && entry.error?.code == -1009)
        #expect(entry.request.body == Data("Grüß".utf8) && entry.startedAt == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(entry.summary == "POST https://api.example/orders → error -1009 (no rule)")
        #expect(journal.problems.count == 1)
        #expect(journal.problems.first?.hasPrefix("\(url.path):2: ") == true, "\(journal.problems)")
    }

    @Test("a journal file deleted and re-created while a wait is pending is read from its start")
    func replacedFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-live-test-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = try LiveJournal(url: url)
        // The old file is longer than the new one: an offset kept across the replacement skips its line.
        try (line(id: 1, path: "/first") + line(id: 2, path: "/first")).write(to: url)
        try await journal.waitForRequest(matching: RequestPredicate("POST", path: "/first"), count: 2, timeout: 60, whenArmed: nil)
        try await journal.waitForRequest(matching: RequestPredicate("POST", path: "/replaced"), count: 1, timeout: 60, whenArmed: {
            try? FileManager.default.removeItem(at: url)
            _ = FileManager.default.createFile(atPath: url.path, contents: self.line(id: 1, path: "/replaced"))
        })
        #expect(journal.entries.map(\.request.url.path) == ["/first", "/first", "/replaced"])
        #expect(journal.problems.isEmpty, "\(journal.problems)")
    }

    @Test("a journal file truncated in place and appended to is read from its start")
    func truncatedFile() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-live-test-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: url) }
        let journal = try LiveJournal(url: url)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.write(contentsOf: line(id: 1, path: "/first") + line(id: 2, path: "/first"))
        try await journal.waitForRequest(matching: RequestPredicate("POST", path: "/first"), count: 2, timeout: 60, whenArmed: nil)
        try await journal.waitForRequest(matching: RequestPredicate("POST", path: "/after-truncation"), count: 1, timeout: 60, whenArmed: {
            try? handle.truncate(atOffset: 0)
            try? handle.write(contentsOf: self.line(id: 1, path: "/after-truncation"))
        })
        #expect(journal.entries.map(\.request.url.path) == ["/first", "/first", "/after-truncation"])
        #expect(journal.problems.isEmpty, "\(journal.problems)")
    }

    @Test("a live journal path that cannot be opened stops activation with an error naming STUB_JOURNAL_LIVE")
    func unopenablePath() {
        var configuration = StubLaunchSettings(templates: ["restaurants_base"])
        configuration.liveJournalPath = "/nonexistent-folder/live.jsonl"
        let locator = BundleLocator(explicitFolder: PackagePaths.stubBundles, environment: [:])
        do {
            _ = try StubActivation.prepare(configuration, locator: locator)
            Issue.record("activation succeeded without its live journal")
        } catch {
            #expect(error.description.contains("STUB_JOURNAL_LIVE=/nonexistent-folder/live.jsonl: cannot open it for appending"), "\(error.description)")
        }
    }
}
