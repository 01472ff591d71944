#if Tools
import Foundation
import StubKit

/// Turns one recorded request and response (from a HAR entry or a cassette) into an exchange for the
/// writer, or notes why it cannot be one. The rules for what is carried over live here, once for
/// every traffic format.
enum ExchangeBuilder {
    struct Recorded {
        var source: String
        var method: String
        var url: String
        var requestHeaders: [(String, String)] = []
        var requestBody: Data?
        var status: Int
        var headers: [(String, String)] = []
        var body: Data
        /// The body's media type when the headers do not say (HAR's `content.mimeType`).
        var mimeType: String?
        /// Whether the source said the body was left out (HAR `content.size` > 0 without `text`).
        var missingBodySize: Int?
        var startedAt: Date?
    }

    static func build(_ recorded: Recorded, into batch: inout ImportBatch) {
        let source = recorded.source
        guard let url = URL(string: recorded.url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme), url.host != nil else {
            batch.note(source, "the URL '\(recorded.url)' is not an absolute http(s) URL; entry not imported")
            return
        }
        let method = recorded.method.uppercased()
        guard !method.isEmpty, method.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "_" }) else {
            batch.note(source, "the method '\(recorded.method)' is not an HTTP method; entry not imported")
            return
        }
        var status = recorded.status
        var body = recorded.body
        switch status {
        case 0:
            batch.note(source, "status 0 (no response: the request was blocked, cancelled or failed before an answer); entry not imported")
            return
        case 101:
            batch.note(source, "status 101 Switching Protocols (a WebSocket): StubKit serves HTTP responses only; entry not imported")
            return
        case 304 where !body.isEmpty:
            // A browser shows the cached body beside a 304; an app replaying it needs the body.
            status = 200
            batch.note(source, "304 Not Modified with the cached body the tool showed: imported as 200 with that body")
        case 304:
            batch.note(source, "304 Not Modified without a body: imported as an empty 304, which only suits a conditional request")
        case 100...599:
            break
        default:
            batch.note(source, "status \(status) is outside 100...599; entry not imported")
            return
        }
        var headers: [String: String] = [:]
        var names: [String: String] = [:]  // lower-cased → first spelling
        for (name, value) in recorded.headers where !name.hasPrefix(":") {
            let lowered = name.lowercased()
            if let first = names[lowered] {
                headers[first] = headers[first]! + ", " + value
            } else {
                names[lowered] = name
                headers[name] = value
            }
        }
        let encoding = names["content-encoding"].flatMap { headers[$0] }?.lowercased()
        if let encoding, encoding.contains("gzip") || encoding.contains("deflate") {
            if Gzip.isGzip(body) || (encoding.contains("deflate") && body.first == 0x78) {
                do {
                    body = try Gzip.decompress(body, limit: max(0, batch.inflateLimit - batch.inflatedBytes))
                    batch.inflatedBytes += body.count
                } catch {
                    batch.note(source, "the body is declared '\(encoding)' but cannot be decompressed (\(error.description)); entry not imported")
                    return
                }
            }
        } else if let encoding, !encoding.isEmpty, encoding != "identity", String(data: body, encoding: .utf8) == nil {
            batch.note(source, "the body is stored '\(encoding)'-encoded, which the importer cannot decode; it is served as stored, without Content-Encoding")
        }
        if names["content-type"] == nil, !body.isEmpty {
            // HAR's content.mimeType, else what StubKit serves for a body of unknown type anyway:
            // written out, so an export of the bundle says the same and imports back the same.
            let mimeType = recorded.mimeType?.trimmingCharacters(in: .whitespaces) ?? ""
            headers["Content-Type"] = mimeType.isEmpty || mimeType == "x-unknown" ? "application/octet-stream" : mimeType
        }
        if let missing = recorded.missingBodySize, missing > 0, body.isEmpty {
            batch.note(source, "the file holds no body for this response (\(missing) bytes were sent; the tool did not save it); imported with an empty body")
        }
        let requestHeaders = Dictionary(recorded.requestHeaders.filter { !$0.0.hasPrefix(":") }, uniquingKeysWith: { first, next in first + ", " + next })
        let request = StubRequest(method: method, url: url, headers: requestHeaders, body: recorded.requestBody)
        batch.entries.append(.exchange(.init(source: source, request: request, status: status, headers: headers, body: body, startedAt: recorded.startedAt)))
    }

    /// ISO 8601 dates, with or without fractional seconds; made once per file (a formatter is costly to make).
    final class DateParser {
        private let fractional = ISO8601DateFormatter()
        private let whole = ISO8601DateFormatter()

        init() {
            fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            whole.formatOptions = [.withInternetDateTime]
        }

        func date(_ text: String) -> Date? {
            fractional.date(from: text) ?? whole.date(from: text)
        }
    }

    static func date(_ text: String?) -> Date? {
        text.flatMap(DateParser().date)
    }

    /// `a=1&b=2` from name/value pairs, percent-encoded as a form.
    static func formEncoded(_ pairs: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._*")
        func encode(_ text: String) -> String {
            (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text)
        }
        return pairs.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&")
    }
}
#endif
