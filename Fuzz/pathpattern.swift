// libFuzzer entry for path patterns: parsing never crashes, and matching and coverage by dynamic
// programming agree with each other. Compiled with Sources/StubKit/**/*.swift by
// Tools/scripts/fuzz.
//
// Input: a pattern and a path separated by the first NUL byte. Checked: a pattern that matches a
// path built from another pattern's literals agrees with `covers` (a pattern covers itself; a
// pattern whose `**` absorbs nothing covers the literal path it matches), and `match` captures only
// the pattern's parameters.
import Foundation

func fuzzPathPattern(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let separator = bytes.firstIndex(of: 0) ?? size
    let patternText = String(decoding: bytes[..<separator], as: UTF8.self)
    let pathText = separator < size ? String(decoding: bytes[(separator + 1)...], as: UTF8.self) : ""
    guard let pattern = try? PathPattern(parsing: patternText) else { return 0 }
    precondition(pattern.covers(pattern), "\(pattern) does not cover itself")
    precondition((try? PathPattern(parsing: pattern.description)) != nil, "\(pattern) does not parse as printed")
    let segments = PathPattern.segments(ofPath: "/" + pathText)
    if let captures = pattern.match(segments) {
        let names = Set(pattern.components.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } })
        precondition(Set(captures.keys) == names, "\(pattern) captured \(captures.keys), expected \(names)")
        // A literal pattern of this path is covered by any pattern that matches the path.
        let literal = PathPattern(components: segments.map { .literal(String($0)) })
        if segments.allSatisfy({ !$0.contains("%") }) {
            precondition(pattern.covers(literal), "\(pattern) matches \(segments) but does not cover it as a pattern")
        }
    }
    if let other = try? PathPattern(parsing: "/" + pathText), pattern.covers(other) {
        // Every path the other matches with its placeholders as plain segments, this one matches too.
        let sample = other.components.compactMap { component -> Substring? in
            switch component {
            case .literal(let s): return Substring(s)
            case .parameter, .wildcard: return "x"
            case .globstar: return nil
            }
        }
        precondition(pattern.match(sample) != nil, "\(pattern) covers \(other) but does not match \(sample)")
    }
    return 0
}
