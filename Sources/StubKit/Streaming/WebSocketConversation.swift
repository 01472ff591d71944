import Foundation

/// One WebSocket connection's script at work: what to send when it opens, on each timer, and in answer
/// to each client message. Pure decisions over values (no sockets, no clocks): a transport asks, then
/// sends what it is told after the delays it is told, so every transport behaves the same and the
/// decisions are tested without one.
package struct WebSocketConversation: Sendable {
    package let script: WebSocketScript
    /// The upgrade request: templates see its path, query and headers; replies see the client's message as its body.
    package let request: StubRequest
    package let parameters: [String: String]
    /// How many connections the rule accepted before this one.
    package let hit: Int

    package init(script: WebSocketScript, request: StubRequest, parameters: [String: String], hit: Int) {
        self.script = script
        self.request = request
        self.parameters = parameters
        self.hit = hit
    }

    /// A step made ready to send: templates filled in.
    package struct Outgoing: Sendable, Hashable {
        /// Seconds after the step before it (or after the trigger, for the first).
        package var delay: TimeInterval
        package var action: WebSocketScript.Action
    }

    /// What a client message gets.
    package enum Answer: Sendable {
        /// The reply at `index` of the script's `replies` matched.
        case reply(index: Int, steps: [Outgoing], setState: String?)
        /// No reply matched: why each one did not, for the journal (empty when the script has none).
        case noMatch(nearMisses: [String])
    }

    /// The steps run when the connection opens.
    package func opening(now: Date) -> [Outgoing] {
        render(script.onConnect, message: nil, now: now)
    }

    /// The steps of the periodic entry at `index`, for one of its rounds.
    package func periodic(_ index: Int, now: Date) -> [Outgoing] {
        render(script.periodic[index].steps, message: nil, now: now)
    }

    /// The first reply whose conditions the message meets, with its steps; or why none did.
    package func answer(to message: WebSocketScript.Message, now: Date) -> Answer {
        var asked = request
        asked.body = message.data
        var misses: [String] = []
        for (index, reply) in script.replies.enumerated() {
            if let failure = reply.conditions.lazy.compactMap({ condition in condition.failure(for: asked).map { (condition, $0) } }).first {
                misses.append("\(reply.keyPath): expected a message \(failure.0.description) (\(failure.1))")
                continue
            }
            return .reply(index: index, steps: render(reply.steps, message: message, now: now), setState: reply.setState)
        }
        return .noMatch(nearMisses: misses)
    }

    private func render(_ steps: [WebSocketScript.Step], message: WebSocketScript.Message?, now: Date) -> [Outgoing] {
        var asked = request
        if let message { asked.body = message.data }
        var context = ResponseTemplate.Context(request: asked, parameters: parameters, now: now, hit: hit)
        return steps.map { step in
            guard let template = step.template else { return Outgoing(delay: step.delay, action: step.action) }
            let text = template.render(&context)
            return Outgoing(delay: step.delay, action: .send(.text(text)))
        }
    }
}
