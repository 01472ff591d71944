import Foundation

/// Recording a Server-Sent Events response: a rule whose response is its `events`, redacted as a body is.
extension Recorder {
    /// Writes one exchange answered with an event stream (see ``EventStreamCapture``): status and
    /// headers as for any response, each event's `data`, `id`, `event` and comment redacted as a text body would be (its
    /// secrets replaced, JSON by field; left byte for byte as received otherwise), no response file.
    package func record(_ request: StubRequest, status: Int, headers: [String: String], events stream: EventStream) -> Result<String, RecordingError> {
        var redacted = 0
        let knownBefore = seenSecrets.withLock { $0.count }
        rememberSecrets(inHeaders: request.headers)
        rememberSecrets(inHeaders: headers)
        let conditions = self.conditions(for: request, redacted: &redacted)
        var stream = stream
        for index in stream.events.indices {
            // `id` is often a resume cursor or a token, and comes back as `Last-Event-ID`; `event` is
            // free text from the backend: both are redacted as `data` is.
            if let id = stream.events[index].id { stream.events[index].id = redactedText(id, redacted: &redacted) }
            if let type = stream.events[index].event { stream.events[index].event = redactedText(type, redacted: &redacted) }
            if let data = stream.events[index].data { stream.events[index].data = redactedText(data, redacted: &redacted) }
            if let comment = stream.events[index].comment { stream.events[index].comment = redactedText(comment, redacted: &redacted) }
        }
        let storedHeaders = redactedHeaders(headers, redacted: &redacted)
        var response = BundleWriter.Response(status: status, headers: storedHeaders, body: .none, fileExtension: "txt")
        response.events = stream
        return append(conditions, response, redacted: redacted, knownBefore: knownBefore)
    }

    /// One text with its secrets replaced, the same way as a text body's (``Redactor/text(_:contentType:)``,
    /// then every secret seen so far); unchanged when it holds none.
    private func redactedText(_ text: String, redacted: inout Int) -> String {
        var text = text
        let result = redactor.text(text, contentType: nil)
        if result.redacted > 0 {
            redacted += result.redacted
            result.values.forEach(remember)
            text = result.text
        }
        let (scrubbed, count) = scrub(text)
        redacted += count
        return scrubbed
    }
}
