import Foundation

extension StubJournal {
    /// The journal as HAR 1.2, which browser developer tools, Charles and Proxyman open.
    ///
    /// Each entry carries StubKit's own fields under `_stubkit` (bundle, rule, near misses), as HAR
    /// allows custom fields that start with an underscore.
    public func harData() -> Data {
        var log = HAR.Log(creator: HAR.Creator(name: "StubKit", version: StubKitVersion.current), entries: entries.map(Self.harEntry))
        let dropped = droppedEntryCount
        if dropped > 0 {
            log.comment = "StubKit dropped the \(dropped) oldest requests to stay within the journal's limits"
            log.stubkit = HAR.LogExtras(droppedEntries: dropped)
        }
        return HAR(log: log).encoded()
    }

    /// Writes ``harData()`` to a file, replacing it.
    public func writeHAR(to url: URL) throws {
        try harData().write(to: url, options: .atomic)
    }

    private static func harEntry(_ entry: JournalEntry) -> HAR.Entry {
        let milliseconds = (entry.duration * 1000 * 1000).rounded() / 1000
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let request = entry.request
        var postData: HAR.PostData? = nil
        if let body = request.body {
            var comment: String? = nil
            if entry.requestBodyTruncated {
                comment = entry.requestBodySize < 0
                    ? "truncated by StubKit's journal: the first \(body.count) bytes of a body of unknown size"
                    : "truncated by StubKit's journal: the first \(body.count) of \(entry.requestBodySize) bytes"
            }
            postData = HAR.PostData(mimeType: request.header("Content-Type") ?? "application/octet-stream", body: body, comment: comment)
        }
        let harRequest = HAR.Request(method: request.method, url: request.url.absoluteString,
                                     headers: request.headers.sorted { $0.key < $1.key }.map { HAR.NameValue(name: $0.key, value: $0.value) },
                                     queryString: request.queryItems.map { HAR.NameValue(name: $0.name, value: $0.value) },
                                     bodySize: entry.requestBodySize, postData: postData)
        let mimeType = entry.responseHeaders.first { $0.key.lowercased() == "content-type" }?.value ?? "x-unknown"
        var content = HAR.Content(size: entry.responseBodySize, mimeType: mimeType, body: entry.responseBody)
        if let body = entry.responseBody, entry.responseBodyTruncated {
            content.comment = "truncated by StubKit's journal: the first \(body.count) of \(entry.responseBodySize) bytes"
        }
        let harResponse = HAR.Response(
            status: entry.status ?? 0, statusText: entry.status.map { HTTPStatusText.text(for: $0) } ?? "",
            headers: entry.responseHeaders.sorted { $0.key < $1.key }.map { HAR.NameValue(name: $0.key, value: $0.value) },
            content: content, redirectURL: entry.responseHeaders.first { $0.key.lowercased() == "location" }?.value ?? "",
            bodySize: entry.status == nil ? -1 : entry.responseBodySize)
        var stubkit = HAR.EntryExtras(answered: entry.rule != nil)
        if entry.passedThrough { stubkit.passedThrough = true }
        stubkit.recorded = entry.recordedAs
        stubkit.recordingFailed = entry.recordingFailure
        if entry.requestBodyTruncated || entry.responseBodyTruncated {
            stubkit.truncated = (entry.requestBodyTruncated ? ["request"] : []) + (entry.responseBodyTruncated ? ["response"] : [])
        }
        stubkit.bundle = entry.bundle
        if let rule = entry.rule { stubkit.rule = rule.name; stubkit.location = rule.location }
        if let error = entry.error { stubkit.error = HAR.EntryExtras.Failure(code: error.code, description: error.description) }
        if !entry.nearMisses.isEmpty {
            stubkit.nearMisses = entry.nearMisses.map { miss in
                HAR.EntryExtras.NearMiss(bundle: miss.bundle, rule: miss.rule.displayName, location: miss.rule.source.locationDescription,
                                         mismatches: miss.mismatches.map(\.description))
            }
        }
        if !entry.contractFindings.isEmpty {
            stubkit.contract = entry.contractFindings.map { finding in
                HAR.EntryExtras.JournalContractFinding(code: finding.code, severity: finding.severity.rawValue, subject: finding.subject.rawValue,
                                                message: finding.message, pointer: finding.pointer, parameter: finding.parameter)
            }
        }
        var harEntry = HAR.Entry(startedDateTime: formatter.string(from: entry.startedAt), time: milliseconds, request: harRequest,
                                 response: harResponse, comment: entry.error?.description, stubkit: stubkit)
        harEntry.webSocketMessages = entry.webSocketMessages?.map(HAR.WebSocketMessage.init)
        if entry.webSocketMessagesDropped > 0 {
            harEntry.comment = "StubKit's journal left out the last \(entry.webSocketMessagesDropped) WebSocket frames to stay within its limits"
        }
        return harEntry
    }
}

/// Reason phrases for HAR's `statusText`.
enum HTTPStatusText {
    static func text(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 409: return "Conflict"
        case 422: return "Unprocessable Content"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
