#if Tools
import Foundation

/// A pass over GraphQL text that finds nesting (`{`, `[`, `(`) deeper than GraphQLSwift's recursive
/// parser can take, before the parser sees it: too deep a document is refused with its place instead
/// of overflowing the stack.
///
/// Strings, block strings and comments are skipped, so a brace inside them does not count.
package enum GraphQLNestingScan {
    /// Deeper than any real schema or operation (GitHub's schema nests 3 levels, Apollo's largest
    /// operations about 20); GraphQLSwift's parser and validator take several times this on a 512 KiB stack.
    package static let maximumDepth = 128

    /// The UTF-8 offset of the first bracket past `maximumDepth`, or nil when the text stays within it.
    package static func firstTooDeep(in text: String, maximumDepth: Int = maximumDepth) -> Int? {
        let bytes = Array(text.utf8)
        var depth = 0
        var i = 0
        let quote = UInt8(ascii: "\"")
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "#"):
                while i < bytes.count, bytes[i] != UInt8(ascii: "\n"), bytes[i] != UInt8(ascii: "\r") { i += 1 }
                continue
            case quote:
                if i + 2 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote {
                    // A block string ends at the next unescaped """ (\""" is an escaped one).
                    i += 3
                    while i < bytes.count {
                        if bytes[i] == UInt8(ascii: "\\"), i + 3 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote, bytes[i + 3] == quote { i += 4; continue }
                        if bytes[i] == quote, i + 2 < bytes.count, bytes[i + 1] == quote, bytes[i + 2] == quote { i += 3; break }
                        i += 1
                    }
                    continue
                }
                i += 1
                while i < bytes.count, bytes[i] != quote, bytes[i] != UInt8(ascii: "\n") {
                    i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
                }
                i += 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "("):
                depth += 1
                if depth > maximumDepth { return i }
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ")"):
                depth = max(0, depth - 1)
            default:
                break
            }
            i += 1
        }
        return nil
    }
}
#endif
