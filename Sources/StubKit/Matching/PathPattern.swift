/// A pattern over the segments of a URL path: `/restaurants/{id}/menu`, `/static/*`, `/api/**`.
///
/// Patterns are values: they can be indexed, compared (to find shadowed rules), printed and explained.
/// Segments are compared after percent-decoding, case-sensitively; empty segments (a doubled or
/// trailing `/`) are ignored, so `/menu/` and `/menu` are the same path.
package struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    package enum Component: Sendable, Hashable, CustomStringConvertible {
        /// Exactly this segment.
        case literal(String)
        /// Any one segment, captured under the name.
        case parameter(String)
        /// Any one segment (`*`).
        case wildcard
        /// Any number of segments, including none (`**`).
        case globstar

        /// `*`, `{`, `}`, `?`, `%` and `/`, as bytes.
        static let escaped: Set<UInt8> = Set("*{}?%/".utf8)

        package var description: String {
            switch self {
            case .literal(let s):
                // Characters a pattern reads as syntax are written percent-encoded, so a printed pattern
                // parses back to itself (a fuzzer found a literal '*' that did not).
                guard s.utf8.contains(where: { Self.escaped.contains($0) }) else { return s }
                var out = ""
                for scalar in s.unicodeScalars {
                    if scalar.isASCII, Self.escaped.contains(UInt8(scalar.value)) {
                        out += String(format: "%%%02X", scalar.value)
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
                return out
            case .parameter(let name): return "{\(name)}"
            case .wildcard: return "*"
            case .globstar: return "**"
            }
        }
    }

    package var components: [Component]

    package init(components: [Component]) {
        self.components = components
    }

    /// Parses a pattern such as `/restaurants/{id}/menu`.
    package init(parsing text: String) throws(PathPatternError) {
        // By byte: `hasPrefix` compares characters, and "/" followed by a combining mark is another
        // character (a fuzzer found "/\u{593}…" printed by `description` and refused when read back).
        guard text.utf8.first == UInt8(ascii: "/") else {
            throw PathPatternError(message: "a path pattern must start with '/'", fix: "write '/\(text)'")
        }
        var components: [Component] = []
        var names: [String] = []
        for segment in Self.segments(ofPath: text) {
            // One scan of the bytes classifies the segment; the common case (a plain literal) needs no more.
            var special = false
            for byte in segment.utf8 where byte == UInt8(ascii: "*") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "?") {
                special = true
                break
            }
            if !special {
                components.append(.literal(PercentEncoding.decoded(segment)))
            } else if segment == "**" {
                components.append(.globstar)
            } else if segment == "*" {
                components.append(.wildcard)
            } else if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count >= 2 {
                let name = String(segment.dropFirst().dropLast())
                guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
                    throw PathPatternError(message: "invalid parameter '\(segment)'", fix: "name it with letters, digits, '_' or '-', as in '{id}'")
                }
                guard !names.contains(name) else {
                    throw PathPatternError(message: "parameter '{\(name)}' appears twice", fix: "give each parameter its own name")
                }
                names.append(name)
                components.append(.parameter(name))
            } else if Self.contains(segment, "{") || Self.contains(segment, "}") {
                throw PathPatternError(message: "'\(segment)' mixes a parameter with text; a parameter must be a whole segment", fix: "use a regular expression in 'urlRegex' for partial segments")
            } else if Self.contains(segment, "*") {
                throw PathPatternError(message: "'\(segment)' mixes '*' with text; '*' and '**' must be whole segments", fix: "use a regular expression in 'urlRegex' for partial segments")
            } else if Self.contains(segment, "?") {
                throw PathPatternError(message: "'\(segment)' contains '?'; path patterns do not match the query string", fix: "move query items to the rule's 'query' dictionary")
            } else {
                components.append(.literal(PercentEncoding.decoded(segment)))
            }
        }
        self.components = components
    }

    /// Whether the segment holds the ASCII character, without going through Foundation's `range(of:)`.
    static func contains(_ segment: Substring, _ character: Unicode.Scalar) -> Bool {
        let byte = UInt8(character.value)
        if let found = segment.utf8.withContiguousStorageIfAvailable({ $0.contains(byte) }) { return found }
        for b in segment.utf8 where b == byte { return true }
        return false
    }

    /// Whether the text holds the ASCII byte; over the string's own bytes when it has them in one piece.
    static func contains(_ text: String, byte: UInt8) -> Bool {
        if let found = text.utf8.withContiguousStorageIfAvailable({ $0.contains(byte) }) { return found }
        return text.utf8.contains(byte)
    }

    package var description: String {
        "/" + components.map(\.description).joined(separator: "/")
    }

    /// The segments of a URL path as patterns see them: split on `/`, empty ones dropped.
    package static func segments(ofPath path: String) -> [Substring] {
        // A byte scan: the generic split(separator:) on Characters is several times slower.
        var result: [Substring] = []
        result.reserveCapacity(8)
        let utf8 = path.utf8
        // The offsets of the segments from the string's own bytes (a native string has them in one
        // piece; '/' is ASCII, so every cut falls on a character boundary), else through the view.
        let found: Void? = utf8.withContiguousStorageIfAvailable { bytes in
            var start = 0
            for offset in 0..<bytes.count where bytes[offset] == UInt8(ascii: "/") {
                if start != offset { result.append(path[utf8.index(utf8.startIndex, offsetBy: start)..<utf8.index(utf8.startIndex, offsetBy: offset)]) }
                start = offset + 1
            }
            if start != bytes.count { result.append(path[utf8.index(utf8.startIndex, offsetBy: start)...]) }
        }
        return found != nil ? result : segmentsThroughView(ofPath: path)
    }

    /// The same split through the UTF-8 view: for a string whose bytes are not in one piece (a
    /// bridged `NSString` on Apple platforms). Tested against the byte scan.
    static func segmentsThroughView(ofPath path: String) -> [Substring] {
        var result: [Substring] = []
        let utf8 = path.utf8
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if start != index { result.append(path[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { result.append(path[start..<utf8.endIndex]) }
        return result
    }
}

/// Why a path pattern could not be parsed, and how to write it instead.
package struct PathPatternError: Error, Sendable, Hashable {
    package var message: String
    package var fix: String?
}
