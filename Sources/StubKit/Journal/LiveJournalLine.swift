import Foundation

/// One line of a live journal file (`STUB_JOURNAL_LIVE`): the app writes them, a test runner in another
/// process reads them while the app runs.
///
/// Version 1 of the format: each line is one JSON object followed by `\n`, with `"v": 1` and `"kind"`:
///
/// - `"rules"`: the rules of the active bundles, written when the app activates (`rules`: an array of
///   `{bundle, name, location, keyPath}`), so a runner can tell which rules were never used; written
///   again, with only the new rules, for each template activated and rule added at runtime.
/// - `"request"`: one journal entry: `id`, `startedAt` (ISO 8601 with milliseconds), `duration`
///   (seconds), `method`, `url`, `requestHeaders`, `requestBody` (UTF-8 text) or `requestBodyBase64`,
///   `requestBodySize`, `requestBodyTruncated`, `bundle`, `rule` (`{name, location, keyPath}`),
///   `status`, `responseHeaders`, `responseBodySize`, `passedThrough`, `recordedAs`, `error`
///   (`{code, description}`), `nearMisses` (how many rules nearly matched). Absent keys mean "none".
///
/// - `"cleared"`: the app's journal was emptied (runtime control's `clearJournal`); a runner forgets
///   the requests before it. Runners that do not know a kind skip its lines.
///
/// Request bodies are cut to ``bodyPreviewLimit`` bytes (`requestBodyTruncated` says so); response
/// bodies are not written, only their size.
package enum LiveJournalLine: Sendable {
    case rules([Rule])
    case request(JournalEntry)
    /// The journal was emptied: the requests before this line no longer count.
    case cleared

    /// A rule of an active bundle, as the `rules` line names it.
    package struct Rule: Sendable, Hashable, Codable {
        package var bundle: String
        package var name: String
        package var location: String
        package var keyPath: String

        /// The rules of a bundle, as a `rules` line lists them.
        package static func rules(of bundle: StubBundle) -> [Rule] {
            bundle.rules.map { Rule(bundle: bundle.template, name: $0.displayName, location: $0.source.locationDescription, keyPath: $0.source.keyPath) }
        }
    }

    package static let formatVersion = 1
    /// Bytes of a request body written into a line.
    package static let bodyPreviewLimit = 4096

    private struct Line: Codable {
        var v: Int
        var kind: String
        var rules: [Rule]?
        var id: Int?
        var startedAt: String?
        var duration: Double?
        var method: String?
        var url: String?
        var requestHeaders: [String: String]?
        var requestBody: String?
        var requestBodyBase64: String?
        var requestBodySize: Int?
        var requestBodyTruncated: Bool?
        var bundle: String?
        var rule: RuleName?
        var status: Int?
        var responseHeaders: [String: String]?
        var responseBodySize: Int?
        var passedThrough: Bool?
        var recordedAs: String?
        var error: ErrorText?
        var nearMisses: Int?
    }

    private struct RuleName: Codable {
        var name: String
        var location: String
        var keyPath: String
    }

    private struct ErrorText: Codable {
        var code: Int
        var description: String
    }

    private static func dateFormatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }

    /// The line's bytes, ending in `\n`.
    package var encoded: Data {
        var line = Line(v: Self.formatVersion, kind: "rules")
        switch self {
        case .rules(let rules):
            line.rules = rules
        case .cleared:
            line.kind = "cleared"
        case .request(let entry):
            line.kind = "request"
            line.id = entry.id
            line.startedAt = Self.dateFormatter().string(from: entry.startedAt)
            line.duration = entry.duration
            line.method = entry.request.method
            line.url = entry.request.url.absoluteString
            line.requestHeaders = entry.request.headers.isEmpty ? nil : entry.request.headers
            if let body = entry.request.body, !body.isEmpty {
                let preview = body.prefix(Self.bodyPreviewLimit)
                if let text = String(data: preview, encoding: .utf8) { line.requestBody = text } else { line.requestBodyBase64 = preview.base64EncodedString() }
                line.requestBodyTruncated = entry.requestBodyTruncated || preview.count < body.count ? true : nil
            }
            line.requestBodySize = entry.requestBodySize
            line.bundle = entry.bundle
            line.rule = entry.rule.map { RuleName(name: $0.name, location: $0.location, keyPath: $0.keyPath) }
            line.status = entry.status
            line.responseHeaders = entry.responseHeaders.isEmpty ? nil : entry.responseHeaders
            line.responseBodySize = entry.responseBodySize
            line.passedThrough = entry.passedThrough ? true : nil
            line.recordedAs = entry.recordedAs
            line.error = entry.error.map { ErrorText(code: $0.code, description: $0.description) }
            line.nearMisses = entry.nearMisses.isEmpty ? nil : entry.nearMisses.count
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and finite durations: encoding cannot fail.
        var data = (try? encoder.encode(line)) ?? Data("{\"v\":1,\"kind\":\"unencodable\"}".utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Reads one line (without its `\n`). Lines of a kind this version does not know give `nil`, so a
    /// newer app can add kinds without breaking an older runner.
    package init?(decoding data: Data) throws {
        let line = try JSONDecoder().decode(Line.self, from: data)
        guard line.v == Self.formatVersion else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "live journal format version \(line.v); this StubKit reads version \(Self.formatVersion)"))
        }
        switch line.kind {
        case "rules":
            self = .rules(line.rules ?? [])
        case "cleared":
            self = .cleared
        case "request":
            guard let urlText = line.url, let url = URL(string: urlText) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a request line without a valid url"))
            }
            let body = line.requestBody.map { Data($0.utf8) } ?? line.requestBodyBase64.flatMap { Data(base64Encoded: $0) }
            let request = StubRequest(method: line.method ?? "GET", url: url, headers: line.requestHeaders ?? [:], body: body)
            var entry = JournalEntry(
                id: line.id ?? 0, startedAt: line.startedAt.flatMap { Self.dateFormatter().date(from: $0) } ?? Date(timeIntervalSince1970: 0),
                duration: line.duration ?? 0, request: request, bundle: line.bundle,
                rule: line.rule.map { JournalEntry.RuleReference(name: $0.name, location: $0.location, keyPath: $0.keyPath) },
                status: line.status, responseHeaders: line.responseHeaders ?? [:], responseBody: nil,
                responseBodySize: line.responseBodySize ?? 0, passedThrough: line.passedThrough ?? false,
                error: line.error.map { JournalEntry.ErrorInfo(code: $0.code, description: $0.description) }, nearMisses: [])
            entry.requestBodySize = line.requestBodySize ?? body?.count ?? 0
            entry.requestBodyTruncated = line.requestBodyTruncated ?? false
            entry.recordedAs = line.recordedAs
            self = .request(entry)
        default:
            return nil
        }
    }
}
