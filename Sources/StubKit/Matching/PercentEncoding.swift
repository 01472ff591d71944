import Foundation

/// Percent-escapes in URL text: the one place that decodes them, and that defines how query names
/// and values compare (RFC 3986 §6.2.2).
///
/// A query condition compares the **comparison form** of the request's name or value with the
/// comparison form of the rule's: every escape decoded except `%25` (`%`) and `%2B` (`+`), which stay
/// escapes with upper-case hex; a `%` not followed by two hex digits is read as `%25`. So `%7c`, `%7C`
/// and `|` compare equal, `%41` equals `A`, but `%2B` (a plus sent as data) differs from a plain `+`
/// (which form encoding reads as a space): servers may answer the two differently. Rules hold decoded text (`"q": "a b"`), and
/// decoded text without a `%` is its own comparison form, so such rules compare as they read.
/// When the decoded bytes are not UTF-8, the escapes of non-ASCII bytes stay (upper-cased) and only
/// ASCII ones are decoded. The form is idempotent: `comparable(comparable(x)) == comparable(x)`.
package enum PercentEncoding {
    /// The text with every escape decoded (Foundation's reading), or the text as it is when an escape
    /// is broken or the bytes are not UTF-8; Foundation is called only when there is a `%`. What path
    /// segments compare, what templates (`{{query.q}}`) show and what `matches` conditions see.
    package static func decoded(_ text: Substring) -> String {
        guard PathPattern.contains(text, "%") else { return String(text) }
        return text.removingPercentEncoding ?? String(text)
    }

    /// The comparison form of a query name or value (see the type's summary).
    package static func comparable<S: StringProtocol>(_ text: S) -> String {
        guard text.utf8.contains(percent) else { return String(text) }
        let bytes = Array(text.utf8)
        // The first reading fails only when decoded non-ASCII bytes are not UTF-8; the second decodes
        // only ASCII escapes, so the text's own (valid) characters stay whole.
        return normalized(bytes, decodingNonASCII: true) ?? normalized(bytes, decodingNonASCII: false) ?? String(text)
    }

    /// What a writer (a recording, an import) puts in a rules file for a query name or value sent
    /// as `raw` URL text: its decoded text when that reads back to the same comparison form (nearly
    /// always), else the comparison form itself (`a%2Bb`, `%2541`).
    package static func ruleText(ofQuery raw: Substring) -> String {
        let decoded = decoded(raw)
        guard PathPattern.contains(raw, "%") else { return decoded }
        let form = comparable(raw)
        return comparable(decoded) == form ? decoded : form
    }

    /// URL query text for a name or value in comparison form (as loaded rules hold `equals`): the
    /// escapes it holds stay, `+` stays a plain plus, and what a query cannot carry as data is escaped.
    package static func queryText(comparable form: String) -> String {
        form.addingPercentEncoding(withAllowedCharacters: comparableAllowed) ?? form
    }

    /// URL query text for decoded text (a value made up to match a regex): everything that is not
    /// plain query data escaped, `%` and `+` too, so it decodes to the text again.
    package static func queryText(decoded text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: decodedAllowed) ?? text
    }

    /// A regular expression (already escaped) with each percent-escape's hex letters made to match
    /// either case (`%7C` → `%7[Cc]`), for writers that pin raw URL text: an app may send either.
    package static func escapeCaseInsensitive(pattern: String) -> String {
        guard pattern.utf8.contains(percent) else { return pattern }
        let bytes = Array(pattern.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        while i < bytes.count {
            out.append(bytes[i])
            guard bytes[i] == percent, i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                i += 1
                continue
            }
            for value in [high, low] {
                let upper = hexDigit(value)
                out += value < 10 ? [upper] : [UInt8(ascii: "["), upper, upper + 0x20, UInt8(ascii: "]")]
            }
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    // MARK: Private

    private static let percent = UInt8(ascii: "%")

    /// Query data: what `urlQueryAllowed` lets through, less the separators `&`, `=` (and `#`, never in it).
    private static let queryData = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&="))
    private static let comparableAllowed = queryData.union(CharacterSet(charactersIn: "%+"))
    private static let decodedAllowed = queryData.subtracting(CharacterSet(charactersIn: "+"))

    private static func normalized(_ bytes: [UInt8], decodingNonASCII: Bool) -> String? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 4)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            guard byte == percent else {
                out.append(byte)
                i += 1
                continue
            }
            guard i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) else {
                out += [percent, UInt8(ascii: "2"), UInt8(ascii: "5")]  // a lone `%` is data
                i += 1
                continue
            }
            let value = high << 4 | low
            if value == 0x25 || value == 0x2B || (value >= 0x80 && !decodingNonASCII) {
                out += [percent, hexDigit(high), hexDigit(low)]
            } else {
                out.append(value)
            }
            i += 3
        }
        var iterator = out.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: out, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
