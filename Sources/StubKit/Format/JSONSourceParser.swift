import Foundation

/// Parses JSON into a ``SourceValue`` tree that remembers the line and column of every value and key.
///
/// Strict RFC 8259 JSON, with the allowances real files need: a UTF-8 byte order mark, and UTF-16 or
/// UTF-32 text (which `JSONSerialization` reads too), transcoded first. Nesting deeper than ``maximumDepth`` is refused with an error instead of exhausting the stack.
package struct JSONSourceParser {
    package static let maximumDepth = 256

    package init() {}

    package func parse(_ data: Data) throws(SourceSyntaxError) -> SourceValue {
        var bytes = [UInt8](data)
        if let utf8 = try TextEncoding.utf8(fromWide: bytes) { bytes = utf8 }
        try TextEncoding.checkUTF8(bytes)
        var state = State(cursor: ByteCursor(bytes))
        state.skipWhitespace()
        if state.cursor.isAtEnd { throw SourceSyntaxError("the file is empty; expected a JSON value", at: state.cursor.position()) }
        let value = try state.parseValue(depth: 0)
        state.skipWhitespace()
        if !state.cursor.isAtEnd {
            throw SourceSyntaxError("unexpected \(state.describeCurrent()) after the end of the JSON value", at: state.cursor.position())
        }
        return value
    }

    private struct State {
        var cursor: ByteCursor

        mutating func skipWhitespace() {
            while let b = cursor.current, b.isJSONWhitespace { cursor.advance() }
        }

        func describeCurrent() -> String {
            guard let b = cursor.current else { return "end of file" }
            if b >= 0x20 && b < 0x7F { return "'\(Character(UnicodeScalar(b)))'" }
            return String(format: "byte 0x%02X", b)
        }

        mutating func fail(_ message: String) -> SourceSyntaxError {
            SourceSyntaxError(message, at: cursor.position())
        }

        mutating func parseValue(depth: Int) throws(SourceSyntaxError) -> SourceValue {
            guard depth < JSONSourceParser.maximumDepth else {
                throw fail("values are nested more than \(JSONSourceParser.maximumDepth) levels deep")
            }
            let position = cursor.position()
            guard let b = cursor.current else { throw fail("unexpected end of file; expected a value") }
            switch b {
            case UInt8(ascii: "{"): return try parseObject(depth: depth, at: position)
            case UInt8(ascii: "["): return try parseArray(depth: depth, at: position)
            case UInt8(ascii: "\""): return SourceValue(.string(try parseString()), at: position)
            case UInt8(ascii: "t"): try expectLiteral("true"); return SourceValue(.bool(true), at: position)
            case UInt8(ascii: "f"): try expectLiteral("false"); return SourceValue(.bool(false), at: position)
            case UInt8(ascii: "n"): try expectLiteral("null"); return SourceValue(.null, at: position)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber(at: position)
            default:
                throw fail("unexpected \(describeCurrent()); expected a JSON value")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(SourceSyntaxError) {
            guard cursor.starts(with: literal) else {
                throw fail("unexpected \(describeCurrent()); expected a JSON value (strings need double quotes)")
            }
            cursor.advance(by: literal.utf8CodeUnitCount)
        }

        mutating func parseObject(depth: Int, at position: SourcePosition) throws(SourceSyntaxError) -> SourceValue {
            cursor.advance() // {
            var entries: [SourceValue.Entry] = []
            skipWhitespace()
            if cursor.current == UInt8(ascii: "}") {
                cursor.advance()
                return SourceValue(.dictionary(entries), at: position)
            }
            // Room for a small object's keys at once (growing from one entry reallocated twice per rule).
            entries.reserveCapacity(4)
            while true {
                skipWhitespace()
                guard cursor.current == UInt8(ascii: "\"") else {
                    if cursor.current == UInt8(ascii: "}") { throw fail("trailing comma before '}'") }
                    throw fail("unexpected \(describeCurrent()); expected a key in double quotes")
                }
                let keyPosition = cursor.position()
                let key = try parseString()
                skipWhitespace()
                guard cursor.current == UInt8(ascii: ":") else {
                    throw fail("unexpected \(describeCurrent()); expected ':' after key \"\(key)\"")
                }
                cursor.advance()
                skipWhitespace()
                let value = try parseValue(depth: depth + 1)
                entries.append(SourceValue.Entry(key: key, keyPosition: keyPosition, value: value))
                skipWhitespace()
                switch cursor.current {
                case UInt8(ascii: ","): cursor.advance()
                case UInt8(ascii: "}"): cursor.advance(); return SourceValue(.dictionary(entries), at: position)
                default: throw fail("unexpected \(describeCurrent()); expected ',' or '}' after the value of \"\(key)\"")
                }
            }
        }

        mutating func parseArray(depth: Int, at position: SourcePosition) throws(SourceSyntaxError) -> SourceValue {
            cursor.advance() // [
            var items: [SourceValue] = []
            skipWhitespace()
            if cursor.current == UInt8(ascii: "]") {
                cursor.advance()
                return SourceValue(.array(items), at: position)
            }
            while true {
                skipWhitespace()
                if cursor.current == UInt8(ascii: "]") { throw fail("trailing comma before ']'") }
                items.append(try parseValue(depth: depth + 1))
                skipWhitespace()
                switch cursor.current {
                case UInt8(ascii: ","): cursor.advance()
                case UInt8(ascii: "]"): cursor.advance(); return SourceValue(.array(items), at: position)
                default: throw fail("unexpected \(describeCurrent()); expected ',' or ']' in an array")
                }
            }
        }

        /// Reads a string; escapes are decoded into one growing buffer, so n escapes cost O(n).
        mutating func parseString() throws(SourceSyntaxError) -> String {
            cursor.advance() // opening quote
            let bytes = cursor.bytes
            var start = cursor.index
            var scratch: [UInt8] = []
            var hasEscapes = false
            while true {
                guard let b = cursor.current else { throw fail("unterminated string") }
                if b == UInt8(ascii: "\"") {
                    let tail = bytes[start..<cursor.index]
                    cursor.advance()
                    guard hasEscapes else { return String(decoding: tail, as: UTF8.self) }
                    scratch.append(contentsOf: tail)
                    return String(decoding: scratch, as: UTF8.self)
                }
                if b < 0x20 {
                    throw fail(b == 0x0A ? "unterminated string (a newline inside a string must be written \\n)" : "control character in a string; escape it")
                }
                guard b == UInt8(ascii: "\\") else {
                    cursor.advance()
                    continue
                }
                if !hasEscapes { scratch.reserveCapacity(64) } // (regex patterns escape often: one buffer, not several)
                hasEscapes = true
                scratch.append(contentsOf: bytes[start..<cursor.index])
                cursor.advance()
                guard let e = cursor.current else { throw fail("unterminated escape sequence") }
                switch e {
                case UInt8(ascii: "\""): scratch.append(0x22)
                case UInt8(ascii: "\\"): scratch.append(0x5C)
                case UInt8(ascii: "/"): scratch.append(0x2F)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    cursor.advance()
                    var scalarValue = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalarValue) {
                        guard cursor.starts(with: "\\u") else { throw fail("unpaired UTF-16 surrogate in \\u escape") }
                        cursor.advance(by: 2)
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("invalid UTF-16 surrogate pair in \\u escape") }
                        scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(scalarValue) else { throw fail("invalid \\u escape (a lone UTF-16 surrogate)") }
                    scratch.append(contentsOf: UTF8.encode(scalar)!)
                    start = cursor.index
                    continue
                default:
                    throw fail("invalid escape '\\\(Character(UnicodeScalar(e)))'")
                }
                cursor.advance()
                start = cursor.index
            }
        }

        mutating func parseHex4() throws(SourceSyntaxError) -> UInt32 {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let b = cursor.current else { throw fail("unterminated \\u escape") }
                let digit: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw fail("invalid hex digit in \\u escape")
                }
                value = value * 16 + digit
                cursor.advance()
            }
            return value
        }

        mutating func parseNumber(at position: SourcePosition) throws(SourceSyntaxError) -> SourceValue {
            let start = cursor.index
            var isInteger = true
            if cursor.current == UInt8(ascii: "-") { cursor.advance() }
            guard let first = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                throw fail("invalid number: expected a digit")
            }
            if first == UInt8(ascii: "0"), let next = cursor.peek(1), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                throw fail("invalid number: leading zeros are not allowed")
            }
            while let b = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { cursor.advance() }
            if cursor.current == UInt8(ascii: ".") {
                isInteger = false
                cursor.advance()
                guard let b = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) else {
                    throw fail("invalid number: expected a digit after '.'")
                }
                while let b = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { cursor.advance() }
            }
            if cursor.current == UInt8(ascii: "e") || cursor.current == UInt8(ascii: "E") {
                isInteger = false
                cursor.advance()
                if cursor.current == UInt8(ascii: "+") || cursor.current == UInt8(ascii: "-") { cursor.advance() }
                guard let b = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) else {
                    throw fail("invalid number: expected a digit in the exponent")
                }
                while let b = cursor.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) { cursor.advance() }
            }
            let text = String(decoding: cursor.bytes[start..<cursor.index], as: UTF8.self)
            if isInteger, let i = Int(text) { return SourceValue(.integer(i), at: position) }
            guard let d = Double(text) else { throw SourceSyntaxError("invalid number '\(text)'", at: position) }
            // Found by the differential tests: 1E400 read as infinity, which JSON cannot express (Foundation refuses it too).
            guard d.isFinite else { throw SourceSyntaxError("number '\(text.prefix(40))' is too large for a 64-bit floating-point number", at: position) }
            return SourceValue(.real(d), at: position)
        }
    }
}
