import Foundation

/// A `text/event-stream` response on its way to a bundle: its events as they arrive, each with its
/// arrival time on the monotonic clock, written as a rule's `events` (never as a response file).
///
/// A live feed never ends, so the capture has limits (``Limits``): past one it stops keeping events
/// (the client still gets the whole feed), and ``cut`` says why. The rule is then written with the
/// events before the cut, `keepOpen` (the feed had not ended) and a last comment saying where the
/// recording stopped, and the recorder's summary lists the cut as a problem.
package struct EventStreamCapture: Sendable {
    /// How much of a feed one rule keeps.
    package struct Limits: Sendable, Hashable {
        /// Events (comments included).
        package var events: Int
        /// Bytes of the events' text (data, comment, id, event).
        package var bytes: Int
        /// Bytes of one line (see ``EventStreamParser/maximumLineLength``).
        package var lineLength: Int

        package init(events: Int, bytes: Int, lineLength: Int) {
            self.events = events
            self.bytes = bytes
            self.lineLength = lineLength
        }

        /// 10,000 events and 8 MiB: hours of a feed at a few events a minute, minutes of a ticker at
        /// tens a second, and more than a rules file stays usable with (it is read, diffed, loaded at
        /// every launch); memory stays bounded while the app runs for as long as it likes.
        package static let standard = Limits(events: 10_000, bytes: 8 << 20, lineLength: EventStreamParser.defaultMaximumLineLength)
    }

    private var parser: EventStreamParser
    /// When the response head arrived, in monotonic nanoseconds: the first event's delay counts from it.
    private let headAt: UInt64
    private let limits: Limits
    package private(set) var events: [EventStreamParser.Parsed] = []
    /// The text bytes of ``events``.
    private var bytes = 0
    /// Why the capture stopped before the stream ended, when it did.
    package private(set) var cut: String?
    /// When the cut happened (seconds after the head), for the closing comment's delay.
    private var cutAt: TimeInterval = 0

    /// Starts at the response head.
    package init(headAt: UInt64 = Self.now(), limits: Limits = .standard) {
        self.headAt = headAt
        self.limits = limits
        self.parser = EventStreamParser(maximumLineLength: limits.lineLength)
    }

    /// Whether a response of this content type is recorded as events.
    package static func isEventStream(_ contentType: String?) -> Bool {
        contentType.map { MediaType.essence(of: $0) == EventStream.contentType } ?? false
    }

    /// Monotonic nanoseconds: the wall clock may jump while a feed is recorded.
    package static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Takes one chunk, arrived at `time` (monotonic nanoseconds).
    package mutating func receive(_ chunk: Data, at time: UInt64 = Self.now()) {
        guard cut == nil else { return }
        let seconds = Double(time &- min(time, headAt)) / 1e9
        for event in parser.feed(chunk, at: seconds) {
            let size = [event.data, event.comment, event.id, event.event].reduce(0) { $0 + ($1?.utf8.count ?? 0) }
            if events.count >= limits.events {
                stop("the feed went on past \(limits.events) events", at: seconds)
            } else if bytes + size > limits.bytes {
                stop("the feed went on past \(limits.bytes) bytes of events", at: seconds)
            } else {
                events.append(event)
                bytes += size
                continue
            }
            return
        }
        if parser.lineTooLong { stop("a line went on past \(limits.lineLength) bytes without a line end", at: seconds) }
    }

    private mutating func stop(_ reason: String, at seconds: TimeInterval) {
        cut = "recording stopped: \(reason)"
        cutAt = seconds
    }

    /// The stream's events as a rule's: each delay the gap since the one before (the first's since the
    /// head), rounded to milliseconds. An event still without its blank line is left out, as a
    /// browser leaves it.
    package func recorded() -> [EventStream.Event] {
        var previous = 0.0
        var recorded = events.map { parsed in
            let arrival = Self.milliseconds(parsed.arrival)
            defer { previous = arrival }
            return EventStream.Event(delay: max(0, Self.milliseconds(arrival - previous)), event: parsed.event, data: parsed.data,
                                     id: parsed.id, retry: parsed.retry, comment: parsed.comment)
        }
        if let cut {
            // A comment: clients ignore it, and whoever reads the rule sees why the feed ends there.
            recorded.append(EventStream.Event(delay: max(0, Self.milliseconds(cutAt) - previous), comment: "StubKit \(cut)"))
        }
        return recorded
    }

    /// Rounded on the arrival times, not on each gap, so rounding errors do not add up over a long feed.
    private static func milliseconds(_ seconds: TimeInterval) -> TimeInterval { (seconds * 1000).rounded() / 1000 }
}
