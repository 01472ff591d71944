import Foundation

/// Parses a property list into a ``SourceValue`` tree.
///
/// XML property lists are read by a small dedicated parser that keeps the line and column of every
/// element, because Foundation's reader gives none. Binary property lists (`bplist00`) are read by
/// `BinaryPropertyListParser`, with bounds; their values carry no positions, so diagnostics name them
/// by key path only.
package struct PropertyListSourceParser {
    package static let maximumDepth = 256

    package init() {}

    package func parse(_ data: Data) throws(SourceSyntaxError) -> SourceValue {
        if data.starts(with: Array("bplist".utf8)) {
            return try parseBinary(data)
        }
        var bytes = [UInt8](data)
        let wasWide: Bool
        if let utf8 = try TextEncoding.utf8(fromWide: bytes) {
            bytes = utf8
            wasWide = true
        } else {
            wasWide = false
        }
        switch TextEncoding.xmlDeclaredEncoding(bytes) {
        case nil, "utf-8", "utf8", "us-ascii", "ascii":
            break
        case let wide? where wide.hasPrefix("utf-16") || wide.hasPrefix("utf-32"):
            // Read by its byte order mark (or its NULs) above; a declaration the bytes do not bear out is an error.
            if !wasWide {
                throw SourceSyntaxError("the XML declaration names encoding '\(wide)', but the file is not in it; \(TextEncoding.saveAsUTF8), and declare encoding=\"UTF-8\"",
                                        at: SourcePosition(line: 1, column: 1))
            }
        case "iso-8859-1", "latin1", "latin-1", "iso_8859-1":
            // One byte per character, so lines and columns stay where the author sees them. (A wide
            // file was read by its byte order mark, whatever it declares.)
            if !wasWide { bytes = TextEncoding.latin1ToUTF8(bytes) }
        case let other?:
            throw SourceSyntaxError("the XML declaration names encoding '\(other)', which StubKit does not read; \(TextEncoding.saveAsUTF8), and declare encoding=\"UTF-8\"",
                                    at: SourcePosition(line: 1, column: 1))
        }
        try TextEncoding.checkUTF8(bytes)
        var state = XMLState(cursor: ByteCursor(bytes))
        return try state.parseDocument()
    }

    // MARK: Binary

    private func parseBinary(_ data: Data) throws(SourceSyntaxError) -> SourceValue {
        var parser = BinaryPropertyListParser([UInt8](data))
        return try parser.parse()
    }

    // MARK: XML

    private struct XMLState {
        var cursor: ByteCursor

        mutating func fail(_ message: String) -> SourceSyntaxError {
            SourceSyntaxError(message, at: cursor.position())
        }

        mutating func skipWhitespace() {
            while let b = cursor.current, b.isJSONWhitespace { cursor.advance() }
        }

        /// Skips whitespace, comments, processing instructions and the DOCTYPE between elements.
        mutating func skipMisc() throws(SourceSyntaxError) {
            while true {
                skipWhitespace()
                if cursor.starts(with: "<!--") {
                    try skip(past: "-->", what: "comment")
                } else if cursor.starts(with: "<?") {
                    try skip(past: "?>", what: "processing instruction")
                } else if cursor.starts(with: "<!DOCTYPE") {
                    try skip(past: ">", what: "DOCTYPE")
                } else {
                    return
                }
            }
        }

        mutating func skip(past terminator: StaticString, what: String) throws(SourceSyntaxError) {
            let start = cursor.position()
            while !cursor.isAtEnd {
                if cursor.starts(with: terminator) {
                    cursor.advance(by: terminator.utf8CodeUnitCount)
                    return
                }
                cursor.advance()
            }
            throw SourceSyntaxError("unterminated \(what)", at: start)
        }

        struct Tag {
            var name: String
            var isClosing: Bool
            var isEmpty: Bool
            var position: SourcePosition
        }

        mutating func readTag() throws(SourceSyntaxError) -> Tag {
            let position = cursor.position()
            guard cursor.current == UInt8(ascii: "<") else {
                if cursor.isAtEnd { throw fail("unexpected end of file; expected an element") }
                throw fail("unexpected text; expected an element such as <dict> or <string>")
            }
            cursor.advance()
            var isClosing = false
            if cursor.current == UInt8(ascii: "/") { isClosing = true; cursor.advance() }
            let nameStart = cursor.index
            while let b = cursor.current, b != UInt8(ascii: ">"), b != UInt8(ascii: "/"), !b.isJSONWhitespace { cursor.advance() }
            let name = String(decoding: cursor.bytes[nameStart..<cursor.index], as: UTF8.self)
            if name.isEmpty { throw SourceSyntaxError("malformed tag", at: position) }
            // Attributes (only <plist version="1.0"> has any) are skipped.
            var inQuote: UInt8? = nil
            var isEmpty = false
            while let b = cursor.current {
                if let q = inQuote {
                    if b == q { inQuote = nil }
                } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                    inQuote = b
                } else if b == UInt8(ascii: "/") && cursor.peek(1) == UInt8(ascii: ">") {
                    isEmpty = true
                    cursor.advance()
                    continue
                } else if b == UInt8(ascii: ">") {
                    cursor.advance()
                    return Tag(name: name, isClosing: isClosing, isEmpty: isEmpty, position: position)
                } else if b == UInt8(ascii: "<") {
                    break
                }
                cursor.advance()
            }
            throw SourceSyntaxError("unterminated tag <\(name)>", at: position)
        }

        mutating func parseDocument() throws(SourceSyntaxError) -> SourceValue {
            try skipMisc()
            if cursor.isAtEnd { throw fail("the file is empty; expected a property list") }
            let root = try readTag()
            let value: SourceValue
            if root.name == "plist" && !root.isClosing {
                if root.isEmpty { throw SourceSyntaxError("<plist/> holds no value", at: root.position) }
                try skipMisc()
                value = try parseValue(try readTag(), depth: 0)
                try skipMisc()
                let close = try readTag()
                guard close.isClosing, close.name == "plist" else {
                    throw SourceSyntaxError("expected </plist> after the top-level value, found <\(close.isClosing ? "/" : "")\(close.name)>", at: close.position)
                }
            } else {
                value = try parseValue(root, depth: 0)
            }
            try skipMisc()
            if !cursor.isAtEnd { throw fail("unexpected content after the end of the property list") }
            return value
        }

        mutating func parseValue(_ tag: Tag, depth: Int) throws(SourceSyntaxError) -> SourceValue {
            guard depth < PropertyListSourceParser.maximumDepth else {
                throw SourceSyntaxError("values are nested more than \(PropertyListSourceParser.maximumDepth) levels deep", at: tag.position)
            }
            if tag.isClosing {
                throw SourceSyntaxError("unexpected </\(tag.name)>; expected a value", at: tag.position)
            }
            let position = tag.position
            switch tag.name {
            case "dict":
                var entries: [SourceValue.Entry] = []
                if tag.isEmpty { return SourceValue(.dictionary(entries), at: position) }
                while true {
                    try skipMisc()
                    let keyTag = try readTag()
                    if keyTag.isClosing && keyTag.name == "dict" { return SourceValue(.dictionary(entries), at: position) }
                    guard keyTag.name == "key", !keyTag.isClosing else {
                        throw SourceSyntaxError("expected <key> inside <dict>, found <\(keyTag.isClosing ? "/" : "")\(keyTag.name)>", at: keyTag.position)
                    }
                    let key = keyTag.isEmpty ? "" : try readText(closing: "key")
                    try skipMisc()
                    let valueTag = try readTag()
                    if valueTag.isClosing {
                        throw SourceSyntaxError("key '\(key)' has no value", at: valueTag.position)
                    }
                    let value = try parseValue(valueTag, depth: depth + 1)
                    entries.append(SourceValue.Entry(key: key, keyPosition: keyTag.position, value: value))
                }
            case "array":
                var items: [SourceValue] = []
                if tag.isEmpty { return SourceValue(.array(items), at: position) }
                while true {
                    try skipMisc()
                    let itemTag = try readTag()
                    if itemTag.isClosing && itemTag.name == "array" { return SourceValue(.array(items), at: position) }
                    items.append(try parseValue(itemTag, depth: depth + 1))
                }
            case "string":
                return SourceValue(.string(tag.isEmpty ? "" : try readText(closing: "string")), at: position)
            case "integer":
                let text = tag.isEmpty ? "" : try readText(closing: "integer").trimmingCharacters(in: .whitespacesAndNewlines)
                guard let kind = Self.integerKind(text) else {
                    throw SourceSyntaxError("invalid <integer> '\(text.prefix(100))'; write a whole number from \(Int64.min) to \(UInt64.max), decimal or 0x hexadecimal", at: position)
                }
                return SourceValue(kind, at: position)
            case "real":
                let text = tag.isEmpty ? "" : try readText(closing: "real").trimmingCharacters(in: .whitespacesAndNewlines)
                guard let d = Double(text) else { throw SourceSyntaxError("invalid <real> '\(text)'", at: position) }
                return SourceValue(.real(d), at: position)
            case "true", "false":
                if !tag.isEmpty {
                    try skipMisc()
                    let close = try readTag()
                    guard close.isClosing, close.name == tag.name else { throw SourceSyntaxError("expected </\(tag.name)>", at: close.position) }
                }
                return SourceValue(.bool(tag.name == "true"), at: position)
            case "date":
                let text = tag.isEmpty ? "" : try readText(closing: "date").trimmingCharacters(in: .whitespacesAndNewlines)
                guard let d = ISO8601DateFormatter().date(from: text) else { throw SourceSyntaxError("invalid <date> '\(text)'; use ISO 8601 such as 2024-01-31T12:00:00Z", at: position) }
                return SourceValue(.date(d), at: position)
            case "data":
                let text = tag.isEmpty ? "" : try readText(closing: "data")
                let compact = text.filter { !$0.isWhitespace }
                guard let d = Data(base64Encoded: compact) else { throw SourceSyntaxError("invalid base64 in <data>", at: position) }
                return SourceValue(.data(d), at: position)
            default:
                throw SourceSyntaxError("unknown property list element <\(tag.name)>", at: position)
            }
        }

        /// An `<integer>` as Apple's reader takes it: an optional sign, then decimal or `0x` hexadecimal,
        /// up to UInt64.max. Values above Int.max become reals (the tree's integers are `Int`).
        static func integerKind(_ text: String) -> SourceValue.Kind? {
            var digits = Substring(text)
            var negative = false
            if let sign = digits.first, sign == "-" || sign == "+" {
                negative = sign == "-"
                digits = digits.dropFirst()
            }
            var radix = 10
            if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
                radix = 16
                digits = digits.dropFirst(2)
            }
            guard !digits.isEmpty, digits.first != "+", digits.first != "-", let magnitude = UInt64(digits, radix: radix) else { return nil }
            if negative {
                guard magnitude <= UInt64(Int.max) + 1 else { return nil }
                return .integer(magnitude == UInt64(Int.max) + 1 ? Int.min : -Int(magnitude))
            }
            return magnitude <= UInt64(Int.max) ? .integer(Int(magnitude)) : .real(Double(magnitude))
        }

        /// Reads character data up to `</name>`, decoding entities and CDATA sections.
        mutating func readText(closing name: String) throws(SourceSyntaxError) -> String {
            var out: [UInt8] = []
            let start = cursor.position()
            while let b = cursor.current {
                if b == UInt8(ascii: "<") {
                    if cursor.starts(with: "<![CDATA[") {
                        cursor.advance(by: 9)
                        while !cursor.isAtEnd && !cursor.starts(with: "]]>") {
                            out.append(cursor.current!)
                            cursor.advance()
                        }
                        guard !cursor.isAtEnd else { throw SourceSyntaxError("unterminated CDATA section", at: start) }
                        cursor.advance(by: 3)
                        continue
                    }
                    if cursor.starts(with: "<!--") {
                        try skip(past: "-->", what: "comment")
                        continue
                    }
                    let tag = try readTag()
                    guard tag.isClosing, tag.name == name else {
                        throw SourceSyntaxError("expected </\(name)>, found <\(tag.isClosing ? "/" : "")\(tag.name)>", at: tag.position)
                    }
                    return String(decoding: out, as: UTF8.self)
                }
                if b == UInt8(ascii: "&") {
                    out.append(contentsOf: try readEntity())
                    continue
                }
                out.append(b)
                cursor.advance()
            }
            throw SourceSyntaxError("unterminated <\(name)>", at: start)
        }

        mutating func readEntity() throws(SourceSyntaxError) -> [UInt8] {
            let position = cursor.position()
            let start = cursor.index
            while let b = cursor.current, b != UInt8(ascii: ";"), cursor.index - start < 12 { cursor.advance() }
            guard cursor.current == UInt8(ascii: ";") else { throw SourceSyntaxError("unterminated entity; write & as &amp;", at: position) }
            let name = String(decoding: cursor.bytes[(start + 1)..<cursor.index], as: UTF8.self)
            cursor.advance()
            switch name {
            case "amp": return [UInt8(ascii: "&")]
            case "lt": return [UInt8(ascii: "<")]
            case "gt": return [UInt8(ascii: ">")]
            case "quot": return [UInt8(ascii: "\"")]
            case "apos": return [UInt8(ascii: "'")]
            default:
                var scalarValue: UInt32?
                if name.hasPrefix("#x") || name.hasPrefix("#X") { scalarValue = UInt32(name.dropFirst(2), radix: 16) }
                else if name.hasPrefix("#") { scalarValue = UInt32(name.dropFirst(1)) }
                guard let v = scalarValue, let scalar = Unicode.Scalar(v) else {
                    throw SourceSyntaxError("unknown entity '&\(name);'", at: position)
                }
                return Array(String(Character(scalar)).utf8)
            }
        }
    }
}
