import Foundation

extension Recorder {
    /// Writes one exchange captured by another tool (a HAR entry, a cassette interaction) exactly as
    /// a recorded one: the same redaction, request conditions, file names and `responses` sequences.
    ///
    /// - Parameters:
    ///   - request: the request as it was sent (its headers are never written).
    ///   - status: the response's HTTP status.
    ///   - headers: the response headers; transfer headers (`Content-Length`, `Content-Encoding`, …)
    ///     are dropped, so `body` must already be decoded.
    ///   - body: the response body, decoded (no gzip or deflate left).
    /// - Returns: the response file's name ("" for an empty body), or the error naming the file that
    ///   could not be written.
    package func record(imported request: StubRequest, status: Int, headers: [String: String], body: Data) -> Result<String, RecordingError> {
        var capture: ResponseCapture? = nil
        if !body.isEmpty {
            guard let made = makeCapture() else {
                return .failure(RecordingError(path: FileManager.default.temporaryDirectory.path, reason: "cannot create a temporary file for a response body"))
            }
            made.append(body)
            capture = made
        }
        return record(request, status: status, headers: headers, capture: capture)
    }
}
