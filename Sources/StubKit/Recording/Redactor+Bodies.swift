import Foundation

/// Redaction inside bodies, whatever their declared type: a backend that answers JSON as
/// `text/plain`, a form sent without its content type, multipart form data, XML, GraphQL.
extension Redactor {
    /// A body or value with its secrets replaced by ``placeholder``.
    public struct RedactedText: Sendable, Hashable {
        /// The text with every secret value replaced.
        public var text: String
        /// How many values were replaced.
        public var redacted: Int
        /// The values replaced (to find them again elsewhere in the recording).
        public var values: [String]
    }

    /// A textual body with its secrets replaced, sniffed by content rather than trusted by type: JSON
    /// (fields named like secrets, at any depth), `application/x-www-form-urlencoded` (or text shaped
    /// like it), `multipart/form-data` (parts named like secrets), XML (elements and attributes named
    /// like secrets). JSON is re-serialized with sorted keys only when something was replaced.
    public func text(_ text: String, contentType: String?) -> RedactedText {
        let type = contentType?.lowercased() ?? ""
        let trimmed = text.drop { $0.isWhitespace || $0 == "\u{FEFF}" }
        if trimmed.first == "{" || trimmed.first == "[",
           let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) {
            let result = json(value)
            guard result.redacted > 0 else { return RedactedText(text: text, redacted: 0, values: []) }
            let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
            let data = (try? JSONSerialization.data(withJSONObject: result.value, options: options)) ?? Data()
            return RedactedText(text: String(decoding: data, as: UTF8.self), redacted: result.redacted, values: result.values)
        }
        if type.hasPrefix("multipart/") || trimmed.hasPrefix("--"), let boundary = Self.boundary(contentType ?? "") ?? Self.sniffedBoundary(text) {
            return multipart(text, boundary: boundary)
        }
        if type.contains("xml") || trimmed.first == "<" {
            return xml(text)
        }
        if type.hasPrefix("application/x-www-form-urlencoded") || Self.looksFormEncoded(text) {
            return form(text)
        }
        return RedactedText(text: text, redacted: 0, values: [])
    }

    /// A string value that holds secrets of its own: JSON text (GraphQL `variables` sent in a query
    /// item) or a GraphQL document with inline arguments (`login(password: "…")`). `nil` when none.
    func embedded(_ text: String) -> RedactedText? {
        let trimmed = text.drop { $0.isWhitespace }
        if trimmed.first == "{" || trimmed.first == "[",
           let value = try? JSONSerialization.jsonObject(with: Data(text.utf8)) {
            let result = json(value)
            guard result.redacted > 0 else { return nil }
            let data = (try? JSONSerialization.data(withJSONObject: result.value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            return RedactedText(text: String(decoding: data, as: UTF8.self), redacted: result.redacted, values: result.values)
        }
        guard text.contains(":"), text.contains("\"") else { return nil }
        let result = replacing(Self.graphQLArgument, in: text)
        return result.redacted > 0 ? result : nil
    }

    /// `a=1&token=x` with secret values replaced; values that hold secrets of their own too.
    func form(_ text: String) -> RedactedText {
        var count = 0
        var values: [String] = []
        let pairs = text.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { return String(pair) }
            let name = PathPattern.percentDecoded(parts[0].replacingOccurrences(of: "+", with: " ")[...])
            let value = PathPattern.percentDecoded(parts[1].replacingOccurrences(of: "+", with: " ")[...])
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

    /// Text of elements and values of attributes named like secrets (namespace prefixes ignored).
    func xml(_ text: String) -> RedactedText {
        let elements = replacing(Self.xmlElement, in: text)
        let attributes = replacing(Self.xmlAttribute, in: elements.text)
        return RedactedText(text: attributes.text, redacted: elements.redacted + attributes.redacted, values: elements.values + attributes.values)
    }

    /// Replaces capture group 2 wherever the name in capture group 1 is a secret.
    private func replacing(_ expression: NSRegularExpression, in text: String) -> RedactedText {
        let source = text as NSString
        var result = "", values: [String] = [], last = 0
        for match in expression.matches(in: text, range: NSRange(location: 0, length: source.length)) {
            let rawName = source.substring(with: match.range(at: 1))
            let name = rawName.split(separator: ":").last.map(String.init) ?? rawName
            let value = match.range(at: 2)
            guard isSecret(name), value.location != NSNotFound, value.length > 0 else { continue }
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
    private static let xmlElement = try! NSRegularExpression(pattern: #"<([A-Za-z_][-\w.:]*)(?:\s[^>]*)?>([^<]*)</\1\s*>"#)
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
