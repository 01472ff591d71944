#if Tools
import Foundation
import StubKit

/// A HAR document as traffic: every entry of a browser's or proxy's HAR is real traffic; in StubKit's
/// own export (entries with `_stubkit`) only what was passed through or recorded reached a backend.
///
/// The document is decoded once; each entry's line comes from one scan of the bytes for where the
/// objects of `log.entries` open, and a document that does not decode is parsed again only to say
/// where it breaks.
struct HARTrafficReader {
    let display: String

    func read(_ data: Data, _ visit: (TrafficEntry) -> Void) throws(TrafficReader.ReadError) -> TrafficReader.Summary {
        let har: HAR
        do { har = try JSONDecoder().decode(HAR.self, from: data) } catch {
            if case .failure(let syntax) = Result(catching: { () throws(SourceSyntaxError) in try JSONSourceParser().parse(data) }) {
                let at = syntax.position.map { ":\($0.line):\($0.column)" } ?? ""
                throw TrafficReader.ReadError(description: "\(display)\(at): not a HAR file or a live journal: \(syntax.message)")
            }
            throw TrafficReader.ReadError(description: "\(display): not a HAR file (\(TrafficReader.describe(error)))")
        }
        var summary = TrafficReader.Summary(kind: .har)
        let positions = HAREntryLocator.positions(in: data)
        for (i, harEntry) in har.log.entries.enumerated() {
            let source = TrafficEntry.Source(file: display, position: i < positions.count ? positions[i] : nil, keyPath: "log.entries[\(i)]")
            guard let request = harEntry.request, let urlText = request.url, let requestURL = URL(string: urlText), requestURL.host != nil else {
                summary.problems.append(Diagnostic(.trafficNotChecked, file: display, position: source.position, keyPath: source.keyPath,
                                                   message: "entry \(i + 1) has no absolute request URL; not checked"))
                continue
            }
            summary.entries += 1
            let truncated = harEntry.stubkit?.truncated ?? []
            var entry = TrafficEntry(index: i + 1, method: request.method ?? "GET", url: requestURL,
                                     headers: Self.headers(request.headers), body: nil, response: nil, source: source)
            readBody(of: request, into: &entry)
            entry.bodyTruncated = truncated.contains("request")
            if harEntry.stubkitUnreadable {
                summary.problems.append(Diagnostic(.trafficNotChecked, file: display, position: source.position, keyPath: source.keyPath,
                                                   message: "entry \(i + 1) has a '_stubkit' object this version cannot read, so whether a stub answered it is unknown; its response is not checked"))
            }
            if let response = harEntry.response, let status = response.status?.value, status > 0 {
                // StubKit marks what it answered itself; a HAR from anywhere else is all real traffic.
                let isReal = harEntry.stubkitUnreadable ? false : harEntry.stubkit.map { $0.passedThrough == true || $0.recorded != nil } ?? true
                var headers = Self.headers(response.headers)
                if !headers.contains(where: { $0.name.lowercased() == "content-type" }), let mime = response.content?.mimeType, !mime.isEmpty {
                    headers.append(.init(name: "Content-Type", value: mime))
                }
                entry.response = .init(status: status, headers: headers, body: Self.body(response.content?.text, encoding: response.content?.encoding),
                                       bodyTruncated: truncated.contains("response"), isReal: isReal)
            }
            visit(entry)
        }
        return summary
    }

    /// The body as sent: `postData.text`, or its `params` written as a form; a body the HAR says was
    /// sent but does not keep is unknown, not absent.
    private func readBody(of request: HAR.Request, into entry: inout TrafficEntry) {
        let postData = request.postData
        if let mime = postData?.mimeType, !mime.isEmpty, entry.header("Content-Type") == nil {
            entry.headers.append(.init(name: "Content-Type", value: mime))
        }
        if let text = postData?.text {
            entry.body = Self.body(text, encoding: postData?.encoding)
            return
        }
        if let params = postData?.params, !params.isEmpty {
            var form = URLComponents()
            form.queryItems = params.map { URLQueryItem(name: $0.name ?? "", value: $0.value) }
            entry.body = Data((form.percentEncodedQuery ?? "").utf8)
            return
        }
        let declared = entry.header("Content-Length").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let size = request.bodySize ?? 0
        // -1 is HAR's "unknown": for a method that carries a body, that is not "none".
        let carriesBody = !["GET", "HEAD", "OPTIONS", "DELETE", "TRACE"].contains(entry.method)
        if size > 0 || declared > 0 || (size < 0 && carriesBody) || entry.header("Transfer-Encoding") != nil {
            entry.bodyIsKnown = false
        }
    }

    static func headers(_ list: [HAR.NameValue]?) -> [TrafficEntry.Header] {
        (list ?? []).compactMap { header in
            header.name.map { TrafficEntry.Header(name: $0.trimmingCharacters(in: .whitespaces), value: (header.value ?? "").trimmingCharacters(in: .whitespaces)) }
        }
    }

    static func body(_ text: String?, encoding: String?) -> Data? {
        guard let text else { return nil }
        if encoding?.lowercased() == "base64" { return Data(base64Encoded: text, options: .ignoreUnknownCharacters) }
        return Data(text.utf8)
    }
}

/// Where each object of a HAR's `log.entries` opens, from one pass over the bytes that follows strings
/// and nesting and builds nothing: the line and column diagnostics point at.
enum HAREntryLocator {
    static func positions(in data: Data) -> [SourcePosition] {
        struct Frame {
            var isObject: Bool
            var expectingKey: Bool
            /// The bytes of the key whose value is being read.
            var key: Range<Int>?
        }
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [SourcePosition] in
            func isKey(_ range: Range<Int>?, _ word: StaticString) -> Bool {
                guard let range, range.count == word.utf8CodeUnitCount else { return false }
                return word.withUTF8Buffer { word in zip(range, word).allSatisfy { bytes[$0.0] == $0.1 } }
            }
            var out: [SourcePosition] = []
            var stack: [Frame] = []
            var line = 1
            var lineStart = 0
            var inString = false
            var escaped = false
            var stringStart = 0
            var stringIsKey = false
            for i in 0..<bytes.count {
                let byte = bytes[i]
                if inString {
                    if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") {
                        inString = false
                        if stringIsKey { stack[stack.count - 1].key = stringStart..<i }
                    }
                    continue
                }
                switch byte {
                case UInt8(ascii: "\n"):
                    line += 1
                    lineStart = i + 1
                case UInt8(ascii: "\""):
                    inString = true
                    stringStart = i + 1
                    stringIsKey = stack.last.map { $0.isObject && $0.expectingKey } ?? false
                case UInt8(ascii: ":"):
                    if !stack.isEmpty { stack[stack.count - 1].expectingKey = false }
                case UInt8(ascii: ","):
                    if let last = stack.last, last.isObject { stack[stack.count - 1].expectingKey = true }
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let isObject = byte == UInt8(ascii: "{")
                    if isObject, stack.count == 3, !stack[2].isObject, isKey(stack[1].key, "entries"), isKey(stack[0].key, "log") {
                        out.append(SourcePosition(line: line, column: i - lineStart + 1))
                    }
                    stack.append(Frame(isObject: isObject, expectingKey: isObject, key: nil))
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    if !stack.isEmpty { stack.removeLast() }
                default:
                    break
                }
            }
            return out
        }
    }
}
#endif
