import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// `**` matching and pattern-vs-pattern coverage give the answers the old backtracking gave, without
/// its polynomial blow-up on patterns with several `**` (issue 10).
struct PathPatternComplexityTests {
    static let seed: UInt64 = 0x5EED_0010

    /// A random pattern from a small alphabet, so literals collide often and `**` appears often.
    static func randomComponents(_ rng: inout SeededGenerator, maxLength: Int) -> [PathPattern.Component] {
        (0..<Int(rng.next() % UInt64(maxLength + 1))).map { i in
            switch rng.next() % 6 {
            case 0: return .globstar
            case 1: return .wildcard
            case 2: return .parameter("p\(i)")
            default: return .literal(["a", "b", "c"][Int(rng.next() % 3)])
            }
        }
    }

    @Test("match gives the old backtracking's answer and captures on a generated corpus")
    func matchCorpus() {
        print("PathPatternComplexityTests.matchCorpus seed \(Self.seed)")
        var rng = SeededGenerator(seed: Self.seed)
        var matched = 0
        for _ in 0..<5000 {
            let pattern = PathPattern(components: Self.randomComponents(&rng, maxLength: 7))
            let path = (0..<Int(rng.next() % 8)).map { _ in Substring(["a", "b", "c"][Int(rng.next() % 3)]) }
            let expected = ReferencePathPattern.match(pattern, path)
            #expect(pattern.match(path) == expected, "\(pattern) vs /\(path.joined(separator: "/"))")
            if expected != nil { matched += 1 }
        }
        #expect(matched > 500, "the corpus should exercise matches as well as misses")
    }

    @Test("covers gives the old backtracking's answer on a generated corpus")
    func coversCorpus() {
        print("PathPatternComplexityTests.coversCorpus seed \(Self.seed)")
        var rng = SeededGenerator(seed: Self.seed &+ 1)
        var covered = 0
        for _ in 0..<5000 {
            let a = PathPattern(components: Self.randomComponents(&rng, maxLength: 6))
            let b = PathPattern(components: Self.randomComponents(&rng, maxLength: 6))
            let expected = ReferencePathPattern.covers(a, b)
            #expect(a.covers(b) == expected, "\(a) covers \(b)")
            if expected { covered += 1 }
        }
        #expect(covered > 200)
    }

    struct Adversarial: CustomTestStringConvertible, Sendable {
        var pattern: String
        var path: String
        var matches: Bool
        var testDescription: String { "\(pattern) vs \(path.prefix(30))… (\(path.count) characters)" }
    }

    /// Before the rewrite each of these took time polynomial in the path length with the number of
    /// `**` as exponent: many minutes. Now each is pattern length × path length steps.
    @Test("several ** against a long path answer at once", arguments: [
        Adversarial(pattern: "/**/a/**/a/**/a/**/a/**/a/**/b", path: String(repeating: "/a", count: 3000), matches: false),
        Adversarial(pattern: "/**/a/**/a/**/a/**/a/**/a/**/b", path: String(repeating: "/a", count: 3000) + "/b", matches: true),
        Adversarial(pattern: "/**/**/**/**/**/**/**/**/z", path: String(repeating: "/y", count: 3000), matches: false),
    ])
    func adversarialMatch(_ c: Adversarial) throws {
        let pattern = try PathPattern(parsing: c.pattern)
        let request = StubRequest(url: URL(string: "https://h\(c.path)")!)
        #expect((pattern.match(request.pathSegments) != nil) == c.matches)
    }

    @Test("several ** against a long path answer at once through the rule index too")
    func adversarialIndex() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "deep", rules: #"""
            [ { "path": "/**/a/**/a/**/a/**/a/**/a/**/b", "body": "deep" } ]
            """#)
        let long = String(repeating: "/a", count: 3000)
        #expect(engine.match(StubRequest(url: URL(string: "https://h\(long)")!)) == nil)
        #expect(engine.match(StubRequest(url: URL(string: "https://h\(long)/b")!)) != nil)
    }

    @Test("covers with several ** against a long pattern answers at once")
    func adversarialCovers() {
        let a = PathPattern(components: Array(repeating: [.globstar, .literal("a")], count: 6).flatMap { $0 } + [.literal("b")])
        let b = PathPattern(components: Array(repeating: .literal("a"), count: 3000))
        #expect(!a.covers(b))
        #expect(a.covers(PathPattern(components: b.components + [.literal("b")])))
    }
}

/// The backtracking matcher from before issue 10, kept as the reference the new one must agree with.
enum ReferencePathPattern {
    static func match(_ pattern: PathPattern, _ segments: [Substring]) -> [String: String]? {
        var captures: [String: String] = [:]
        return match(pattern.components[...], segments[...], &captures) ? captures : nil
    }

    private static func match(_ pattern: ArraySlice<PathPattern.Component>, _ path: ArraySlice<Substring>, _ captures: inout [String: String]) -> Bool {
        var pattern = pattern, path = path
        while let component = pattern.first {
            switch component {
            case .globstar:
                let rest = pattern.dropFirst()
                if rest.isEmpty { return true }
                var tail = path
                while true {
                    var attempt = captures
                    if match(rest, tail, &attempt) {
                        captures = attempt
                        return true
                    }
                    if tail.isEmpty { return false }
                    tail = tail.dropFirst()
                }
            case .literal(let literal):
                guard let segment = path.first, segment == literal else { return false }
            case .parameter(let name):
                guard let segment = path.first else { return false }
                captures[name] = String(segment)
            case .wildcard:
                guard path.first != nil else { return false }
            }
            pattern = pattern.dropFirst()
            path = path.dropFirst()
        }
        return path.isEmpty
    }

    static func covers(_ a: PathPattern, _ b: PathPattern) -> Bool {
        covers(a.components[...], b.components[...])
    }

    private static func covers(_ a: ArraySlice<PathPattern.Component>, _ b: ArraySlice<PathPattern.Component>) -> Bool {
        guard let first = a.first else { return b.isEmpty }
        if case .globstar = first {
            if covers(a.dropFirst(), b) { return true }
            return !b.isEmpty && covers(a, b.dropFirst())
        }
        guard let other = b.first else { return false }
        switch (first, other) {
        case (.literal(let x), .literal(let y)) where x == y:
            break
        case (.parameter, .literal), (.parameter, .parameter), (.parameter, .wildcard),
             (.wildcard, .literal), (.wildcard, .parameter), (.wildcard, .wildcard):
            break
        default:
            return false
        }
        return covers(a.dropFirst(), b.dropFirst())
    }
}
