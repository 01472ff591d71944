import Foundation

/// Request URLs whose path segments and query names and values mix every character class a URL can
/// carry: unreserved characters plain and escaped (upper- and lower-case hex), sub-delimiters and
/// general delimiters plain where the part allows them and escaped, `+`, `%2B`, `%20`, `%25`,
/// non-ASCII escaped as UTF-8, a lone `%` in a query, empty values, names without `=`, and repeated
/// names; and twins, two URLs that differ only in a `+` against a `%2B`.
public struct QueryURLGenerator {
    public var random: SeededGenerator

    public init(random: SeededGenerator) { self.random = random }

    /// Pieces any part may hold: the URL text, as an app would write it.
    static let common = [
        "a", "Z", "0", "9", "-", ".", "_", "~",          // unreserved, plain
        "%41", "%7E", "%7e", "%2D", "%5F", "%2E", "%30", // unreserved, escaped
        "!", "$", "'", "(", ")", "*", ",", ";", ":", "@", // allowed plain in a segment and in a query
        "%21", "%24", "%27", "%28", "%29", "%2A", "%2C", "%3B", "%3A", "%3a", "%40", // the same escaped
        "%20", "%25", "%2F", "%2f", "%3F", "%23", "%5B", "%5D", "%7C", "%7c", "%5E", "%22", "%3C", "%60", "%7B", "%7D",
        "%C3%A9", "%c3%a9", "%E2%82%AC", "%F0%9F%8D%95", // é, €, 🍕 as UTF-8
        "+", "%2B", "%2b", "%26", "%3D", "=",
    ]
    /// Only in a query: `/` and `?` are data there; a lone `%` (which `URL(string:)` escapes as `%25`).
    static let queryOnly = ["/", "?", "%"]

    /// `length` pieces; `allowEmpty` lets the result be "".
    mutating func text(_ pieces: [String], maxLength: Int, allowEmpty: Bool) -> String {
        let count = random.below(maxLength + 1)
        if count == 0 && !allowEmpty { return pieces[random.below(pieces.count)] }
        return (0..<count).map { _ in pieces[random.below(pieces.count)] }.joined()
    }

    /// A path segment: `=` and `+` are data in a path; `/` and `?` are not allowed there.
    /// A segment of only dots is one a URL resolves away (RFC 3986 §5.2.4), so it gets a letter.
    mutating func segment() -> String {
        let segment = text(Self.common, maxLength: 5, allowEmpty: false)
        return segment.allSatisfy { $0 == "." } ? "a" + segment : segment
    }

    /// A query name: no plain `=` (it would end the name).
    public mutating func name() -> String {
        text(Self.common.filter { $0 != "=" } + Self.queryOnly, maxLength: 4, allowEmpty: false)
    }

    /// A query value, empty at times.
    public mutating func value() -> String {
        text(Self.common + Self.queryOnly, maxLength: 6, allowEmpty: true)
    }

    /// `scheme://host/unique/segments?query`; `unique` keeps every URL's rule its own.
    public mutating func url(base: String, unique: Int) -> String {
        var url = base + "/u\(unique)"
        for _ in 0..<random.below(3) { url += "/" + segment() }
        var items: [String] = []
        var names: [String] = []
        for _ in 0..<(1 + random.below(4)) {
            // Now and then a name given before, so repeated names occur.
            let name = !names.isEmpty && random.below(4) == 0 ? names[random.below(names.count)] : self.name()
            names.append(name)
            switch random.below(6) {
            case 0: items.append(name)               // no `=`
            case 1: items.append(name + "=")         // empty value
            default: items.append(name + "=" + value())
            }
        }
        return url + "?" + items.joined(separator: "&")
    }

    /// Two URLs on one path that differ only in one query item's plus: a plain `+` in one, an escaped
    /// `%2B` (or `%2b`) in the other, in its value (or now and then its name). Each must replay to its own answer.
    public mutating func plusTwins(base: String, unique: Int) -> (plain: String, escaped: String) {
        let url = self.url(base: base, unique: unique)
        let escape = random.below(2) == 0 ? "%2B" : "%2b"
        let (before, after) = (value(), value())
        if random.below(4) == 0 {
            let (name, value) = (self.name(), self.value())
            return (url + "&\(name)+\(before)=\(value)", url + "&\(name)\(escape)\(before)=\(value)")
        }
        let name = self.name()
        return (url + "&\(name)=\(before)+\(after)", url + "&\(name)=\(before)\(escape)\(after)")
    }
}
