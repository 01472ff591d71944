import Foundation

/// WebSocket rules: the request conditions of an upgrade and a `webSocket` script instead of a response.
extension BundleWriter {
    /// Adds a rule that answers upgrades matching `request` with `script` (a `webSocket` object), and
    /// rewrites the rules file.
    ///
    /// A script has no sequence of responses as an HTTP rule has, so a second conversation for the same
    /// conditions is not written: the first recorded one stays, and the caller says so.
    ///
    /// - Returns: whether the rule was added (`false`: one for these conditions exists).
    /// - Throws: ``RecordingError`` naming the rules file; the bundle on disk is then unchanged.
    func appendWebSocket(_ request: RequestConditions, script: JSONText) throws(RecordingError) -> Bool {
        var request = request
        request.webSocket = true
        let outcome: Result<Bool, RecordingError> = state.withLock { state in
            guard state.groupIndex[request] == nil else { return .success(false) }
            var next = state
            next.add(request, Stored(status: 101, headers: [:], webSocket: script))
            if !state.batching {
                do { try write(next) } catch {
                    return .failure(RecordingError(path: rulesFile.path, reason: "cannot write the rules file: \(error.localizedDescription)"))
                }
            }
            state = next
            return .success(true)
        }
        return try outcome.get()
    }
}
