#if Tools
import Foundation
import StubKit

/// Several GraphQL files read as one text (GraphQLSwift parses and validates one source), with the way
/// back from an offset in that text to the file, line and column it came from.
///
/// Offsets are UTF-8 byte offsets, as GraphQLSwift's lexer counts them; columns count UTF-8 bytes too.
package struct GraphQLSourceText: Sendable {
    /// One file's part of the text.
    package struct Part: Sendable {
        /// The file as diagnostics name it.
        package var file: String
        package var url: URL
        /// Where the file starts in ``text`` (UTF-8 offset).
        package var start: Int
        /// The UTF-8 offsets where its lines start, relative to `start`.
        var lineStarts: [Int]
        /// Its length in UTF-8 bytes (without the line break appended after it).
        var length: Int
    }

    package private(set) var text = ""
    package private(set) var parts: [Part] = []
    private var length = 0

    package init() {}

    /// Appends a file's text, followed by a line break so that the next file starts on a line of its own.
    package mutating func append(_ contents: String, file: String, url: URL) {
        var lineStarts = [0]
        var offset = 0
        var previous: UInt8 = 0
        for byte in contents.utf8 {
            offset += 1
            // "\r\n" is one line break; a lone "\r" is one too, as the GraphQL spec says.
            if byte == UInt8(ascii: "\n") {
                if previous == UInt8(ascii: "\r") { lineStarts[lineStarts.count - 1] = offset } else { lineStarts.append(offset) }
            } else if byte == UInt8(ascii: "\r") {
                lineStarts.append(offset)
            }
            previous = byte
        }
        parts.append(Part(file: file, url: url, start: length, lineStarts: lineStarts, length: contents.utf8.count))
        text += contents
        text += "\n"
        length += contents.utf8.count + 1
    }

    /// The file, and line and column in it, of a UTF-8 offset into ``text``.
    package func location(of offset: Int) -> (file: String, position: SourcePosition)? {
        guard let index = parts.lastIndex(where: { $0.start <= offset }) else { return nil }
        let part = parts[index]
        // The end of the text (an error "found <EOF>") is the end of the last file, not past its added line break.
        let relative = min(offset - part.start, part.length)
        var low = 0, high = part.lineStarts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if part.lineStarts[mid] <= relative { low = mid } else { high = mid - 1 }
        }
        return (part.file, SourcePosition(line: low + 1, column: relative - part.lineStarts[low] + 1))
    }
}
#endif
