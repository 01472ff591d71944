import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The binary property list reader: every type, and hostile files that must give a diagnostic, never
/// a crash, a hang or gigabytes of memory.
struct BinaryPropertyListTests {
    typealias B = BinaryPropertyListBuilder

    func parse(_ data: Data) throws(SourceSyntaxError) -> SourceValue {
        try PropertyListSourceParser().parse(data)
    }

    func loadRules(_ data: Data) throws -> [Diagnostic] {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("b", [:])
        try data.write(to: bundle.appendingPathComponent("stubsRules.plist"))
        return BundleLoader(options: .lint).load(folder: bundle).diagnostics
    }

    @Test("the 46-byte file whose root is a set is a diagnostic, not a segfault")
    func setRoot() throws {
        let diagnostics = try loadRules(B.setRoot)
        #expect(diagnostics.map(\.code) == [.invalidTopLevel])
        #expect(diagnostics.first?.message.contains("the top level is a set") == true)
    }

    @Test("a rule whose path or method is a set is a wrong-type diagnostic with its key path")
    func setValues() throws {
        var b = B()
        let path = b.add(B.ascii("path")), method = b.add(B.ascii("method"))
        let a = b.add(B.ascii("/a")), get = b.add(B.ascii("GET"))
        let pathSet = b.add(b.set([a])), methodSet = b.add(b.set([get]))
        let rule = b.add(b.dict([method, path], [methodSet, pathSet]))
        let top = b.add(b.array([rule]))
        let diagnostics = try loadRules(b.data(top: top))
        #expect(diagnostics.map(\.code) == [.wrongType, .wrongType])
        #expect(diagnostics.map(\.keyPath) == ["[0].method", "[0].path"])
        #expect(diagnostics.allSatisfy { $0.message.hasSuffix("found a set") })
    }

    @Test("a date, data or UID where a rule expects a string is a wrong-type diagnostic")
    func foreignTypes() throws {
        var b = B()
        let keys = ["path", "name", "body"].map { b.add(B.ascii($0)) }
        let date = b.add([0x33] + B.bigEndian(0, size: 8))
        let data = b.add([0x42, 0xDE, 0xAD])
        let uid = b.add([0x80, 0x07])
        let rule = b.add(b.dict(keys, [date, data, uid]))
        let top = b.add(b.array([rule]))
        let diagnostics = try loadRules(b.data(top: top))
        #expect(diagnostics.map(\.keyPath) == ["[0].body", "[0].name", "[0].path"])
        #expect(diagnostics.map(\.message) == [
            "expected a string, found a UID (a keyed-archiver reference)", "expected a string, found data", "expected a string, found a date",
        ])
    }

    @Test("30 levels of shared references (4 GB expanded) are refused, naming the limit")
    func sharedReferenceBomb() throws {
        let bomb = B.sharedReferenceBomb(levels: 30)
        #expect(bomb.count < 200)
        let clock = ContinuousClock()
        let elapsed = try clock.measure {
            let diagnostics = try loadRules(bomb)
            #expect(diagnostics.map(\.code) == [.malformedFile])
            #expect(diagnostics.first?.message.contains("the values expand to more than") == true, "\(diagnostics)")
        }
        // Linear in the file: refused after at most ~1 MB of values, far from 60 s.
        #expect(elapsed < .seconds(5))
    }

    @Test("shared references that stay small are read, once per reference")
    func legitimateSharing() throws {
        let root = try parse(B.sharedReferenceBomb(levels: 10))
        func leaves(_ v: SourceValue) -> Int { v.arrayValue.map { $0.map(leaves).reduce(0, +) } ?? 1 }
        #expect(leaves(root) == 1024)
    }

    struct Hostile: CustomTestStringConvertible, Sendable {
        var name: String
        var data: Data
        var fragment: String
        var testDescription: String { name }
    }

    static let hostile: [Hostile] = {
        var cycle = B()
        cycle.add(cycle.array([1])); cycle.add(cycle.array([0]))
        var deep = B(refSize: 2)
        deep.add(B.ascii("x"))
        for i in 0..<300 { deep.add(deep.array([i])) }
        var badRef = B()
        badRef.add(badRef.array([9]))
        var longString = B()
        longString.add([0x5F, 0x13] + B.bigEndian(1 << 40, size: 8))
        var nonStringKey = B()
        nonStringKey.add(B.int(1)); nonStringKey.add(nonStringKey.dict([0], [0]))
        var setRootData = B.setRoot
        setRootData[setRootData.count - 1] = 0xFF // offset table beyond the file
        var badOffset = B.setRoot
        badOffset[12] = 0xF0 // first object's offset points into the trailer
        return [
            Hostile(name: "reference cycle", data: cycle.data(top: 0), fragment: "reference cycle"),
            Hostile(name: "nesting 300 deep", data: deep.data(top: 300), fragment: "nested more than 256 levels"),
            Hostile(name: "reference out of range", data: badRef.data(top: 0), fragment: "reference to object 9"),
            Hostile(name: "string longer than the file", data: longString.data(top: 0), fragment: "longer than the file"),
            Hostile(name: "non-string key", data: nonStringKey.data(top: 1), fragment: "keys must be strings"),
            Hostile(name: "offset table outside the file", data: setRootData, fragment: "does not fit in the file"),
            Hostile(name: "object offset outside the data", data: badOffset, fragment: "outside the object data"),
            Hostile(name: "truncated", data: Data("bplist00".utf8) + Data(count: 10), fragment: "at least 40 bytes"),
            Hostile(name: "top object out of range", data: { var d = B.setRoot; d[d.count - 9] = 7; return d }(), fragment: "top object"),
        ]
    }()

    @Test("hostile binary property lists are syntax errors naming the problem", arguments: hostile)
    func hostileFiles(_ c: Hostile) {
        do {
            _ = try parse(c.data)
            Issue.record("parsed without error")
        } catch {
            #expect(error.message.contains(c.fragment), "\(error.message)")
            #expect(error.message.hasPrefix("binary property list: "))
        }
    }

    @Test("every binary type reads as Foundation wrote it")
    func everyType() throws {
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let object: [String: Any] = [
            "ascii": "plain", "unicode": "café 🍕", "small": 7, "negative": -3, "large": Int64.max, "u16": 300, "u32": 70000,
            "real": 2.5, "true": true, "false": false, "date": date, "data": Data([1, 2, 3]), "nested": [["k": [1, "two"]]],
            "long": String(repeating: "z", count: 40),
        ]
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let root = try parse(data)
        let d = Dictionary(uniqueKeysWithValues: try #require(root.dictionaryValue).map { ($0.key, $0.value) })
        #expect(root.dictionaryValue?.map(\.key) == object.keys.sorted())
        #expect(d["ascii"]?.stringValue == "plain")
        #expect(d["unicode"]?.stringValue == "café 🍕")
        #expect(d["long"]?.stringValue == String(repeating: "z", count: 40))
        for (key, value) in [("small", 7), ("negative", -3), ("large", Int(Int64.max)), ("u16", 300), ("u32", 70000)] {
            if case .integer(value) = d[key]?.kind {} else { Issue.record("\(key) is \(String(describing: d[key]?.kind))") }
        }
        if case .real(2.5) = d["real"]?.kind {} else { Issue.record("real") }
        if case .bool(true) = d["true"]?.kind {} else { Issue.record("true") }
        if case .bool(false) = d["false"]?.kind {} else { Issue.record("false") }
        if case .date(date) = d["date"]?.kind {} else { Issue.record("date") }
        if case .data(Data([1, 2, 3])) = d["data"]?.kind {} else { Issue.record("data") }
        #expect(d["nested"]?.arrayValue?.first?.dictionaryValue?.first?.value.arrayValue?.count == 2)
    }

    @Test("a 128-bit integer up to UInt64.max is read; beyond 64 bits is refused")
    func wideIntegers() throws {
        var b = B()
        b.add([0x14] + B.bigEndian(0, size: 8) + B.bigEndian(UInt64.max, size: 8))
        let root = try parse(b.data(top: 0))
        if case .real(let d) = root.kind { #expect(d == Double(UInt64.max)) } else { Issue.record("\(root.kind)") }
        var c = B()
        c.add([0x14] + B.bigEndian(1, size: 8) + B.bigEndian(0, size: 8))
        #expect(throws: SourceSyntaxError.self) { try parse(c.data(top: 0)) }
    }

    /// Inputs the fuzz targets crashed on (see docs/fuzzing.md); each must now read within bounds or be refused.
    static var fuzzFindings: [String] {
        let folder = PackagePaths.fixtures.appendingPathComponent("fuzz")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".bplist") }.sorted()
    }

    @Test("binary plists the fuzzer found are read within the expansion bound, or refused", arguments: fuzzFindings)
    func fuzzFinding(_ name: String) throws {
        let data = try Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("fuzz").appendingPathComponent(name))
        var bytes = [UInt8](data)
        if !bytes.starts(with: Array("bplist00".utf8)) { bytes = Array("bplist00".utf8) + bytes }
        var parser = BinaryPropertyListParser(bytes)
        if let value = try? parser.parse() {
            #expect(BinaryPropertyListParser.expandedSize(of: value) <= BinaryPropertyListParser.maximumExpandedSize(forFileOfSize: bytes.count))
        }
    }

    @Test("bytes above 0x7F in an ASCII string count at their UTF-8 size against the bound (fuzz finding)")
    func latin1Expansion() throws {
        let data = try Data(contentsOf: PackagePaths.fixtures.appendingPathComponent("fuzz/bplist-latin1-expansion.bplist"))
        // Not #expect(throws:): on failure it would print the whole 1 MB tree.
        let refused = (try? PropertyListSourceParser().parse(data)) == nil
        #expect(refused, "read a tree whose UTF-8 size passes the bound")
    }
}
