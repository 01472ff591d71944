/// Checks and normalises the encoding of a text rules file before it is parsed.
///
/// The parsers read UTF-8. UTF-16 and UTF-32 files (by byte order mark, or ASCII text with NULs between
/// the characters), which some editors write and Apple's readers accept, are transcoded to UTF-8 first;
/// the loader adds a note suggesting UTF-8. Invalid UTF-8 is an error at its line and column, with the
/// fix: save the file as UTF-8.
enum TextEncoding {
    static let saveAsUTF8 = "save it as UTF-8 (in Xcode: File Inspector > Text Encoding; in VS Code: the encoding in the status bar)"

    /// Throws if `bytes` are not valid UTF-8.
    static func checkUTF8(_ bytes: [UInt8]) throws(SourceSyntaxError) {
        if let bad = firstInvalidUTF8(in: bytes) {
            var cursor = ByteCursor(bytes)
            while cursor.index < bad { cursor.advance() }
            throw SourceSyntaxError(String(format: "invalid UTF-8 (byte 0x%02X); the file may be in another encoding such as Latin-1 or Windows-1252; ", bytes[bad]) + saveAsUTF8,
                                    at: cursor.position())
        }
    }

    /// UTF-16 or UTF-32 text (as ``wideEncoding(of:)`` recognises it) as UTF-8 without the byte order
    /// mark; `nil` when the bytes are not wide text. Throws at the first code unit that is not valid
    /// (a lone surrogate, a value above U+10FFFF, a truncated last unit), naming its line and column.
    static func utf8(fromWide bytes: [UInt8]) throws(SourceSyntaxError) -> [UInt8]? {
        guard let name = wideEncoding(of: bytes) else { return nil }
        let width = name.hasPrefix("UTF-32") ? 4 : 2
        let bigEndian = name.contains("big-endian")
        let hasMark = !name.contains("without")
        var units: [UInt32] = []
        units.reserveCapacity(bytes.count / width)
        var i = hasMark ? width : 0
        while i + width <= bytes.count {
            var unit: UInt32 = 0
            for k in 0..<width {
                let byte = UInt32(bytes[bigEndian ? i + k : i + width - 1 - k])
                unit = unit << 8 | byte
            }
            units.append(unit)
            i += width
        }
        var out: [UInt8] = []
        out.reserveCapacity(units.count)
        var line = 1, column = 1
        func fail(_ what: String) -> SourceSyntaxError {
            SourceSyntaxError("\(what) in this \(name) file; \(saveAsUTF8)", at: SourcePosition(line: line, column: column))
        }
        var k = 0
        while k < units.count {
            var scalar: Unicode.Scalar?
            if width == 4 {
                scalar = Unicode.Scalar(units[k])
                k += 1
            } else {
                let u = units[k]
                if (0xD800...0xDBFF).contains(u), k + 1 < units.count, (0xDC00...0xDFFF).contains(units[k + 1]) {
                    scalar = Unicode.Scalar(0x10000 + ((u - 0xD800) << 10) + (units[k + 1] - 0xDC00))
                    k += 2
                } else {
                    scalar = Unicode.Scalar(u)
                    k += 1
                }
            }
            guard let scalar else { throw fail(width == 4 ? "a value that is not a Unicode character" : "a lone surrogate") }
            out.append(contentsOf: String(Character(scalar)).utf8)
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        if i < bytes.count { throw fail("a truncated last character") }
        return out
    }

    /// "UTF-16 (little-endian)" and the like, for files that are plainly not UTF-8.
    static func wideEncoding(of bytes: [UInt8]) -> String? {
        if bytes.starts(with: [0xFF, 0xFE, 0, 0]) { return "UTF-32 (little-endian)" }
        if bytes.starts(with: [0, 0, 0xFE, 0xFF]) { return "UTF-32 (big-endian)" }
        if bytes.starts(with: [0xFF, 0xFE]) { return "UTF-16 (little-endian)" }
        if bytes.starts(with: [0xFE, 0xFF]) { return "UTF-16 (big-endian)" }
        // No byte order mark: ASCII text in UTF-32 has three NULs beside every character, in UTF-16 one.
        if bytes.count >= 4 {
            if bytes[0] != 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] == 0 { return "UTF-32 (little-endian, without a byte order mark)" }
            if bytes[0] == 0 && bytes[1] == 0 && bytes[2] == 0 && bytes[3] != 0 { return "UTF-32 (big-endian, without a byte order mark)" }
            if bytes[0] != 0 && bytes[1] == 0 && bytes[2] != 0 && bytes[3] == 0 { return "UTF-16 (little-endian, without a byte order mark)" }
            if bytes[0] == 0 && bytes[1] != 0 && bytes[2] == 0 && bytes[3] != 0 { return "UTF-16 (big-endian, without a byte order mark)" }
        }
        return nil
    }

    /// The index of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629: no
    /// overlong forms, no surrogates, nothing above U+10FFFF).
    static func firstInvalidUTF8(in bytes: [UInt8]) -> Int? {
        var i = 0
        let n = bytes.count
        while i < n {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            let length: Int, lower: UInt8, upper: UInt8
            switch b {
            case 0xC2...0xDF: length = 2; lower = 0x80; upper = 0xBF
            case 0xE0: length = 3; lower = 0xA0; upper = 0xBF
            case 0xED: length = 3; lower = 0x80; upper = 0x9F
            case 0xE1...0xEF: length = 3; lower = 0x80; upper = 0xBF
            case 0xF0: length = 4; lower = 0x90; upper = 0xBF
            case 0xF4: length = 4; lower = 0x80; upper = 0x8F
            case 0xF1...0xF3: length = 4; lower = 0x80; upper = 0xBF
            default: return i
            }
            guard i + length <= n, (lower...upper).contains(bytes[i + 1]) else { return i }
            for k in 2..<max(2, length) where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }

    /// Latin-1 bytes as UTF-8: each byte is the code point of the same number.
    static func latin1ToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for b in bytes {
            if b < 0x80 { out.append(b) } else { out.append(0xC0 | b >> 6); out.append(0x80 | b & 0x3F) }
        }
        return out
    }

    /// The `encoding` of an XML declaration at the start of the file (`<?xml version="1.0" encoding="…"?>`), lowercased.
    static func xmlDeclaredEncoding(_ bytes: [UInt8]) -> String? {
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes[start...].starts(with: Array("<?xml".utf8)) else { return nil }
        guard let end = bytes[start...].prefix(200).firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let declaration = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let range = declaration.range(of: "encoding") else { return nil }
        let rest = declaration[range.upperBound...].drop { $0 == " " || $0 == "=" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        return String(rest.dropFirst().prefix { $0 != quote }).lowercased()
    }
}
