import Foundation

/// Redaction inside bodies, whatever their declared type: a backend that answers JSON as
/// `text/plain`, a form sent without its content type, multipart form data, XML, GraphQL.
extension Redactor {
    /// A body or value with its secrets replaced by ``placeholder``.
    package struct RedactedText: Sendable, Hashable {
        /// The text with every secret value replaced.
        package var text: String
        /// How many values were replaced.
        package var redacted: Int
        /// The values replaced (to find them again elsewhere in the recording).
        package var values: [String]
    }

    /// A textual body with its secrets replaced, sniffed by content rather than trusted by type: JSON
    /// (fields named like secrets, at any depth), `application/x-www-form-urlencoded` (or text shaped
    /// like it), `multipart/form-data` (parts named like secrets), XML (elements and attributes named
    /// like secrets), JSON after an anti-XSSI prefix (`)]}'`, kept), NDJSON (per line), XML CDATA
    /// sections. Query items named like secrets in URLs inside JSON strings, form values and XML are
    /// replaced too (see `urlQueries(_:depth:)`). JSON is re-serialized with sorted keys only when
    /// something was replaced.
    package func text(_ text: String, contentType: String?) -> RedactedText {
        let type = contentType?.lowercased() ?? ""
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.first == "{" || trimmed.first == "[", let result = jsonDocument(text) {
            return result
        }
        // Google's anti-XSSI prefix (`)]}'` and its kin) before JSON: redacted after it, kept on write.
        if let prefix = Self.xssiPrefixes.first(where: { trimmed.hasPrefix($0) }) {
            let start = text.range(of: prefix)!.upperBound
            if let result = jsonDocument(String(text[start...])) {
                return RedactedText(text: String(text[..<start]) + result.text, redacted: result.redacted, values: result.values)
            }
        }
        if type.contains("ndjson") || type.contains("jsonl") || type.contains("json-seq") || Self.looksLineDelimitedJSON(text) {
            return lineDelimitedJSON(text)
        }
        if type.hasPrefix("multipart/") || trimmed.hasPrefix("--"), let boundary = Self.boundary(contentType ?? "") ?? Self.sniffedBoundary(text) {
            return multipart(text, boundary: boundary)
        }
        if type.contains("xml") || trimmed.first == "<" {
            // URLs in XML values too (a presigned link in `<Url>`), but not in HTML, whose scripts hold
            // `?`-shaped code (`a ? b.withCredentials = …`) that is no query.
            let html = type.contains("html") || trimmed.prefix(15).lowercased().hasPrefix("<!doctype html") || trimmed.prefix(5).lowercased() == "<html"
            return xml(text, urls: !html)
        }
        if type.hasPrefix("application/x-www-form-urlencoded") || Self.looksFormEncoded(text) {
            return form(text)
        }
        return RedactedText(text: text, redacted: 0, values: [])
    }

    /// Prefixes servers put before JSON so a `<script>` cannot run it (anti-XSSI).
    static let xssiPrefixes = [")]}',", ")]}'", "while(1);", "for(;;);"]

    /// One JSON document with its secrets replaced, re-serialized (pretty, sorted keys) only when
    /// something was; `nil` when the text is not JSON.
    private func jsonDocument(_ text: String) -> RedactedText? {
        guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else { return nil }
        let result = json(value)
        guard result.redacted > 0 else { return RedactedText(text: text, redacted: 0, values: []) }
        let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
        let data = (try? JSONSerialization.data(withJSONObject: result.value, options: options)) ?? Data()
        return RedactedText(text: String(decoding: data, as: UTF8.self), redacted: result.redacted, values: result.values)
    }

    /// NDJSON / JSON Lines: each line redacted as its own JSON value, kept on one line.
    private func lineDelimitedJSON(_ text: String) -> RedactedText {
        var count = 0, values: [String] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
            let body = line.hasSuffix("\r") ? line.dropLast() : line[...]
            guard let value = try? JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]) else { return String(line) }
            let result = json(value)
            guard result.redacted > 0,
                  let data = CanonicalJSON.data(result.value)
            else { return String(line) }
            count += result.redacted
            values += result.values
            return String(decoding: data, as: UTF8.self) + (line.hasSuffix("\r") ? "\r" : "")
        }
        return RedactedText(text: lines.joined(separator: "\n"), redacted: count, values: values)
    }

    /// Two or more lines, each an object or array on its own.
    private static func looksLineDelimitedJSON(_ text: String) -> Bool {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard lines.count >= 2, text.count <= 1 << 24 else { return false }
        return lines.allSatisfy { ($0.first == "{" && $0.last == "}") || ($0.first == "[" && $0.last == "]") }
    }

    /// A value with URLs in it (`Location`, `Link: <…>; rel="next"`, a presigned S3 URL in a JSON
    /// string, XML text): each query's items named like secrets (``isSecret(_:in:)``, as parameters)
    /// replaced, and URLs percent-encoded in a query value searched the same way, at any depth.
    /// `nil` when nothing was replaced.
    func urlQueries(_ text: String, depth: Int = 0) -> RedactedText? {
        guard depth < 4, text.contains("?"), text.contains("=") else { return nil }
        let source = text as NSString
        var result = "", values: [String] = [], count = 0, last = 0
        for match in Self.urlQuery.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let range = match.range(at: 1)
            let query = source.substring(with: range)
            var changed = false
            let items = query.split(separator: "&", omittingEmptySubsequences: false).map { item -> String in
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[1].isEmpty else { return String(item) }
                let name = PercentEncoding.decoded(parts[0].replacingOccurrences(of: "+", with: " ")[...])
                let value = PercentEncoding.decoded(parts[1].replacingOccurrences(of: "+", with: " ")[...])
                // `&amp;token=` in XML or HTML text is the item `token`.
                let bare = name.hasPrefix("amp;") ? String(name.dropFirst(4)) : name
                if isSecret(bare) {
                    changed = true; count += 1; values.append(value)
                    return "\(parts[0])=\(Self.placeholder)"
                }
                if let inner = urlQueries(value, depth: depth + 1) {
                    changed = true; count += inner.redacted; values += inner.values
                    return "\(parts[0])=" + (inner.text.addingPercentEncoding(withAllowedCharacters: Self.formValueCharacters) ?? Self.placeholder)
                }
                return String(item)
            }
            guard changed else { continue }
            result += source.substring(with: NSRange(location: last, length: range.location - last)) + items.joined(separator: "&")
            last = range.location + range.length
        }
        guard count > 0 else { return nil }
        result += source.substring(from: last)
        return RedactedText(text: result, redacted: count, values: values)
    }

    /// A string value that holds secrets of its own: JSON text (GraphQL `variables` sent in a query
    /// item) or a GraphQL document with inline arguments (`login(password: "…")`). `nil` when none.
    func embedded(_ text: String) -> RedactedText? {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.first == "{" || trimmed.first == "[",
           let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) {
            let result = json(value)
            guard result.redacted > 0 else { return nil }
            let data = CanonicalJSON.data(result.value) ?? Data()
            return RedactedText(text: String(decoding: data, as: UTF8.self), redacted: result.redacted, values: result.values)
        }
        let url = urlQueries(text)
        let current = url?.text ?? text
        guard current.contains(":"), current.contains("\"") else { return url }
        let result = replacing(Self.graphQLArgument, in: current, place: .document)
        guard result.redacted > 0 else { return url }
        return RedactedText(text: result.text, redacted: result.redacted + (url?.redacted ?? 0), values: (url?.values ?? []) + result.values)
    }

    /// `a=1&token=x` with secret values replaced; values that hold secrets of their own too.
    func form(_ text: String) -> RedactedText {
        var count = 0
        var values: [String] = []
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return String(pair) }
            let name = PercentEncoding.decoded(parts[0].replacingOccurrences(of: "+", with: " ")[...])
            let value = PercentEncoding.decoded(parts[1].replacingOccurrences(of: "+", with: " ")[...])
            if isSecret(name) {
                count += 1
                values.append(value)
                return "\(parts[0])=\(Self.placeholder)"
            }
            if let inner = embedded(value) {
                count += inner.redacted
                values += inner.values
                let encoded = inner.text.addingPercentEncoding(withAllowedCharacters: Self.formValueCharacters) ?? Self.placeholder
                return "\(parts[0])=\(encoded)"
            }
            return String(pair)
        }
        return RedactedText(text: pairs.joined(separator: "&"), redacted: count, values: values)
    }

    /// Parts named like secrets (`Content-Disposition: form-data; name="password"`) emptied to the
    /// placeholder; other parts redacted by their own content.
    func multipart(_ text: String, boundary: String) -> RedactedText {
        let delimiter = "--" + boundary
        var count = 0
        var values: [String] = []
        let pieces = text.components(separatedBy: delimiter).map { piece -> String in
            guard let split = piece.range(of: "\r\n\r\n") ?? piece.range(of: "\n\n") else { return piece }
            let head = String(piece[..<split.lowerBound])
            var body = String(piece[split.upperBound...])
            let trailer = body.hasSuffix("\r\n") ? "\r\n" : body.hasSuffix("\n") ? "\n" : ""
            body = String(body.dropLast(trailer.count))
            let name = Self.attribute("name", in: head)
            if let name, isSecret(name) {
                count += 1
                values.append(body)
                return head + String(piece[split]) + Self.placeholder + trailer
            }
            let partType = head.split(whereSeparator: \.isNewline).first { $0.lowercased().hasPrefix("content-type:") }
                .map { String($0.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces) }
            let inner = self.text(body, contentType: partType)
            guard inner.redacted > 0 else { return piece }
            count += inner.redacted
            values += inner.values
            return head + String(piece[split]) + inner.text + trailer
        }
        return RedactedText(text: pieces.joined(separator: delimiter), redacted: count, values: values)
    }

    /// Text of elements and values of attributes named like secrets (namespace prefixes ignored), and
    /// secret query items of URLs anywhere in the document when `urls`.
    func xml(_ text: String, urls searchURLs: Bool = true) -> RedactedText {
        let elements = replacing(Self.xmlElement, in: text, place: .document)
        let attributes = replacing(Self.xmlAttribute, in: elements.text, place: .document)
        let urls = searchURLs ? urlQueries(attributes.text) : nil
        return RedactedText(text: urls?.text ?? attributes.text, redacted: elements.redacted + attributes.redacted + (urls?.redacted ?? 0),
                            values: elements.values + attributes.values + (urls?.values ?? []))
    }

    /// Replaces capture group 2 wherever the name in capture group 1 is a secret.
    private func replacing(_ expression: NSRegularExpression, in text: String, place: Place) -> RedactedText {
        let source = text as NSString
        var result = "", values: [String] = [], last = 0
        for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let rawName = source.substring(with: match.range(at: 1))
            let name = rawName.split(separator: ":").last.map(String.init) ?? rawName
            // A CDATA section's content (group 3) stands for the element's text (group 2).
            let value = match.numberOfRanges > 3 && match.range(at: 3).location != NSNotFound ? match.range(at: 3) : match.range(at: 2)
            guard isSecret(name, in: place), value.location != NSNotFound, value.length > 0 else { continue }
            result += source.substring(with: NSRange(location: last, length: value.location - last)) + Self.placeholder
            values.append(source.substring(with: value))
            last = value.location + value.length
        }
        guard !values.isEmpty else { return RedactedText(text: text, redacted: 0, values: []) }
        result += source.substring(from: last)
        return RedactedText(text: result, redacted: values.count, values: values)
    }

    // `password: "…"` in a GraphQL document (also with the quotes escaped, inside a JSON string).
    private static let graphQLArgument = try! NSRegularExpression(pattern: #"\b([A-Za-z_][A-Za-z0-9_]*)\s*:\s*\\?"((?:[^"\\]|\\[^"])*)\\?""#)
    private static let xmlElement = try! NSRegularExpression(pattern: #"<([A-Za-z_][-\w.:]*)(?:\s[^>]*)?>(?:([^<]*)|\s*<!\[CDATA\[([\s\S]*?)\]\]>\s*)</\1\s*>"#)
    // The query of a URL anywhere in a value: from `?` to the end of the URL.
    private static let urlQuery = try! NSRegularExpression(pattern: #"\?([^#\s<>"'`]+)"#)
    private static let xmlAttribute = try! NSRegularExpression(pattern: #"\s([A-Za-z_][-\w.:]*)\s*=\s*["']([^"'<>]*)["']"#)
    private static let formValueCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    /// `boundary=…` of a multipart content type.
    private static func boundary(_ contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/") else { return nil }
        return attribute("boundary", in: contentType)
    }

    /// The boundary a multipart body starts with, when no content type names it.
    private static func sniffedBoundary(_ text: String) -> String? {
        let trimmed = text.drop { $0.isWhitespace }
        guard trimmed.hasPrefix("--"), let end = trimmed.firstIndex(where: \.isNewline) else { return nil }
        let boundary = String(trimmed[trimmed.index(trimmed.startIndex, offsetBy: 2)..<end]).trimmingCharacters(in: .whitespaces)
        return boundary.isEmpty || boundary.contains(" ") ? nil : boundary
    }

    /// The value of `name=value` or `name="value"` in a header such as `Content-Disposition`.
    private static func attribute(_ name: String, in header: String) -> String? {
        for piece in header.split(whereSeparator: { $0 == ";" || $0.isNewline }) {
            let part = piece.trimmingCharacters(in: .whitespaces)
            guard let equals = part.firstIndex(of: "="), part[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            return part[part.index(after: equals)...].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
        return nil
    }

    /// `name=value&name=value`, with no white space: a form whatever its content type says.
    private static func looksFormEncoded(_ text: String) -> Bool {
        guard !text.isEmpty, text.count <= 1 << 20, text.contains("="), !text.contains(where: \.isWhitespace) else { return false }
        return text.split(separator: "&").allSatisfy { pair in
            guard let equals = pair.firstIndex(of: "=") else { return false }
            return equals != pair.startIndex
        }
    }
}
