import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension StubLoad {
    /// A forwarded response on its way to the app.
    struct Relay {
        var request: StubRequest?
        /// The engine's recorder when it records this request's host.
        var recorder: Recorder?
        var status: Int?
        var headers: [String: String] = [:]
        var kept = Data()
        var count = 0
        var truncated = false
        /// The whole body on disk, when the engine records (see ``Recorder``).
        var capture: ResponseCapture?
        /// The task takes its body in one piece (see ``StubURLProtocol/chunkSize(for:)``): chunks are
        /// held (in `capture`, else in `held`) and handed over at the end.
        var onePiece = false
        var held = Data()
    }
}

// MARK: Relaying a forwarded response

extension StubLoad: ForwardingReceiver {
    func forwarder(didReceive response: HTTPURLResponse) {
        executor.perform { [self] in
            var headers: [String: String] = [:]
            for case (let name as String, let value as String) in response.allHeaderFields { headers[name] = value }
            // The forwarder's session already decoded a compressed body: the app gets plain bytes,
            // so the encoding and the encoded length no longer describe them.
            if headers.keys.contains(where: { $0.lowercased() == "content-encoding" }) {
                headers = headers.filter { !["content-encoding", "content-length"].contains($0.key.lowercased()) }
            }
            relay.status = response.statusCode
            relay.headers = headers
            progress.withLock { $0.status = response.statusCode; $0.headers = headers }
            let url = response.url ?? relay.request?.url ?? URL(string: "about:blank")!
            guard let relayed = HTTPURLResponse(url: url, statusCode: response.statusCode, httpVersion: "HTTP/1.1", headerFields: headers) else { return }
            executor.withClient { client, instance in client.urlProtocol(instance, didReceive: relayed, cacheStoragePolicy: .notAllowed) }
        }
    }

    func forwarder(didReceive data: Data) {
        executor.perform { [self] in
            let room = engine.journal.limits.maximumBodySize - relay.kept.count
            if data.count <= room { relay.kept.append(data) } else {
                if room > 0 { relay.kept.append(data.prefix(room)) }
                relay.truncated = true
            }
            relay.count += data.count
            relay.capture?.append(data, keepingOnFailure: relay.onePiece)
            if relay.onePiece {
                if relay.capture == nil { relay.held.append(data) }
                return
            }
            executor.withClient { client, instance in client.urlProtocol(instance, didLoad: data) }
        }
    }

    func forwarder(didCompleteWithError error: (any Error)?) {
        executor.perform { [self] in
            progress.withLock { $0.cancelForward = nil }
            guard let request = relay.request else { return }
            if let error {
                let urlError = error as? URLError ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: error.localizedDescription])
                relay.capture = nil  // nothing half-written: the bundle never sees a failed exchange
                relay.recorder?.noteFailed(urlError)
                record(request, match: nil, status: nil, headers: [:], body: nil, passThrough: true, final: true, error: urlError)
                executor.withClient(ends: true) { client, instance in client.urlProtocol(instance, didFailWithError: urlError) }
                return
            }
            if relay.onePiece && relay.count > 0 {
                let whole = relay.capture?.wholeBody() ?? relay.held
                relay.held = Data()
                executor.withClient { client, instance in client.urlProtocol(instance, didLoad: whole) }
            }
            // Written before the app hears the end, so a finished request is in the bundle.
            var recordedAs: String? = nil, recordingFailure: String? = nil
            if let recorder = relay.recorder, let status = relay.status {
                if relay.capture == nil && relay.count > 0 {
                    // No temporary file could be made: the app got the body from memory, the bundle gets nothing.
                    let error = RecordingError(path: FileManager.default.temporaryDirectory.path, reason: "no temporary file for the response body could be created")
                    recorder.noteFailed(error)
                    recordingFailure = error.reason
                } else {
                    switch recorder.record(request, status: status, headers: relay.headers, capture: relay.capture) {
                    case .success(let file): recordedAs = file.isEmpty ? "(no body)" : file
                    case .failure(let error): recordingFailure = "\(error.path): \(error.reason)"
                    }
                }
            }
            relay.capture = nil
            record(request, match: nil, status: relay.status, headers: relay.headers, body: relay.kept, bodySize: relay.count,
                   truncated: relay.truncated, passThrough: true, final: true, recordedAs: recordedAs, recordingFailure: recordingFailure)
            executor.withClient(ends: true) { client, instance in client.urlProtocolDidFinishLoading(instance) }
        }
    }
}
