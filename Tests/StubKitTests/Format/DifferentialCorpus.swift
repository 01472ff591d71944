import Foundation
import StubKitTestSupport

/// Generates the documents the differential tests feed to StubKit's readers and to Foundation's.
///
/// Seeded, so a failure repeats; each document carries the features it uses, so a disagreement can
/// be matched against the documented, deliberate differences.
struct DifferentialCorpus {
    enum Feature: String, Sendable, CaseIterable {
        /// Nesting deeper than StubKit's 256 levels (Foundation reads 512).
        case deepNesting
        /// A `\u` escape of a lone UTF-16 surrogate.
        case loneSurrogate
        /// Bytes mutated at random: usually invalid for both.
        case mutated
        /// Integers beyond 64 bits.
        case hugeInteger
    }

    struct Document: Sendable {
        var text: [UInt8]
        var features: Set<Feature>
    }

    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &generator) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...items.count - 1)] }

    // MARK: JSON

    mutating func jsonDocument() -> Document {
        var features: Set<Feature> = []
        var text = ""
        if chance(3) {
            let depth = pick([200, 250, 255, 256, 257, 300])
            text = String(repeating: "[", count: depth) + json(depth: 3, features: &features) + String(repeating: "]", count: depth)
            if Self.nesting(of: text) > 255 { features.insert(.deepNesting) }
        } else {
            text = space() + json(depth: 0, features: &features) + space()
        }
        var bytes = Array(text.utf8)
        if chance(10), !bytes.isEmpty {
            features.insert(.mutated)
            let i = int(0...bytes.count - 1)
            switch int(0...2) {
            case 0: bytes.remove(at: i)
            case 1: bytes.insert(pick(Array("{}[],:\"\\ 0e.-tn".utf8)), at: i)
            default: bytes[i] = UInt8(int(0...255))
            }
        }
        return Document(text: bytes, features: features)
    }

    /// The deepest nesting of arrays and objects in JSON text (brackets inside strings not counted).
    static func nesting(of text: String) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for b in text.utf8 {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
            } else if b == UInt8(ascii: "\"") {
                inString = true
            } else if b == UInt8(ascii: "[") || b == UInt8(ascii: "{") {
                depth += 1
                deepest = max(deepest, depth)
            } else if b == UInt8(ascii: "]") || b == UInt8(ascii: "}") {
                depth -= 1
            }
        }
        return deepest
    }

    mutating func space() -> String {
        chance(70) ? "" : String((0..<int(1...3)).map { _ in pick([" ", "\n", "\t", "\r\n"]) }.joined())
    }

    mutating func json(depth: Int, features: inout Set<Feature>) -> String {
        let kinds = depth > 6 ? 5 : 7
        switch int(0...kinds) {
        case 0: return pick(["null", "true", "false"])
        case 1, 2: return number(features: &features)
        case 3, 4, 5: return jsonString(features: &features)
        case 6:
            let items = (0..<int(0...4)).map { _ in space() + json(depth: depth + 1, features: &features) + space() }
            return "[" + items.joined(separator: ",") + "]"
        default:
            var keys = Set<String>()
            var members: [String] = []
            for _ in 0..<int(0...4) {
                let key = jsonString(features: &features)
                // Unique keys: Foundation keeps the last of duplicates, StubKit reports them.
                guard keys.insert(key).inserted else { continue }
                members.append(space() + key + space() + ":" + space() + json(depth: depth + 1, features: &features))
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    mutating func number(features: inout Set<Feature>) -> String {
        switch int(0...9) {
        case 0: return String(int(-1000...1000))
        case 1: return pick(["0", "-0", "9223372036854775807", "-9223372036854775808", "4294967296"])
        case 2:
            features.insert(.hugeInteger)
            return pick(["9223372036854775808", "18446744073709551615", "-9223372036854775809", "123456789012345678901234567890"])
        case 3: return "\(int(0...99)).\(int(0...999))"
        case 4: return "-\(int(0...9)).\(int(0...99))e\(pick(["", "+", "-"]))\(int(0...30))"
        case 5: return "\(int(1...9))E\(pick(["", "+", "-"]))\(int(0...300))"
        case 6: return pick(["0.1", "1e-7", "2.5E+3", "1.7976931348623157e308", "5e-324", "0.0", "-0.0", "1E400", "1e-400"])
        default: return String(Double(int(-100_000...100_000)) / 64)
        }
    }

    mutating func jsonString(features: inout Set<Feature>) -> String {
        var out = "\""
        for _ in 0..<int(0...8) {
            switch int(0...9) {
            case 0: out += pick(["\\n", "\\t", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\r"])
            case 1: out += String(format: "\\u%04x", int(0x20...0xD7FF))
            case 2: out += pick(["\\ud83c\\udf55", "\\uD834\\uDD1E", "\\u00e9", "\\u0000", "\\u001f"])
            case 3:
                features.insert(.loneSurrogate)
                out += pick(["\\ud800", "\\udfff x", "\\ud83c\\u0041"])
            case 4: out += pick(["é", "🍕", "日本", "\u{7F}", "Ω"])
            default: out += String((0..<int(1...6)).map { _ in Character(UnicodeScalar(UInt8(int(0x20...0x7E)))) }).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            }
        }
        return out + "\""
    }

    // MARK: Property lists

    /// A value tree of the types Foundation writes safely on Linux (no sets, no UIDs).
    mutating func plistValue(depth: Int = 0) -> Any {
        switch int(0...(depth > 5 ? 6 : 8)) {
        case 0: return pick(["", "plain", "café 🍕", "a & b < c > d \"q\" 'a'", "line\nbreak\ttab", String(repeating: "long", count: int(4...40))])
        case 1: return pick([0, 1, -1, 255, 256, 65535, 65536, Int(Int32.max), Int(Int32.max) + 1, Int.max, Int.min, int(-100_000...100_000)])
        case 2: return pick([0.5, -2.25, 1e300, 5e-324, 0.1, Double(int(-1000...1000)) / 8])
        case 3: return chance(50)
        case 4: return Date(timeIntervalSinceReferenceDate: Double(int(-1_000_000_000...1_000_000_000)))
        case 5: return Data((0..<int(0...40)).map { _ in UInt8(int(0...255)) })
        case 6: return String((0..<int(1...12)).map { _ in Character(UnicodeScalar(UInt8(int(0x20...0x7E)))) })
        case 7: return (0..<int(0...4)).map { _ in plistValue(depth: depth + 1) }
        default:
            var dict: [String: Any] = [:]
            for _ in 0..<int(0...4) { dict[plistValue(depth: 99) as? String ?? "k\(int(0...99))"] = plistValue(depth: depth + 1) }
            return dict
        }
    }
}
