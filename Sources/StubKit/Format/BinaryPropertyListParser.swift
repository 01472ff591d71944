import Foundation

/// Reads a binary property list (`bplist00`) into a ``SourceValue`` tree, with bounds a hostile file cannot pass.
///
/// Foundation's reader is not used: on Linux it crashes on sets (bridging `NSSet`), and it expands
/// shared object references without limit, so a 1 KB file whose arrays each reference the previous
/// array twice becomes gigabytes. This reader checks every offset and reference against the file, refuses
/// reference cycles, nesting deeper than ``maximumDepth``, and a tree whose expanded size (values plus
/// string and data bytes, counted once per reference) exceeds ``maximumExpandedSize(forFileOfSize:)``.
/// Work and memory are therefore linear in the file's size.
///
/// Values carry no line and column (a binary file has none); errors name the byte offset of the object.
/// Dictionaries are sorted by key (stably), because writers store them in hash order. Sets are read
/// as arrays marked ``SourceValue/isSet``, which the rules decoder refuses where it expects an array;
/// a UID (keyed-archiver reference) reads as `{"CF$UID": n}`, as in an XML property list.
struct BinaryPropertyListParser {
    static let maximumDepth = PropertyListSourceParser.maximumDepth

    /// The expanded tree may be this many times the file's size (plus a floor for tiny files): a
    /// Foundation-written file shares equal strings between rules, so some expansion is legitimate.
    static let expansionFactor = 32
    static let expansionFloor = 1 << 20

    static func maximumExpandedSize(forFileOfSize size: Int) -> Int {
        expansionFloor + expansionFactor * size
    }

    /// The size the reader charges for a tree it returned: one per value plus string (UTF-8), key and
    /// data bytes. The fuzz target and the tests check it against ``maximumExpandedSize(forFileOfSize:)``.
    static func expandedSize(of value: SourceValue) -> Int {
        switch value.kind {
        case .array(let items): return 1 + items.reduce(0) { $0 + expandedSize(of: $1) }
        case .dictionary(let entries): return 1 + entries.reduce(0) { $0 + 1 + $1.key.utf8.count + expandedSize(of: $1.value) }
        case .string(let s): return 1 + s.utf8.count
        case .data(let d): return 1 + d.count
        default: return 1
        }
    }

    private let bytes: [UInt8]
    private var offsetSize = 0, refSize = 0, objectCount = 0, offsetTableStart = 0
    /// Decoded objects by index, with their expanded size, so a shared object is read once.
    private var cache: [(value: SourceValue, size: Int)?] = []
    /// Objects on the path from the root being read: meeting one again is a cycle.
    private var inProgress: [Bool] = []
    private var expandedSize = 0
    private let expandedLimit: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.expandedLimit = Self.maximumExpandedSize(forFileOfSize: bytes.count)
    }

    mutating func parse() throws(SourceSyntaxError) -> SourceValue {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw fail("the file starts with 'bplist' but is not a bplist00 file of at least 40 bytes")
        }
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        refSize = Int(bytes[trailer + 7])
        let count = readUnsigned(at: trailer + 8, size: 8)
        let top = readUnsigned(at: trailer + 16, size: 8)
        let tableOffset = readUnsigned(at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw fail("the trailer gives offset size \(offsetSize) and reference size \(refSize); both must be 1 to 8 bytes")
        }
        // Every object takes at least one byte, and the offset table lies inside the file.
        guard count >= 1, count <= UInt64(trailer), tableOffset >= 8, tableOffset <= UInt64(trailer),
              UInt64(trailer) - tableOffset >= count * UInt64(offsetSize) else {
            throw fail("the trailer's object count (\(count)) or offset table (at byte \(tableOffset)) does not fit in the file's \(bytes.count) bytes")
        }
        guard top < count else { throw fail("the top object (\(top)) is not one of the \(count) objects") }
        objectCount = Int(count)
        offsetTableStart = Int(tableOffset)
        cache = Array(repeating: nil, count: objectCount)
        inProgress = Array(repeating: false, count: objectCount)
        return try object(Int(top), depth: 0)
    }

    private func fail(_ message: String, at offset: Int? = nil) -> SourceSyntaxError {
        SourceSyntaxError("binary property list: " + message + (offset.map { " (at byte \($0))" } ?? ""), at: nil)
    }

    /// Big-endian unsigned integer of `size` bytes; the caller has checked the bounds.
    private func readUnsigned(at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in 0..<size { value = value << 8 | UInt64(bytes[offset + i]) }
        return value
    }

    /// Checks that `count` bytes from `offset` lie before the offset table.
    private func checkRange(_ offset: Int, _ count: Int, what: String, object start: Int) throws(SourceSyntaxError) {
        guard count >= 0, offset >= 8, offset <= offsetTableStart, count <= offsetTableStart - offset else {
            throw fail("\(what) of \(count) bytes runs past the end of the object data", at: start)
        }
    }

    private func offset(ofObject index: Int) throws(SourceSyntaxError) -> Int {
        let value = readUnsigned(at: offsetTableStart + index * offsetSize, size: offsetSize)
        guard value >= 8, value < UInt64(offsetTableStart) else {
            throw fail("object \(index) has offset \(value), outside the object data")
        }
        return Int(value)
    }

    /// Adds to the expanded size and refuses once the limit is passed.
    private mutating func charge(_ size: Int, at start: Int) throws(SourceSyntaxError) {
        expandedSize += size
        if expandedSize > expandedLimit {
            throw fail("the values expand to more than \(expandedLimit) bytes, \(Self.expansionFactor) times the file's size plus \(Self.expansionFloor >> 20) MB (shared references multiply); refusing to read further", at: start)
        }
    }

    private mutating func object(_ index: Int, depth: Int) throws(SourceSyntaxError) -> SourceValue {
        if let cached = cache[index] {
            try charge(cached.size, at: try offset(ofObject: index))
            return cached.value
        }
        let start = try offset(ofObject: index)
        guard depth < Self.maximumDepth else {
            throw fail("values are nested more than \(Self.maximumDepth) levels deep", at: start)
        }
        guard !inProgress[index] else {
            throw fail("object \(index) contains itself (a reference cycle)", at: start)
        }
        inProgress[index] = true
        defer { inProgress[index] = false }
        let before = expandedSize
        let value = try readObject(at: start, depth: depth)
        cache[index] = (value, expandedSize - before)
        return value
    }

    private mutating func readObject(at start: Int, depth: Int) throws(SourceSyntaxError) -> SourceValue {
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        try charge(1, at: start)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return SourceValue(.bool(false))
            case 0x09: return SourceValue(.bool(true))
            case 0x00: return SourceValue(.null)
            default: throw fail(String(format: "unknown object marker 0x%02X", marker), at: start)
            }
        case 0x1:
            guard low <= 4 else { throw fail("an integer of 2^\(low) bytes is not supported", at: start) }
            return try integer(at: start + 1, size: 1 << low, object: start)
        case 0x2:
            guard low == 2 || low == 3 else { throw fail("a real of 2^\(low) bytes is not supported", at: start) }
            try checkRange(start + 1, 1 << low, what: "a real", object: start)
            let raw = readUnsigned(at: start + 1, size: 1 << low)
            return SourceValue(.real(low == 2 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)))
        case 0x3:
            guard marker == 0x33 else { throw fail(String(format: "unknown object marker 0x%02X", marker), at: start) }
            try checkRange(start + 1, 8, what: "a date", object: start)
            let seconds = Double(bitPattern: readUnsigned(at: start + 1, size: 8))
            guard seconds.isFinite else { throw fail("a date that is not a finite number of seconds", at: start) }
            return SourceValue(.date(Date(timeIntervalSinceReferenceDate: seconds)))
        case 0x4:
            let (count, body) = try length(low, at: start)
            try checkRange(body, count, what: "data", object: start)
            try charge(count, at: start)
            return SourceValue(.data(Data(bytes[body..<body + count])))
        case 0x5:
            let (count, body) = try length(low, at: start)
            try checkRange(body, count, what: "an ASCII string", object: start)
            var scalars = String.UnicodeScalarView()
            for b in bytes[body..<body + count] { scalars.append(Unicode.Scalar(b)) }
            let string = String(scalars)
            // Charged at its size in memory: bytes above 0x7F (read as Latin-1) take two in UTF-8.
            try charge(string.utf8.count, at: start)
            return SourceValue(.string(string))
        case 0x6:
            let (count, body) = try length(low, at: start)
            guard count <= Int.max / 2 else { throw fail("a UTF-16 string too long for the file", at: start) }
            try checkRange(body, count * 2, what: "a UTF-16 string", object: start)
            let units = (0..<count).map { UInt16(bytes[body + 2 * $0]) << 8 | UInt16(bytes[body + 2 * $0 + 1]) }
            let string = String(decoding: units, as: UTF16.self)
            try charge(string.utf8.count, at: start)
            return SourceValue(.string(string))
        case 0x8:
            try checkRange(start + 1, low + 1, what: "a UID", object: start)
            let uid = SourceValue(.integer(Int(truncatingIfNeeded: readUnsigned(at: start + 1, size: min(low + 1, 8)))))
            try charge(1 + "CF$UID".utf8.count + 1, at: start) // the key and the value it reads as
            return SourceValue(.dictionary([SourceValue.Entry(key: "CF$UID", keyPosition: nil, value: uid)]))
        case 0xA, 0xC:
            let refs = try references(low, at: start, perItem: 1)
            var items: [SourceValue] = []
            items.reserveCapacity(refs.count)
            for ref in refs { items.append(try object(ref, depth: depth + 1)) }
            var value = SourceValue(.array(items))
            value.isSet = marker >> 4 == 0xC
            return value
        case 0xD:
            let refs = try references(low, at: start, perItem: 2)
            let half = refs.count / 2
            var entries: [SourceValue.Entry] = []
            entries.reserveCapacity(half)
            for i in 0..<half {
                let key = try object(refs[i], depth: depth + 1)
                guard let name = key.stringValue else {
                    throw fail("a dictionary key is \(key.typeDescription); keys must be strings", at: start)
                }
                entries.append(SourceValue.Entry(key: name, keyPosition: nil, value: try object(refs[half + i], depth: depth + 1)))
            }
            // Writers store keys in hash order; sorting (stably, duplicates kept) makes results repeatable.
            let sorted = entries.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
            return SourceValue(.dictionary(sorted))
        default:
            throw fail(String(format: "unknown object marker 0x%02X", marker), at: start)
        }
    }

    private func integer(at offset: Int, size: Int, object start: Int) throws(SourceSyntaxError) -> SourceValue {
        try checkRange(offset, size, what: "an integer", object: start)
        if size == 16 {
            // 128-bit: writers use it for values above Int64.max. Accept what fits 64 bits, as Apple's reader does.
            let high = readUnsigned(at: offset, size: 8), low = readUnsigned(at: offset + 8, size: 8)
            if high == 0 { return low <= UInt64(Int.max) ? SourceValue(.integer(Int(low))) : SourceValue(.real(Double(low))) }
            if high == UInt64.max, low > UInt64(Int.max) { return SourceValue(.integer(Int(Int64(bitPattern: low)))) }
            throw fail("an integer that does not fit in 64 bits", at: start)
        }
        let raw = readUnsigned(at: offset, size: size)
        // 8-byte integers are signed; shorter ones are unsigned.
        return SourceValue(.integer(size == 8 ? Int(Int64(bitPattern: raw)) : Int(raw)))
    }

    /// The length in a marker's low nibble, or in the integer object after it when the nibble is 0xF.
    private func length(_ low: Int, at start: Int) throws(SourceSyntaxError) -> (count: Int, body: Int) {
        guard low == 0xF else { return (low, start + 1) }
        try checkRange(start + 1, 1, what: "a length", object: start)
        let marker = bytes[start + 1]
        guard marker >> 4 == 0x1, marker & 0x0F <= 3 else { throw fail("a length that is not an integer", at: start) }
        let size = 1 << Int(marker & 0x0F)
        try checkRange(start + 2, size, what: "a length", object: start)
        let value = readUnsigned(at: start + 2, size: size)
        guard value <= UInt64(bytes.count) else { throw fail("a length of \(value), longer than the file", at: start) }
        return (Int(value), start + 2 + size)
    }

    /// The object references of an array, set (one per item) or dictionary (two per entry).
    private func references(_ low: Int, at start: Int, perItem: Int) throws(SourceSyntaxError) -> [Int] {
        let (count, body) = try length(low, at: start)
        let total = count * perItem
        try checkRange(body, total * refSize, what: "a list of object references", object: start)
        var refs: [Int] = []
        refs.reserveCapacity(total)
        for i in 0..<total {
            let ref = readUnsigned(at: body + i * refSize, size: refSize)
            guard ref < UInt64(objectCount) else { throw fail("a reference to object \(ref); the file has \(objectCount)", at: start) }
            refs.append(Int(ref))
        }
        return refs
    }
}
