import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A forwarded (pass-through or recorded) response on its way to the client, decided the same way for
/// every transport (``StubURLProtocol`` and the local server), as ``PreparedResponse`` is for a rule's
/// answer: which upstream headers the client gets, how much of the body the journal keeps, what the
/// recorder writes and what a failure does. Each transport keeps only its own calls (the URL loading
/// system's client on the `startLoading` thread, or the server's channel writes).
package struct ForwardedResponse {
    /// Headers that describe one hop, not the message: a transport that frames the message itself
    /// (the local server) must not pass the upstream's on, nor send them upstream.
    package static let hopByHop: Set<String> = ["connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
                                                "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length", "accept-encoding"]

    package let request: StubRequest
    /// The engine's recorder when it records this request's host.
    package let recorder: Recorder?
    /// How much of the body the journal keeps (the journal's `maximumBodySize`).
    package let keepsAtMost: Int
    package private(set) var status: Int?
    /// The headers as relayed, before any transport rewrites them: what the recording keeps.
    package private(set) var headers: [String: String] = [:]
    /// The body's first `keepsAtMost` bytes, for the journal.
    package private(set) var kept = Data()
    /// The body's whole length so far.
    package private(set) var count = 0
    package private(set) var truncated = false
    /// The whole body on disk, when the engine records (see ``Recorder``).
    package private(set) var capture: ResponseCapture?
    /// The events with their arrival times instead, when the engine records a `text/event-stream`.
    package private(set) var eventStream: EventStreamCapture?
    /// How much of a recorded event stream is kept (a live feed never ends).
    package var eventStreamLimits = EventStreamCapture.Limits.standard

    /// Whether the upstream answers with Server-Sent Events (known once the head arrived).
    package var isEventStream: Bool {
        EventStreamCapture.isEventStream(headers.first { $0.key.lowercased() == "content-type" }?.value)
    }

    /// Starts a relay; the capture for the recording is made now, so the first chunk has a home.
    package init(request: StubRequest, recorder: Recorder?, keepsAtMost: Int) {
        self.request = request
        self.recorder = recorder
        self.keepsAtMost = keepsAtMost
        self.capture = recorder?.makeCapture()
    }

    /// The upstream response's header fields as strings.
    package static func fields(of response: HTTPURLResponse) -> [String: String] {
        var fields: [String: String] = [:]
        for case (let name as String, let value as String) in response.allHeaderFields { fields[name] = value }
        return fields
    }

    /// The headers the client gets. The forwarder's session already decoded a compressed body: the
    /// client gets plain bytes, so the encoding and the encoded length no longer describe them.
    ///
    /// - Parameter framesItself: the transport writes the message's framing (the local server), so the
    ///   upstream's hop-by-hop headers are dropped; a plain `Content-Length` stays, it still applies.
    package static func relayedHeaders(_ upstream: [String: String], framesItself: Bool) -> [String: String] {
        let decoded = upstream.keys.contains { $0.lowercased() == "content-encoding" }
        return upstream.filter { name, _ in
            let lowered = name.lowercased()
            if lowered == "content-encoding" || (lowered == "content-length" && decoded) { return false }
            return !(framesItself && hopByHop.contains(lowered) && lowered != "content-length")
        }
    }

    /// Takes the upstream's status and headers.
    ///
    /// - Returns: the headers the client gets (see ``relayedHeaders(_:framesItself:)``).
    /// - Parameter arrivedAt: when the forwarder got the head (monotonic nanoseconds): taken on the
    ///   forwarder's queue, before the hop to the transport's context, which a busy context delays.
    package mutating func receive(status: Int, upstream: [String: String], framesItself: Bool,
                                  arrivedAt: UInt64 = EventStreamCapture.now()) -> [String: String] {
        let headers = Self.relayedHeaders(upstream, framesItself: framesItself)
        self.status = status
        self.headers = headers
        if recorder != nil, isEventStream {
            // Recorded as the events it carries, timed from now: no response file.
            eventStream = EventStreamCapture(headAt: arrivedAt, limits: eventStreamLimits)
            capture = nil
        }
        return headers
    }

    /// Takes one chunk of the body: the journal keeps up to its limit, the recording all of it.
    ///
    /// - Parameter keepingOnFailure: when the capture's file fails, it keeps the bytes in memory (the
    ///   in-process relay hands a one-piece body over from it at the end).
    ///   `arrivedAt`: when the forwarder got the chunk (monotonic nanoseconds), which times a recorded event.
    package mutating func receive(_ data: Data, keepingOnFailure: Bool, arrivedAt: UInt64 = EventStreamCapture.now()) {
        let room = keepsAtMost - kept.count
        if data.count <= room { kept.append(data) } else {
            if room > 0 { kept.append(data.prefix(room)) }
            truncated = true
        }
        count += data.count
        capture?.append(data, keepingOnFailure: keepingOnFailure)
        eventStream?.receive(data, at: arrivedAt)
    }

    /// The error a forwarding failure reaches the client and the journal as.
    package static func urlError(_ error: any Error) -> URLError {
        error as? URLError ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: error.localizedDescription])
    }

    /// The exchange failed: nothing half-written, the bundle never sees a failed exchange. An event
    /// stream is the exception: a feed the server dropped is recorded with the events it sent, as a
    /// stream that ends there (clients see a dropped feed and an ended one alike).
    @discardableResult
    package mutating func fail(_ error: URLError) -> (recordedAs: String?, recordingFailure: String?) {
        capture = nil
        if eventStream != nil, status != nil { return finishRecording() }
        recorder?.noteFailed(error)
        return (nil, nil)
    }

    /// The whole body from the capture, for a transport that hands it over in one piece.
    package func wholeBody() -> Data? { capture?.wholeBody() }

    /// The exchange completed: writes it to the recording (before the client hears the end, so a
    /// finished request is in the bundle) and gives what the journal entry says about it.
    ///
    /// - Parameter clientLeft: the client ended the exchange (an app cancelling a live feed): an event
    ///   stream is written with the events so far and `keepOpen`, so its replay stays open as the feed did.
    package mutating func finishRecording(clientLeft: Bool = false) -> (recordedAs: String?, recordingFailure: String?) {
        defer { capture = nil; eventStream = nil }
        guard let recorder, let status else { return (nil, nil) }
        if let eventStream {
            // A feed cut at the capture's limit had not ended either: its replay stays open too.
            let stream = EventStream(events: eventStream.recorded(), keepsOpen: clientLeft || eventStream.cut != nil)
            switch recorder.record(request, status: status, headers: headers, events: stream) {
            case .success:
                if let cut = eventStream.cut {
                    recorder.noteProblem("\(request.method) \(request.url.absoluteString): event stream \(cut); the rule holds the \(eventStream.events.count) events before it, with keepOpen")
                }
                return ("(events)", nil)
            case .failure(let error): return (nil, "\(error.path): \(error.reason)")
            }
        }
        // A client that left before the end leaves an incomplete body: nothing is recorded.
        if clientLeft { return (nil, nil) }
        if capture == nil && count > 0 {
            // No temporary file could be made: the client got the body, the bundle gets nothing.
            let error = RecordingError(path: FileManager.default.temporaryDirectory.path, reason: "no temporary file for the response body could be created")
            recorder.noteFailed(error)
            return (nil, error.reason)
        }
        switch recorder.record(request, status: status, headers: headers, capture: capture) {
        case .success(let file): return (file.isEmpty ? "(no body)" : file, nil)
        case .failure(let error): return (nil, "\(error.path): \(error.reason)")
        }
    }
}
