/// Walks a byte buffer and knows the line and column of where it stands.
///
/// Columns count Unicode scalars. Positions are asked for in increasing order, so the column is
/// advanced incrementally and a long single-line file costs linear time, not quadratic.
struct ByteCursor {
    let bytes: [UInt8]
    var index: Int = 0
    private(set) var line: Int = 1
    private var lineStart: Int = 0
    private var columnCacheIndex: Int = 0
    private var columnCacheValue: Int = 1

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not content.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineStart = 3
            columnCacheIndex = 3
        }
    }

    var isAtEnd: Bool { index >= bytes.count }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    func peek(_ offset: Int) -> UInt8? {
        let i = index + offset
        return i < bytes.count ? bytes[i] : nil
    }

    /// Moves one byte forward, keeping count of lines.
    mutating func advance() {
        if bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
            columnCacheIndex = lineStart
            columnCacheValue = 1
        }
        index += 1
    }

    mutating func advance(by count: Int) {
        for _ in 0..<count where index < bytes.count { advance() }
    }

    /// The position of the current byte.
    mutating func position() -> SourcePosition {
        position(of: index)
    }

    /// The position of a byte on the current line at or after the last asked-for position.
    mutating func position(of target: Int) -> SourcePosition {
        if target < columnCacheIndex || target < lineStart {
            // Asked for an earlier byte on this line: count again from the line's start.
            columnCacheIndex = lineStart
            columnCacheValue = 1
        }
        var i = columnCacheIndex
        var column = columnCacheValue
        let end = min(target, bytes.count)
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        columnCacheIndex = end
        columnCacheValue = column
        return SourcePosition(line: line, column: column)
    }

    func starts(with literal: StaticString, at offset: Int = 0) -> Bool {
        let count = literal.utf8CodeUnitCount
        let start = index + offset
        guard start + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { buffer in
            for k in 0..<count where bytes[start + k] != buffer[k] { return false }
            return true
        }
    }
}

extension UInt8 {
    var isJSONWhitespace: Bool {
        self == 0x20 || self == 0x0A || self == 0x0D || self == 0x09
    }
}
