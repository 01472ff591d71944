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
    /// A HAR that does not decode is parsed again up to this size to say where it breaks.
    static let maximumLocatedBytes = 64 << 20

    func read(_ data: Data, _ visit: (TrafficEntry) -> Void) throws(TrafficReader.ReadError) -> TrafficReader.Summary {
        let har: HAR
        do { har = try JSONDecoder().decode(HAR.self, from: data) } catch {
            // The line and column come from a second parse, which builds a tree: worth it up to a size.
            if data.count <= Self.maximumLocatedBytes,
               case .failure(let syntax) = Result(catching: { () throws(SourceSyntaxError) in try JSONSourceParser().parse(data) }) {
                let at = syntax.position.map { ":\($0.line):\($0.column)" } ?? ""
                throw TrafficReader.ReadError(description: "\(display)\(at): not a HAR file or a live journal: \(syntax.message)")
            }
            let size = data.count > Self.maximumLocatedBytes ? "; over \(Self.maximumLocatedBytes >> 20) MB, so where it breaks is not looked for (cut off?)" : ""
            throw TrafficReader.ReadError(description: "\(display): not a HAR file (\(TrafficReader.describe(error)))\(size)")
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
            // StubKit's export is the app's own journal: the system's stored cookies were never in it.
            if harEntry.stubkit != nil || harEntry.stubkitUnreadable { entry.cookiesAreComplete = false }
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
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\"), newline = UInt8(ascii: "\n")
        let colon = UInt8(ascii: ":"), comma = UInt8(ascii: ","), openBrace = UInt8(ascii: "{"), openBracket = UInt8(ascii: "[")
        let closeBrace = UInt8(ascii: "}"), closeBracket = UInt8(ascii: "]")
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> [SourcePosition] in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [] }
            let count = bytes.count
            func isKey(_ range: Range<Int>?, _ word: StaticString) -> Bool {
                guard let range, range.count == word.utf8CodeUnitCount else { return false }
                return memcmp(base + range.lowerBound, word.utf8Start, range.count) == 0
            }
            var out: [SourcePosition] = []
            var stack: [Frame] = []
            var line = 1
            var lineStart = 0
            var i = 0
            while i < count {
                let byte = base[i]
                if byte == quote {
                    // Most of a HAR is inside strings (bodies): jump to the closing quote, one not escaped.
                    let start = i + 1
                    var end = start
                    while end < count {
                        guard let found = memchr(base + end, Int32(quote), count - end) else { end = count; break }
                        end = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
                        var backslashes = 0
                        while end - backslashes - 1 >= start, base[end - backslashes - 1] == backslash { backslashes += 1 }
                        if backslashes % 2 == 0 { break }
                        end += 1
                    }
                    if let last = stack.last, last.isObject, last.expectingKey { stack[stack.count - 1].key = start..<end }
                    i = end + 1
                    continue
                }
                if byte == newline {
                    line += 1
                    lineStart = i + 1
                } else if byte == colon {
                    if !stack.isEmpty { stack[stack.count - 1].expectingKey = false }
                } else if byte == comma {
                    if let last = stack.last, last.isObject { stack[stack.count - 1].expectingKey = true }
                } else if byte == openBrace || byte == openBracket {
                    let isObject = byte == openBrace
                    if isObject, stack.count == 3, !stack[2].isObject, isKey(stack[1].key, "entries"), isKey(stack[0].key, "log") {
                        out.append(SourcePosition(line: line, column: i - lineStart + 1))
                    }
                    stack.append(Frame(isObject: isObject, expectingKey: isObject, key: nil))
                } else if byte == closeBrace || byte == closeBracket {
                    if !stack.isEmpty { stack.removeLast() }
                }
                i += 1
            }
            return out
        }
    }
}
#endif
