/// A pattern over the segments of a URL path: `/restaurants/{id}/menu`, `/static/*`, `/api/**`.
///
/// Patterns are values: they can be indexed, compared (to find shadowed rules), printed and explained.
/// Segments are compared after percent-decoding, case-sensitively; empty segments (a doubled or
/// trailing `/`) are ignored, so `/menu/` and `/menu` are the same path.
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable, CustomStringConvertible {
        /// Exactly this segment.
        case literal(String)
        /// Any one segment, captured under the name.
        case parameter(String)
        /// Any one segment (`*`).
        case wildcard
        /// Any number of segments, including none (`**`).
        case globstar

        public var description: String {
            switch self {
            case .literal(let s): return s
            case .parameter(let name): return "{\(name)}"
            case .wildcard: return "*"
            case .globstar: return "**"
            }
        }
    }

    public var components: [Component]

    public init(components: [Component]) {
        self.components = components
    }

    /// Parses a pattern such as `/restaurants/{id}/menu`.
    public init(parsing text: String) throws(PathPatternError) {
        guard text.hasPrefix("/") else {
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
                components.append(.literal(Self.percentDecoded(segment)))
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
                components.append(.literal(Self.percentDecoded(segment)))
            }
        }
        self.components = components
    }

    /// Whether the segment holds the ASCII character, without going through Foundation's `range(of:)`.
    static func contains(_ segment: Substring, _ character: Unicode.Scalar) -> Bool {
        let byte = UInt8(character.value)
        for b in segment.utf8 where b == byte { return true }
        return false
    }

    /// The segment percent-decoded; Foundation is called only when there is something to decode.
    static func percentDecoded(_ segment: Substring) -> String {
        guard contains(segment, "%") else { return String(segment) }
        return segment.removingPercentEncoding ?? String(segment)
    }

    public var description: String {
        "/" + components.map(\.description).joined(separator: "/")
    }

    /// The segments of a URL path as patterns see them: split on `/`, empty ones dropped.
    public static func segments(ofPath path: String) -> [Substring] {
        // A byte scan: the generic split(separator:) on Characters is several times slower.
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

    /// Matches path segments, returning the captured parameters, or `nil` when the path does not match.
    public func match(_ segments: [Substring]) -> [String: String]? {
        var captures: [String: String] = [:]
        return Self.match(components[...], segments[...], &captures) ? captures : nil
    }

    private static func match(_ pattern: ArraySlice<Component>, _ path: ArraySlice<Substring>, _ captures: inout [String: String]) -> Bool {
        var pattern = pattern, path = path
        while let component = pattern.first {
            switch component {
            case .globstar:
                let rest = pattern.dropFirst()
                if rest.isEmpty { return true }
                // Try the rest at every suffix; the shortest absorption first, deterministically.
                var tail = path
                while true {
                    var attempt = captures
                    if match(rest, tail, &attempt) {
                        captures = attempt
                        return true
                    }
                    if tail.isEmpty { return false }
                    tail = tail.dropFirst()
                }
            case .literal(let literal):
                guard let segment = path.first, segment == literal else { return false }
            case .parameter(let name):
                guard let segment = path.first else { return false }
                captures[name] = String(segment)
            case .wildcard:
                guard path.first != nil else { return false }
            }
            pattern = pattern.dropFirst()
            path = path.dropFirst()
        }
        return path.isEmpty
    }

    /// Whether every path that `other` matches is matched by this pattern too.
    ///
    /// Used to find shadowed rules: an earlier rule whose pattern covers a later rule's pattern (with
    /// no narrower conditions) answers every request the later one would.
    public func covers(_ other: PathPattern) -> Bool {
        Self.covers(components[...], other.components[...])
    }

    private static func covers(_ a: ArraySlice<Component>, _ b: ArraySlice<Component>) -> Bool {
        guard let first = a.first else { return b.isEmpty }
        if case .globstar = first {
            if covers(a.dropFirst(), b) { return true }
            return !b.isEmpty && covers(a, b.dropFirst())
        }
        guard let other = b.first else { return false }
        switch (first, other) {
        case (.literal(let x), .literal(let y)) where x == y:
            break
        case (.parameter, .literal), (.parameter, .parameter), (.parameter, .wildcard),
             (.wildcard, .literal), (.wildcard, .parameter), (.wildcard, .wildcard):
            break
        default:
            return false
        }
        return covers(a.dropFirst(), b.dropFirst())
    }
}

/// Why a path pattern could not be parsed, and how to write it instead.
public struct PathPatternError: Error, Sendable, Hashable {
    public var message: String
    public var fix: String?
}
