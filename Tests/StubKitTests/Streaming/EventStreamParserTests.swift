import Foundation
import StubKitTestSupport
import Testing
@testable import StubKit

/// The event stream as a browser reads it (WHATWG HTML, "interpreting an event stream"), fed in
/// chunks split anywhere: what a recording of a Server-Sent Events feed holds.
@Suite
struct EventStreamParserTests {
    typealias Parsed = EventStreamParser.Parsed

    /// Feeds `chunks` at times 0, 1, 2, … and ends the stream.
    static func parse(_ chunks: [[UInt8]]) -> [Parsed] {
        var parser = EventStreamParser()
        var out: [Parsed] = []
        for (index, chunk) in chunks.enumerated() { out += parser.feed(Data(chunk), at: TimeInterval(index)) }
        parser.finish()
        return out
    }

    static func parse(_ text: String) -> [Parsed] { parse([Array(text.utf8)]) }

    /// The events without their times.
    static func timeless(_ events: [Parsed]) -> [Parsed] { events.map { var e = $0; e.arrival = 0; return e } }

    @Test("fields, one optional space removed, data lines joined with LF, unknown fields and colons in values")
    func fields() {
        let events = Self.parse("event: status\nid:7\nretry: 3000\ndata: {\"a\": \"b:c\"}\ndata:  two spaces\ndata\nfoo: bar\n\n")
        #expect(events == [Parsed(event: "status", data: "{\"a\": \"b:c\"}\n two spaces\n", id: "7", retry: 3000)])
    }

    @Test("CR, LF and CR LF all end lines; a blank line dispatches; the unterminated last event is dropped")
    func lineEnds() {
        let events = Self.parse("data: a\r\rdata: b\n\ndata: c\r\n\r\ndata: d\r\n")
        #expect(events.map(\.data) == ["a", "b", "c"])
    }

    @Test("a byte order mark is skipped once, even split; a second one is data")
    func byteOrderMark() {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = Array("data: x\n\n".utf8)
        for cut in 0...4 {
            let all = bom + bom + body
            #expect(Self.timeless(Self.parse([Array(all[..<cut]), Array(all[cut...])])) == [],
                    "a second mark makes the first line's field name '\u{FEFF}data', ignored (cut at \(cut))")
            let one = bom + body
            #expect(Self.timeless(Self.parse([Array(one[..<cut]), Array(one[cut...])])) == [Parsed(data: "x")], "cut at \(cut)")
        }
    }

    @Test("comments come out as comment-only events when their line ends; a blank line after one dispatches nothing")
    func comments() {
        let events = Self.parse([Array(": keep-alive\n\n".utf8), Array(":\n: x\n".utf8), Array("event: e\n: inside\ndata: d\n\n".utf8)])
        #expect(events == [Parsed(comment: "keep-alive", arrival: 0), Parsed(comment: "", arrival: 1), Parsed(comment: "x", arrival: 1),
                           Parsed(comment: "inside", arrival: 2), Parsed(event: "e", data: "d", arrival: 2)])
    }

    @Test("id holding NUL is ignored; retry must be digits only; blocks setting only id or retry are kept")
    func idAndRetry() {
        let events = Self.parse("id: a\u{0}b\ndata: 1\n\nretry: 12a\ndata: 2\n\nretry:\ndata: 3\n\nretry: 99999999999999999999999\ndata: 4\n\nid: 9\n\nretry: 5\n\nid\n\n")
        #expect(events == [Parsed(data: "1"), Parsed(data: "2"), Parsed(data: "3"), Parsed(data: "4"), Parsed(id: "9"), Parsed(retry: 5), Parsed(id: "")])
    }

    @Test("empty data is an event with empty data; an event line alone is kept; blank lines alone give nothing")
    func emptyData() {
        #expect(Self.parse("\n\n\ndata\n\ndata:\ndata:\n\nevent: x\n\n") == [Parsed(data: ""), Parsed(data: "\n"), Parsed(event: "x")])
    }

    @Test("invalid UTF-8 becomes U+FFFD, and a character split between chunks is whole")
    func utf8() {
        let euro = Array("€".utf8)
        #expect(Self.parse([Array("data: ".utf8) + euro.prefix(2), Array(euro.dropFirst(2)) + Array("\n\n".utf8)]).map(\.data) == ["€"])
        #expect(Self.parse([Array("data: a".utf8) + [0xFF, 0xE2, 0x82] + Array("\n\n".utf8)]).map(\.data) == ["a\u{FFFD}\u{FFFD}"])
    }

    @Test("each event's time is the arrival of the chunk that completed it, a CR at a chunk's end included")
    func arrivals() {
        let events = Self.parse([Array("data: a\n".utf8), Array("\ndata: b\r".utf8), Array("\n\r".utf8), Array("\n".utf8), Array("data: c\n\n".utf8)])
        #expect(events.map(\.arrival) == [1, 2, 4])
        #expect(events.map(\.data) == ["a", "b", "c"])
    }

    static let tricky = Array((
        "\u{FEFF}: hello\r\n\r\nevent: status\rid: 1\rretry: 3000\rdata: {\"order\": 42, \"status\": \"placed\"}\r\r"
        + "data: line one\r\ndata:line two\r\ndata:  €uro\r\n\r\n:\n: keep\r\nid: a\u{0}\ndata\nevent:x\n\n"
        + "id\r\n\r\nretry: 7x\nretry: 10\n\ndata: last, unterminated\r\n"
    ).utf8)

    static let trickyEvents = [
        Parsed(comment: "hello"),
        Parsed(event: "status", data: "{\"order\": 42, \"status\": \"placed\"}", id: "1", retry: 3000),
        Parsed(data: "line one\nline two\n €uro"),
        Parsed(comment: ""), Parsed(comment: "keep"),
        Parsed(event: "x", data: ""),
        Parsed(id: ""),
        Parsed(retry: 10),
    ]

    @Test("the same events wherever the stream is cut in two, at every byte")
    func everySplit() {
        #expect(Self.timeless(Self.parse([Self.tricky])) == Self.trickyEvents)
        for cut in 0...Self.tricky.count {
            let events = Self.parse([Array(Self.tricky[..<cut]), Array(Self.tricky[cut...])])
            #expect(Self.timeless(events) == Self.trickyEvents, "cut at byte \(cut)")
        }
    }

    @Test("the same events in random chunks of 1 to 5 bytes")
    func randomChunks() {
        var random = SeededGenerator.fromEnvironment(default: 0x55E_CAFE)
        print("EventStreamParserTests.randomChunks seed \(random.seed)")
        for round in 0..<200 {
            var chunks: [[UInt8]] = [], rest = Self.tricky[...]
            while !rest.isEmpty {
                let size = min(rest.count, 1 + random.below(5))
                chunks.append(Array(rest.prefix(size)))
                rest = rest.dropFirst(size)
            }
            #expect(Self.timeless(Self.parse(chunks)) == Self.trickyEvents, "round \(round), seed \(random.seed)")
        }
    }

    @Test("what the parser reads back from an event's wire form is that event")
    func roundTrip() {
        let event = EventStream.Event(event: "status", data: "a\n\nb", id: "5", retry: 100, comment: "c")
        let parsed = Self.parse([Array(event.encoded)])
        #expect(parsed == [Parsed(comment: "c"), Parsed(event: "status", data: "a\n\nb", id: "5", retry: 100)])
    }
}
