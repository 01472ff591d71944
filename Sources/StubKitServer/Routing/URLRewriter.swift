#if Tools
import Foundation

/// Points absolute URLs of stubbed hosts in an answer at the local server, so the client's next
/// request comes back here: `https://api.example.com/v1/menu` becomes
/// `http://127.0.0.1:8080/api.example.com/v1/menu`, also in JSON's escaped form (`https:\/\/…`).
///
/// Only URLs whose own host is exactly a stubbed host (no port, no longer name such as
/// `api.example.com.evil`) change. Every other URL stays as it is, and so does everything inside it: a
/// stubbed host's URL in the query of a foreign link (`https://maps.example/?from=https://api.example.com/x`)
/// is that link's data, not a link of its own. A URL ends at white space, a quote, `<`, `>` or a backtick.
/// Only textual bodies (``MediaType/isText(_:)``) are rewritten; the caller sets `Content-Length` from the new size.
struct URLRewriter: Sendable {
    let hosts: Set<String>
    /// `http://127.0.0.1:8080`, as the client reached the server.
    let base: String

    /// The rewritten text, or `nil` when it holds no URL of a stubbed host.
    func rewrite(_ data: Data) -> Data? {
        guard !hosts.isEmpty else { return nil }
        let bytes = [UInt8](data)
        var output: [UInt8] = []
        var copied = 0
        var index = 0
        // Built at the first URL found: most bodies hold none.
        var bases: (plain: [UInt8], escaped: [UInt8])?
        while index + 7 <= bytes.count {
            guard bytes[index] | 0x20 == UInt8(ascii: "h"), let found = url(in: bytes, at: index) else {
                index += 1
                continue
            }
            guard case .stubbed(let match) = found else {
                if case .foreign(let end) = found { index = end }
                continue
            }
            if bases == nil { bases = (Array(base.utf8), Array(base.replacingOccurrences(of: "/", with: "\\/").utf8)) }
            output.append(contentsOf: bytes[copied..<index])
            output.append(contentsOf: match.escaped ? bases!.escaped : bases!.plain)
            output.append(contentsOf: match.escaped ? Array("\\/".utf8) : [UInt8(ascii: "/")])
            output.append(contentsOf: bytes[match.hostStart..<match.hostEnd])
            index = match.hostEnd
            copied = index
        }
        guard copied > 0 else { return nil }
        output.append(contentsOf: bytes[copied...])
        return Data(output)
    }

    /// A `Location` header value with a stubbed host's URL rewritten.
    func rewrite(location: String) -> String {
        rewrite(Data(location.utf8)).map { String(decoding: $0, as: UTF8.self) } ?? location
    }

    private struct Start {
        var hostStart: Int
        var hostEnd: Int
        var escaped: Bool
    }

    /// What starts at an index: a stubbed host's URL, or another URL, skipped whole up to `end`.
    private enum Found {
        case stubbed(Start)
        case foreign(end: Int)
    }

    /// The `http(s)://host` (or `http(s):\/\/host`) at `index`: stubbed when its host is stubbed and
    /// ends at a boundary, otherwise foreign.
    private func url(in bytes: [UInt8], at index: Int) -> Found? {
        if index > 0, Self.isNameByte(bytes[index - 1]) { return nil }
        var cursor = index
        // Schemes are case-insensitive (`HTTPS://`); `| 0x20` lower-cases an ASCII letter.
        for byte in "http".utf8 {
            guard cursor < bytes.count, bytes[cursor] | 0x20 == byte else { return nil }
            cursor += 1
        }
        if cursor < bytes.count, bytes[cursor] | 0x20 == UInt8(ascii: "s") { cursor += 1 }
        guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: ":") else { return nil }
        cursor += 1
        var escaped = false
        if bytes[cursor...].starts(with: "//".utf8) {
            cursor += 2
        } else if bytes[cursor...].starts(with: "\\/\\/".utf8) {
            cursor += 4
            escaped = true
        } else {
            return nil
        }
        let hostStart = cursor
        while cursor < bytes.count, Self.isNameByte(bytes[cursor]) || bytes[cursor] == UInt8(ascii: ".") { cursor += 1 }
        // A sentence's full stop is not part of the host.
        while cursor > hostStart, bytes[cursor - 1] == UInt8(ascii: ".") { cursor -= 1 }
        guard cursor > hostStart else { return nil }
        // A port or user info means another service: left alone, like a longer name.
        let otherService = cursor < bytes.count && (bytes[cursor] == UInt8(ascii: ":") || bytes[cursor] == UInt8(ascii: "@"))
        let host = String(decoding: bytes[hostStart..<cursor], as: UTF8.self).lowercased()
        guard !otherService, hosts.contains(host) else { return .foreign(end: Self.urlEnd(in: bytes, from: cursor)) }
        return .stubbed(Start(hostStart: hostStart, hostEnd: cursor, escaped: escaped))
    }

    /// Where the URL that reaches `index` ends: at white space or a control byte, a quote, `<`, `>` or a
    /// backtick (what ends a URL in JSON, HTML, XML and prose), or at the end of the text.
    private static func urlEnd(in bytes: [UInt8], from index: Int) -> Int {
        var cursor = index
        while cursor < bytes.count {
            let byte = bytes[cursor]
            if byte <= 0x20 || byte == 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "`") { break }
            cursor += 1
        }
        return cursor
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
    }
}
#endif
