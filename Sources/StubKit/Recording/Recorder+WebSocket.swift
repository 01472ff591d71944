import Foundation

/// Recording a WebSocket conversation as a rule with a `webSocket` script, through the same conditions,
/// redaction and writer as an HTTP exchange.
///
/// Decisions, each because of what a replay can tell apart:
/// - A client message becomes a reply whose `when` is the condition the HTTP recorder writes for a
///   request body with that text: `equalsJSON` for a JSON object or array (key order and whitespace do
///   not matter), `containsJSON` when volatile or secret fields are left out, `equals` otherwise.
/// - A binary client message is matched with `equals` on the text the matcher compares (its bytes
///   decoded as UTF-8, invalid bytes as U+FFFD): `equals` and `matches` see text only, so this is
///   exact for UTF-8 payloads and, for others, the only condition a replay of the same bytes always
///   meets. Payloads the matcher cannot tell apart count as repeats (next point).
/// - A client message the matcher cannot tell apart from an earlier one but that got another answer
///   keeps the first answer (first match wins; a reply cannot depend on how often it matched), and the
///   outcome says so.
/// - A client message whose condition would hold a secret gets no `when` and goes last: it answers
///   whatever no other reply matches. Only the first such reply is written.
/// - Server payloads are redacted as HTTP bodies are; JSON text is written as a `json` step when that
///   sends the same bytes, else as `text`.
/// - No `scheme` condition: a routed app reaches the server as `ws` whether it opened `ws` or `wss`.
extension Recorder {
    /// What recording one conversation did.
    package struct WebSocketOutcome: Sendable, Hashable {
        /// Whether the rule was written; `false` when a conversation for the same upgrade request was
        /// recorded earlier in this run (a script has no sequence, so the first one stays).
        package var written: Bool
        /// What the rule leaves out, one line each (repeated client messages that got other answers).
        package var notes: [String]
    }

    /// Writes `conversation` as one rule: its upgrade request's conditions and a `webSocket` script.
    package func record(_ conversation: WebSocketRecording) -> Result<WebSocketOutcome, RecordingError> {
        var redacted = 0
        let knownBefore = seenSecrets.withLock { $0.count }
        rememberSecrets(inHeaders: conversation.request.headers)
        // Every payload's secrets first, so one learnt late (an auth message) is scrubbed from earlier ones too.
        for message in conversation.messages {
            if let text = Self.text(of: message.kind) { redactor.text(text, contentType: nil).values.forEach(remember) }
        }
        var upgrade = conversation.request
        upgrade.body = nil
        var conditions = self.conditions(for: upgrade, redacted: &redacted)
        conditions.method = "GET"
        conditions.scheme = nil
        let (opening, turns) = conversation.turns
        var script: [(String, JSONText)] = []
        var notes: [String] = []
        if let subprotocol = conversation.subprotocol, !subprotocol.isEmpty {
            script.append((RuleKey.WebSocketKey.subprotocol.rawValue, .string(subprotocol)))
        }
        let largest = turns.map { Self.size(of: $0.message) }.max() ?? 0
        if largest > WebSocketScript.defaultMaximumMessageSize {
            script.append((RuleKey.WebSocketKey.maxMessageSize.rawValue, .int(largest)))
        }
        if !opening.isEmpty {
            script.append((RuleKey.WebSocketKey.onConnect.rawValue, .array(opening.map { step($0, redacted: &redacted) })))
        }
        var replies: [JSONText] = []
        var answered: [BundleWriter.RequestConditions.Body?: JSONText] = [:]
        var catchAll: JSONText?
        for (index, turn) in turns.enumerated() {
            let condition = self.condition(for: turn.message, url: upgrade.url, redacted: &redacted)
            let steps = JSONText.array(turn.answer.map { step($0, redacted: &redacted) })
            let reply = JSONText.object(
                (condition.map { [(RuleKey.WebSocketReplyKey.when.rawValue, JSONText.object([Self.bodyKey($0)]))] } ?? [])
                    + [(RuleKey.WebSocketReplyKey.send.rawValue, steps)])
            if let earlier = answered[condition] {
                if earlier.rendered() != steps.rendered() {
                    notes.append("client message \(index + 1) repeats an earlier one that got another answer; the rule answers it with the first")
                }
                continue
            }
            answered[condition] = steps
            if condition == nil { catchAll = reply } else { replies.append(reply) }
        }
        let replyList = replies + (catchAll.map { [$0] } ?? [])
        if !replyList.isEmpty { script.append((RuleKey.WebSocketKey.replies.rawValue, .array(replyList))) }
        do {
            let written = try writer.appendWebSocket(conditions, script: .object(script))
            if !written {
                notes.append("a conversation for \(conditions.method) \(conditions.path) was recorded earlier in this run; the first is kept")
            }
            if seenSecrets.withLock({ $0.count }) > knownBefore { redacted += writer.rescrub({ self.scrub($0) }, bytes: { self.scrub(bytes: $0) }) }
            counts.withLock { if written { $0.recorded += 1 }; $0.redacted += redacted }
            return .success(WebSocketOutcome(written: written, notes: notes))
        } catch {
            noteFailed(error)
            return .failure(error)
        }
    }

    /// The reply condition for a client message, or `nil` when only a catch-all can answer it.
    private func condition(for message: WebSocketRecording.Kind, url: URL, redacted: inout Int) -> BundleWriter.RequestConditions.Body? {
        switch message {
        case .text(let text):
            return bodyCondition(for: StubRequest(url: url, body: Data(text.utf8)), redacted: &redacted)
        case .binary(let data):
            if String(data: data, encoding: .utf8) != nil {
                return bodyCondition(for: StubRequest(url: url, body: data), redacted: &redacted)
            }
            let seen = String(decoding: data, as: UTF8.self)
            let (_, count) = scrub(seen)
            if count > 0 { redacted += count; return nil }
            return .equals(seen)
        case .close:
            return nil
        }
    }

    /// One step of the script for a server message: its payload redacted, its delay when there is one.
    private func step(_ message: WebSocketRecording.TimedMessage, redacted: inout Int) -> JSONText {
        var pairs: [(String, JSONText)] = []
        let keys = RuleKey.WebSocketStepKey.self
        switch message.kind {
        case .text(let text):
            let clean = redactedText(text, redacted: &redacted)
            if let json = Self.exactJSON(clean) { pairs.append((keys.json.rawValue, json)) } else { pairs.append((keys.text.rawValue, .string(clean))) }
        case .binary(let data):
            var bytes = data
            if let text = String(data: data, encoding: .utf8) {
                bytes = Data(redactedText(text, redacted: &redacted).utf8)
            } else {
                // Not text (protobuf): the redactor cannot parse it, but a known token is still its bytes.
                let (clean, count) = scrub(bytes: data)
                bytes = clean
                redacted += count
            }
            pairs.append((keys.binary.rawValue, .string(bytes.base64EncodedString())))
        case .close(let code, let reason):
            var close: [(String, JSONText)] = []
            // A close without a status (1005) or with one an endpoint may not send is replayed as a normal close.
            if let code, WebSocketScript.isSendableCloseCode(Int(code)) { close.append((RuleKey.WebSocketCloseKey.code.rawValue, .int(Int(code)))) }
            let clean = redactedText(reason, redacted: &redacted)
            if !clean.isEmpty, clean.utf8.count <= 123 { close.append((RuleKey.WebSocketCloseKey.reason.rawValue, .string(clean))) }
            pairs.append((keys.close.rawValue, .object(close)))
        }
        if message.delay > 0 { pairs.append((keys.delay.rawValue, .raw(BundleWriter.ImportedOptions.number(message.delay)))) }
        return .object(pairs)
    }

    private func redactedText(_ text: String, redacted: inout Int) -> String {
        let result = redactor.text(text, contentType: nil)
        result.values.forEach(remember)
        redacted += result.redacted
        let (scrubbed, count) = scrub(result.text)
        redacted += count
        return scrubbed
    }

    /// A JSON object or array, when writing it as a `json` step sends exactly `text` (compact, keys in
    /// their order): the rule stays readable and the replay byte-exact.
    private static func exactJSON(_ text: String) -> JSONText? {
        let trimmed = text.first
        guard trimmed == "{" || trimmed == "[", let value = try? JSONSourceParser().parse(Data(text.utf8)),
              value.jsonData() == Data(text.utf8) else { return nil }
        return JSONText.from(value)
    }

    private static func bodyKey(_ condition: BundleWriter.RequestConditions.Body) -> (String, JSONText) {
        switch condition {
        case .equals(let text): return BundleWriter.BodyCondition.equals(text).json
        case .equalsJSON(let json): return BundleWriter.BodyCondition.equalsJSON(json).json
        case .containsJSON(let json): return BundleWriter.BodyCondition.containsJSON(json).json
        }
    }

    private static func text(of kind: WebSocketRecording.Kind) -> String? {
        switch kind {
        case .text(let text): return text
        case .binary(let data): return String(data: data, encoding: .utf8)
        case .close(_, let reason): return reason
        }
    }

    private static func size(of kind: WebSocketRecording.Kind) -> Int {
        switch kind {
        case .text(let text): return text.utf8.count
        case .binary(let data): return data.count
        case .close: return 0
        }
    }
}
