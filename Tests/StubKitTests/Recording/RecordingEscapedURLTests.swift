#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// Generated URLs with every character class in their path and query, recorded from a loopback
/// backend: each must replay to its own answer, from the bundle and from the journal's HAR imported again.
@Suite(.serialized)
struct RecordingEscapedURLTests {
    static let seed: UInt64 = 0x5EED_0F_0E5D

    /// Answers each request with its request target as the server read it, so every URL has its own body.
    static func backend() throws -> LoopbackServer {
        try LoopbackServer { request in
            let target = request.line.split(separator: " ").dropFirst().first.map(String.init) ?? ""
            return (200, ["Content-Type": "text/plain"], Data("target \(target)".utf8))
        }
    }

    /// The URLs whose answer through a session stubbed by `engine` is not `expected`'s.
    static func misses(_ urls: [String], expected: [String], engine: StubEngine) async -> [String] {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        var misses: [String] = []
        for (url, body) in zip(urls, expected) {
            let result = await session.result("GET", url)
            if result.text != body { misses.append("\(url) -> \(result.status.map(String.init) ?? "") \(result.text ?? result.error.map { "\($0.code)" } ?? "")") }
        }
        return misses
    }

    @Test("record mode records each URL; the bundle, and the journal's HAR imported by stubkit, replay each to its own answer")
    func recordReplayAndJournalRoundTrip() async throws {
        let backend = try Self.backend()
        let folder = try TemporaryFolder()
        var generator = QueryURLGenerator(random: .fromEnvironment(default: Self.seed))
        let seedNote = "seed \(generator.random.seed) (STUBKIT_SEED reruns another)"
        let base = "http://127.0.0.1:\(backend.port)"
        // Then pairs on one path that differ only in a `+` against a `%2B`: two recordings, two answers.
        let urls = (0..<40).map { generator.url(base: base, unique: $0) }
            + (40..<60).map { i in generator.plusTwins(base: base, unique: i) }.flatMap { [$0.plain, $0.escaped] }

        let recording = StubEngine(recorder: try Recorder(configuration: RecorderConfiguration(template: "recorded", folder: folder.url)))
        let session = URLSession(configuration: .stubbed(by: recording, base: .ephemeral))
        var answers: [String] = []
        for url in urls {
            let result = await session.result("GET", url)
            try #require(result.status == 200, "\(seedNote): \(url) was not recorded: \(result.error.map { "\($0)" } ?? "")")
            answers.append(result.text ?? "")
        }
        backend.stop()

        let replay = StubEngine(killSwitch: true)
        _ = try replay.activate(folder: folder.url.appendingPathComponent("recorded"))
        // In reverse order: two recordings wrongly made one rule's response sequence would still
        // answer in the order they were recorded.
        let replayMisses = await Self.misses(urls.reversed(), expected: answers.reversed(), engine: replay)
        #expect(replayMisses.isEmpty, "\(seedNote)\n\(replayMisses.joined(separator: "\n"))")

        let har = try folder.file("journal.har", data: recording.journal.harData())
        let imported = folder.url.appendingPathComponent("imported")
        let run = try ChildProcess.run("stubkit", arguments: ["import", har.path, "--to", imported.path])
        try #require(run.status == 0 || run.status == 1, "\(run.stderr)")
        let fromJournal = StubEngine(killSwitch: true)
        _ = try fromJournal.activate(folder: imported)
        let journalMisses = await Self.misses(urls.reversed(), expected: answers.reversed(), engine: fromJournal)
        #expect(journalMisses.isEmpty, "\(seedNote)\n\(journalMisses.joined(separator: "\n"))")
    }
}
}
#endif
