import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubLoad {
    /// A forwarded response on its way to the app: the shared decisions, and how this task takes the body.
    struct Relay {
        var response: ForwardedResponse
        /// The task takes its body in one piece (see ``StubURLProtocol/chunkSize(for:)``): chunks are
        /// held (in the response's capture, else in `held`) and handed over at the end.
        var onePiece = false
        var held = Data()
    }
}

// MARK: Relaying a forwarded response

extension StubLoad: ForwardingReceiver {
    func forwarder(didReceive response: HTTPURLResponse) {
        let arrivedAt = EventStreamCapture.now()
        executor.perform { [self] in
            guard var relay = self.relay else { return }
            self.relay = nil
            let headers = relay.response.receive(status: response.statusCode, upstream: ForwardedResponse.fields(of: response), framesItself: false,
                                                         arrivedAt: arrivedAt)
            self.relay = relay
            progress.withLock { $0.status = response.statusCode; $0.headers = headers }
            let url = response.url ?? relay.response.request.url
            guard let relayed = HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else { return }
            executor.withClient { client, instance in client.urlProtocol(instance, didReceive: relayed, cacheStoragePolicy: .notAllowed) }
        }
    }

    func forwarder(didReceive data: Data) {
        let arrivedAt = EventStreamCapture.now()
        executor.perform { [self] in
            // Taken out while it grows, so its buffers have one owner and append in place (a copy left in
            // `self.relay` would make every chunk copy the whole body so far).
            guard var relay = self.relay else { return }
            self.relay = nil
            relay.response.receive(data, keepingOnFailure: relay.onePiece, arrivedAt: arrivedAt)
            if relay.onePiece {
                if relay.response.capture == nil { relay.held.append(data) }
                self.relay = relay
                return
            }
            self.relay = relay
            executor.withClient { client, instance in client.urlProtocol(instance, didLoad: data) }
        }
    }

    func forwarder(didCompleteWithError error: (any Error)?) {
        executor.perform { [self] in
            progress.withLock { $0.cancelForward = nil }
            guard var relay = self.relay else { return }
            self.relay = nil
            let request = relay.response.request
            if let error {
                let urlError = ForwardedResponse.urlError(error)
                relay.response.fail(urlError)
                self.relay = relay
                record(request, match: nil, status: nil, headers: [:], body: nil, passThrough: true, final: true, error: urlError)
                executor.withClient(ends: true) { client, instance in client.urlProtocol(instance, didFailWithError: urlError) }
                return
            }
            if relay.onePiece && relay.response.count > 0 {
                let whole = relay.response.wholeBody() ?? relay.held
                relay.held = Data()
                executor.withClient { client, instance in client.urlProtocol(instance, didLoad: whole) }
            }
            let (recordedAs, recordingFailure) = relay.response.finishRecording()
            self.relay = relay
            let response = relay.response
            record(request, match: nil, status: response.status, headers: response.headers, body: response.kept, bodySize: response.count,
                   truncated: response.truncated, passThrough: true, final: true, recordedAs: recordedAs, recordingFailure: recordingFailure)
            executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
        }
    }
}

// MARK: A live feed the app left

extension StubLoad {
    /// The app stopped the load while a recorded event stream was still coming: the events it got so
    /// far are recorded, with `keepOpen`, since the feed had not ended (see ``ForwardedResponse/finishRecording(clientLeft:)``).
    /// On the executor's context, after every relayed chunk before the stop. Returns what the journal
    /// entry says about the recording.
    func finishRelayedEventStream() -> (recordedAs: String?, recordingFailure: String?) {
        guard var relay = self.relay, relay.response.eventStream != nil else { return (nil, nil) }
        self.relay = nil
        let recording = relay.response.finishRecording(clientLeft: true)
        self.relay = relay
        return recording
    }
}
