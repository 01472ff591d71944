import Foundation

/// A `text/event-stream` response on its way to a bundle: its events as they arrive, each with its
/// arrival time on the monotonic clock, written as a rule's `events` (never as a response file).
package struct EventStreamCapture: Sendable {
    private var parser = EventStreamParser()
    /// When the response head arrived, in monotonic nanoseconds: the first event's delay counts from it.
    private let headAt: UInt64
    package private(set) var events: [EventStreamParser.Parsed] = []

    /// Starts at the response head.
    package init(headAt: UInt64 = Self.now()) {
        self.headAt = headAt
    }

    /// Whether a response of this content type is recorded as events.
    package static func isEventStream(_ contentType: String?) -> Bool {
        contentType.map { MediaType.essence(of: $0) == EventStream.contentType } ?? false
    }

    /// Monotonic nanoseconds: the wall clock may jump while a feed is recorded.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Takes one chunk, arrived at `time` (monotonic nanoseconds).
    package mutating func receive(_ chunk: Data, at time: UInt64 = Self.now()) {
        let seconds = Double(time &- min(time, headAt)) / 1e9
        events += parser.feed(chunk, at: seconds)
    }

    /// The stream's events as a rule's: each delay the gap since the one before (the first's since the
    /// head), rounded to milliseconds. An event still without its blank line is left out, as a
    /// browser leaves it.
    package func recorded() -> [EventStream.Event] {
        var previous = 0.0
        return events.map { parsed in
            let arrival = Self.milliseconds(parsed.arrival)
            defer { previous = arrival }
            return EventStream.Event(delay: max(0, Self.milliseconds(arrival - previous)), event: parsed.event, data: parsed.data,
                                     id: parsed.id, retry: parsed.retry, comment: parsed.comment)
        }
    }

    /// Rounded on the arrival times, not on each gap, so rounding errors do not add up over a long feed.
    private static func milliseconds(_ seconds: TimeInterval) -> TimeInterval { (seconds * 1000).rounded() / 1000 }
}
