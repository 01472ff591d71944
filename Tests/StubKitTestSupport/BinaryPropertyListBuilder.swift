import Foundation

/// Builds binary property lists (`bplist00`) byte by byte, including ones no well-behaved writer
/// produces: sets, cycles, shared-reference bombs, references and offsets out of range.
///
/// Foundation cannot write these (and on Linux crashes reading sets), so hostile inputs for tests,
/// fuzz seeds and benchmarks are made here. Objects are given as encoded bytes; references in
/// arrays, sets and dictionaries are `refSize` bytes (1 allows 256 objects, 2 allows 65,536).
public struct BinaryPropertyListBuilder {
    public private(set) var objects: [[UInt8]] = []
    public let refSize: Int

    public init(refSize: Int = 1) {
        self.refSize = refSize
    }

    /// Adds an encoded object and returns its index, for references.
    @discardableResult
    public mutating func add(_ encoded: [UInt8]) -> Int {
        precondition(objects.count < 1 << (8 * refSize), "too many objects for \(refSize)-byte references; make the builder with a larger refSize")
        objects.append(encoded)
        return objects.count - 1
    }

    /// The file, with `top` as the root object.
    public func data(top: Int) -> Data {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let tableOffset = out.count
        let offsetSize = tableOffset > 0xFFFF ? 4 : (tableOffset > 0xFF ? 2 : 1)
        for offset in offsets { out += Self.bigEndian(UInt64(offset), size: offsetSize) }
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += Self.bigEndian(UInt64(objects.count), size: 8)
        out += Self.bigEndian(UInt64(top), size: 8)
        out += Self.bigEndian(UInt64(tableOffset), size: 8)
        return Data(out)
    }

    public static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }

    // MARK: Encoded objects

    public static func ascii(_ s: String) -> [UInt8] { header(0x5, s.utf8.count) + Array(s.utf8) }
    public static func utf16(_ s: String) -> [UInt8] {
        let units = Array(s.utf16)
        return header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
    public static func int(_ v: Int64) -> [UInt8] { [0x13] + bigEndian(UInt64(bitPattern: v), size: 8) }
    public func array(_ refs: [Int]) -> [UInt8] { Self.header(0xA, refs.count) + encode(refs) }
    public func set(_ refs: [Int]) -> [UInt8] { Self.header(0xC, refs.count) + encode(refs) }
    public func dict(_ keys: [Int], _ values: [Int]) -> [UInt8] { Self.header(0xD, keys.count) + encode(keys) + encode(values) }

    private func encode(_ refs: [Int]) -> [UInt8] { refs.flatMap { Self.bigEndian(UInt64($0), size: refSize) } }

    /// A marker with the count in its low nibble, or an integer object after it for 15 and more.
    public static func header(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF, 0x13] + bigEndian(UInt64(count), size: 8)
    }

    // MARK: Hostile files

    /// The 46-byte file whose root is a set; Foundation on Linux segfaults on it.
    public static let setRoot = Data(hex: "62706c6973743030c1015161080a000000000000010100000000000000020000000000000000000000000000000c")

    /// `levels` arrays, each holding the previous one twice: about a kilobyte that expands to 2^levels values.
    public static func sharedReferenceBomb(levels: Int) -> Data {
        var builder = BinaryPropertyListBuilder()
        var previous = builder.add(ascii("x"))
        for _ in 0..<levels { previous = builder.add(builder.array([previous, previous])) }
        return builder.data(top: previous)
    }
}

extension Data {
    /// Bytes from a hexadecimal string (whitespace ignored).
    public init(hex: String) {
        let digits = Array(hex.filter { !$0.isWhitespace })
        self.init(stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! })
    }
}
