import Foundation

/// A matched rule's event stream made ready to send, the same way for every transport: each event's
/// bytes (templates filled in when it is due, so `{{now}}` is the time it is sent), its delay, and the
/// scenario state it moves to.
package struct PreparedEvents: Sendable {
    package let stream: EventStream
    /// The scenario `setState` moves (the rule's `scenario`).
    package let scenario: String?
    private let request: StubRequest
    private let parameters: [String: String]
    private let hit: Int

    package init(_ stream: EventStream, match: StubMatch, request: StubRequest) {
        self.stream = stream
        self.scenario = match.rule.request.scenarioState?.scenario
        self.request = request
        self.parameters = match.parameters
        self.hit = match.hit
    }

    package var count: Int { stream.events.count }
    package var keepsOpen: Bool { stream.keepsOpen }

    /// Seconds between the event before (or the head) and event `index`.
    package func delay(before index: Int) -> TimeInterval { stream.events[index].delay }

    /// The state event `index` moves the rule's scenario to, once sent.
    package func newState(after index: Int) -> (scenario: String, state: String)? {
        guard let scenario, let state = stream.events[index].setState else { return nil }
        return (scenario, state)
    }

    /// Event `index` as sent, its templates filled in for `now`.
    package func bytes(of index: Int, now: Date) -> Data {
        let event = stream.events[index]
        guard let templates = event.templates else { return event.encoded }
        var context = ResponseTemplate.Context(request: request, parameters: parameters, now: now, hit: hit)
        return EventStream.Event.encoded(comment: templates.comment.map { $0.render(&context) } ?? event.comment, event: templates.event.map { $0.render(&context) } ?? event.event,
                                         data: templates.data.map { $0.render(&context) } ?? event.data,
                                         id: templates.id.map { $0.render(&context) } ?? event.id, retry: event.retry)
    }
}
