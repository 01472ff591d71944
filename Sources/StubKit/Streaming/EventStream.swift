import Foundation

/// An answer sent as Server-Sent Events (`events` in a rule): `text/event-stream`, one event at a time,
/// each after its delay, then the end of the stream, or nothing more until the client leaves (`keepOpen`).
///
/// The same value serves in-process (``StubURLProtocol`` hands each event to the client when it is due)
/// and on the local server (one chunk per event, flushed). Each event is written on the wire by
/// ``EventStream/Event/encoded(event:data:id:)`` so both transports send the same bytes.
package struct EventStream: Sendable {
    package var events: [Event]
    /// After the last event the stream stays open until the client leaves, as a live feed does.
    package var keepsOpen: Bool

    package init(events: [Event], keepsOpen: Bool = false) {
        self.events = events
        self.keepsOpen = keepsOpen
    }

    /// The content type of an event stream.
    package static let contentType = "text/event-stream"

    /// One event, or a comment line (a keep-alive) when it has only `comment`.
    package struct Event: Sendable {
        /// Seconds after the previous event (or after the response head, for the first).
        package var delay: TimeInterval = 0
        /// The event's type (`event:`); clients dispatch it to listeners of that name ("message" when absent).
        package var event: String?
        /// The payload (`data:`), one field per line. A JSON value in the rule is written as compact JSON.
        package var data: String?
        /// Whether `data` came from a JSON value (its template is then filled in JSON's way).
        package var dataIsJSON = false
        /// The last event id (`id:`), which a reconnecting client sends back as `Last-Event-ID`.
        package var id: String?
        /// The reconnection time in milliseconds (`retry:`).
        package var retry: Int?
        /// A comment line (`: …`), ignored by clients; keeps idle connections alive.
        package var comment: String?
        /// The scenario state the rule's scenario moves to once this event is sent.
        package var setState: String?
        /// `event`, `data`, `id` and `comment` as templates, when the rule says `template`.
        package var templates: Templates?
        /// Where the event is written, for diagnostics.
        package var position: SourcePosition?

        package init(delay: TimeInterval = 0, event: String? = nil, data: String? = nil, id: String? = nil, retry: Int? = nil,
                     comment: String? = nil, setState: String? = nil) {
            self.delay = delay
            self.event = event
            self.data = data
            self.id = id
            self.retry = retry
            self.comment = comment
            self.setState = setState
        }

        package struct Templates: Sendable {
            package var event: ResponseTemplate?
            package var data: ResponseTemplate?
            package var id: ResponseTemplate?
            package var comment: ResponseTemplate?

            var usesHitCount: Bool {
                event?.usesHitCount == true || data?.usesHitCount == true || id?.usesHitCount == true || comment?.usesHitCount == true
            }
        }

        /// The event as sent, with the rule's values (no templates filled in).
        package var encoded: Data { Self.encoded(comment: comment, event: event, data: data, id: id, retry: retry) }

        /// The wire form (the WHATWG HTML standard's event stream format): comment lines, then `event:`,
        /// `id:`, `retry:` and one `data:` line per line of the payload, then a blank line that
        /// dispatches the event. A comment-only event is only its comment lines (nothing is dispatched).
        /// Line breaks inside `event` and `id` would start fields of their own: they become spaces, and
        /// an `id` holding NUL (which clients ignore) loses it.
        package static func encoded(comment: String?, event: String?, data: String?, id: String?, retry: Int?) -> Data {
            var out = ""
            if let comment {
                for line in lines(of: comment) { out += line.isEmpty ? ":\n" : ": \(line)\n" }
            }
            let dispatches = event != nil || data != nil || id != nil || retry != nil
            if let event { out += "event: \(singleLine(event))\n" }
            if let id { out += "id: \(singleLine(id).replacingOccurrences(of: "\0", with: ""))\n" }
            if let retry { out += "retry: \(retry)\n" }
            if let data {
                for line in lines(of: data) { out += line.isEmpty ? "data:\n" : "data: \(line)\n" }
            }
            if dispatches { out += "\n" } else if out.isEmpty { out = ":\n" }
            return Data(out.utf8)
        }

        /// CR LF, CR and LF all end a line in an event stream.
        static func lines(of text: String) -> [Substring] {
            text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
                .split(separator: "\n", omittingEmptySubsequences: false)
        }

        static func singleLine(_ text: String) -> String {
            String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
        }
    }

    /// Whether any event's template shows `{{hit}}`, which makes the rule count its answers.
    var usesHitCount: Bool { events.contains { $0.templates?.usesHitCount == true } }

    /// The headers every event stream is sent with, unless the rule gives them: no caching, and no
    /// buffering by proxies (nginx honours `X-Accel-Buffering`).
    package static let defaultHeaders: [(name: String, value: String)] = [("Cache-Control", "no-cache")]
}
