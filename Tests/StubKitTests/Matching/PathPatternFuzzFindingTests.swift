import Foundation
import Testing
@testable import StubKit

/// Inputs the path-pattern fuzzer stopped on (Fuzz/pathpattern), kept as regression tests.
struct PathPatternFuzzFindingTests {
    @Test("a pattern with a combining-mark and control-character segments covers itself and parses as printed")
    func controlCharacterSegments() throws {
        // The fuzzer's bytes: 2f2f d693 2f69 7465 2f61 7869 2f16 (U+0593 is a combining Hebrew accent).
        let text = String(decoding: [0x2f, 0x2f, 0xd6, 0x93, 0x2f, 0x69, 0x74, 0x65, 0x2f, 0x61, 0x78, 0x69, 0x2f, 0x16] as [UInt8], as: UTF8.self)
        let pattern = try PathPattern(parsing: text)
        #expect(pattern.covers(pattern))
        let reparsed = try? PathPattern(parsing: pattern.description)
        #expect(reparsed != nil, "\(pattern.description) does not parse")
        let other = try? PathPattern(parsing: "/v/**s")
        if let other { #expect(!pattern.covers(other)) }
        #expect(pattern.match(PathPattern.segments(ofPath: "/v/**s")) == nil)
    }

    @Test("a literal segment holding pattern syntax ('%2a' is a literal '*') prints percent-encoded and parses back")
    func literalWithSyntaxCharacters() throws {
        let pattern = try PathPattern(parsing: "/a/%2a%20b/%7Bid%7D/100%25/%")
        let reparsed = try PathPattern(parsing: pattern.description)
        #expect(reparsed.components == pattern.components)
    }
}
