import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// A live feed never ends: recording it keeps at most a limit of events, bytes and line length, then
/// writes what it kept as a rule that stays open, with a closing comment, and says so in the summary.
struct EventStreamCaptureLimitTests {
    static let request = StubRequest(url: URL(string: "https://feed.test/live")!)

    /// Records a feed of `chunks` through the forwarded response, as both relays do, under `limits`.
    static func record(_ chunks: [Data], limits: EventStreamCapture.Limits) throws -> (rule: [String: Any], summary: RecordingSummary, kept: Int) {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "feed", folder: folder.url))
        var response = ForwardedResponse(request: request, recorder: recorder, keepsAtMost: 100)
        response.eventStreamLimits = limits
        _ = response.receive(status: 200, upstream: ["Content-Type": "text/event-stream"], framesItself: false, arrivedAt: 0)
        for chunk in chunks { response.receive(chunk, keepingOnFailure: false, arrivedAt: 0) }
        let kept = response.eventStream?.events.count ?? -1
        let (recordedAs, failure) = response.finishRecording()
        #expect(recordedAs == "(events)" && failure == nil, "\(failure ?? "")")
        let data = try Data(contentsOf: folder.url.appendingPathComponent("feed/stubsRules.json"))
        let rules = try #require((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["rules"] as? [[String: Any]])
        return (try #require(rules.first), recorder.summary, kept)
    }

    @Test("past the event limit the capture stops: the rule holds the events before it, keepOpen and a closing comment; the summary names the cut")
    func eventLimit() throws {
        let feed = (1...50).map { Data("id: \($0)\ndata: tick \($0)\n\n".utf8) }
        let (rule, summary, kept) = try Self.record(feed, limits: .init(events: 3, bytes: 1 << 20, lineLength: 1 << 10))
        #expect(kept == 3)
        let events = try #require(rule["events"] as? [[String: Any]])
        #expect(events.compactMap { $0["data"] as? String } == ["tick 1", "tick 2", "tick 3"])
        #expect((events.last?["comment"] as? String)?.contains("past 3 events") == true, "\(events)")
        #expect(rule["keepOpen"] as? Bool == true)
        #expect(summary.recorded == 1)
        #expect(summary.problems.contains { $0.contains("https://feed.test/live") && $0.contains("past 3 events") }, "\(summary.problems)")
    }

    @Test("past the byte limit the capture stops the same way")
    func byteLimit() throws {
        let feed = (1...50).map { _ in Data("data: 0123456789\n\n".utf8) }
        let (rule, summary, kept) = try Self.record(feed, limits: .init(events: 1000, bytes: 25, lineLength: 1 << 10))
        #expect(kept == 2)
        #expect(rule["keepOpen"] as? Bool == true)
        #expect(summary.problems.contains { $0.contains("past 25 bytes") }, "\(summary.problems)")
    }

    @Test("a stream with no line end stops the parser at the line limit instead of growing its buffer")
    func lineLimit() throws {
        var parser = EventStreamParser(maximumLineLength: 16)
        #expect(parser.feed(Data("data: ok\n\n".utf8), at: 0).count == 1)
        for _ in 0..<100 { #expect(parser.feed(Data(repeating: UInt8(ascii: "x"), count: 10), at: 0).isEmpty) }
        #expect(parser.lineTooLong)
        #expect(parser.feed(Data("\n\ndata: later\n\n".utf8), at: 0).isEmpty, "nothing after the overflow can be framed")

        let chunks = [Data("data: first\n\n".utf8)] + Array(repeating: Data(repeating: UInt8(ascii: "y"), count: 100), count: 20)
        let (rule, summary, kept) = try Self.record(chunks, limits: .init(events: 1000, bytes: 1 << 20, lineLength: 64))
        #expect(kept == 1)
        #expect(rule["keepOpen"] as? Bool == true)
        #expect(summary.problems.contains { $0.contains("past 64 bytes without a line end") }, "\(summary.problems)")
    }
}
