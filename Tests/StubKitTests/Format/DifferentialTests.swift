import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// StubKit's readers against Foundation's on a generated corpus (fixed seed, printed with every failure).
///
/// Wherever both accept a document, the values agree. Wherever StubKit refuses what Foundation accepts
/// (or the reverse), the document must carry a feature listed in ``documentedDifferences``: the
/// differences are deliberate and written down here, never accidental.
struct DifferentialTests {
    static let seed: UInt64 = 0xD1FF_2026
    static let documentCount = 3000

    /// Deliberate differences, with why.
    static let documentedDifferences: [DifferentialCorpus.Feature: String] = [
        .deepNesting: "StubKit refuses nesting deeper than 256 levels, so a hostile file cannot exhaust the stack; Foundation allows 512",
        .loneSurrogate: "StubKit refuses a \\u escape of a lone UTF-16 surrogate (it is no character); Foundation substitutes U+FFFD or refuses",
        .mutated: "randomly damaged documents: both must refuse or agree, except where Foundation is lenient about damage (e.g. trailing bytes), which StubKit reports",
        .hugeInteger: "integers beyond 64 bits: StubKit reads them as reals, Foundation as Decimal; the values agree only approximately",
    ]

    /// A value as both sides can express it: numbers (and booleans) as Double, dates as seconds.
    indirect enum Canonical: Equatable, CustomStringConvertible {
        case null, number(Double), string(String), date(Double), data(Data)
        case array([Canonical]), dictionary([String: Canonical])

        init(_ value: SourceValue) {
            switch value.kind {
            case .null: self = .null
            case .bool(let b): self = .number(b ? 1 : 0)
            case .integer(let i): self = .number(Double(i))
            case .real(let d): self = .number(d)
            case .string(let s): self = .string(s)
            case .date(let d): self = .date(d.timeIntervalSinceReferenceDate)
            case .data(let d): self = .data(d)
            case .array(let items): self = .array(items.map(Canonical.init))
            case .dictionary(let entries):
                self = .dictionary(Dictionary(entries.map { ($0.key, Canonical($0.value)) }, uniquingKeysWith: { first, _ in first }))
            }
        }

        init(foundation object: Any) {
            switch object {
            case is NSNull: self = .null
            case let s as String: self = .string(s)
            case let d as Date: self = .date(d.timeIntervalSinceReferenceDate)
            case let d as Data: self = .data(d)
            case let a as [Any]: self = .array(a.map { Canonical(foundation: $0) })
            case let d as [String: Any]: self = .dictionary(d.mapValues { Canonical(foundation: $0) })
            case let b as Bool where type(of: object) == Bool.self: self = .number(b ? 1 : 0)
            case let n as NSNumber: self = .number(n.doubleValue)
            case let d as Decimal: self = .number(NSDecimalNumber(decimal: d).doubleValue)
            default: self = .string("<\(type(of: object))>")
            }
        }

        var description: String {
            switch self {
            case .null: return "null"
            case .number(let d): return "\(d)"
            case .string(let s): return s.debugDescription
            case .date(let d): return "date(\(d))"
            case .data(let d): return "data(\(d.count))"
            case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
            case .dictionary(let d): return "{" + d.keys.sorted().map { "\($0.debugDescription): \(d[$0]!)" }.joined(separator: ", ") + "}"
            }
        }
    }

    struct Disagreement: CustomStringConvertible {
        var document: String
        var ours: String
        var foundation: String
        var description: String { "\(document.prefix(300)) -> ours: \(ours.prefix(200)); Foundation: \(foundation.prefix(200))" }
    }

    @Test("JSON: StubKit and JSONSerialization agree on a generated corpus, except documented differences")
    func json() {
        var corpus = DifferentialCorpus(seed: Self.seed)
        var undocumented: [Disagreement] = []
        var bothAccepted = 0, documented = 0
        for _ in 0..<Self.documentCount {
            let document = corpus.jsonDocument()
            let data = Data(document.text)
            let ours = Result { () throws(SourceSyntaxError) in try JSONSourceParser().parse(data) }.map(Canonical.init)
            let theirs = Result { try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) }.map(Canonical.init(foundation:))
            switch (ours, theirs) {
            case (.success(let a), .success(let b)) where a == b: bothAccepted += 1; continue
            case (.failure, .failure): continue
            default: break
            }
            if !document.features.isDisjoint(with: Self.documentedDifferences.keys) { documented += 1; continue }
            undocumented.append(Disagreement(document: String(decoding: document.text, as: UTF8.self), ours: "\(ours)", foundation: "\(theirs)"))
        }
        #expect(undocumented.isEmpty, "seed \(Self.seed): \(undocumented.count) undocumented disagreements, first: \(undocumented.prefix(3))")
        #expect(bothAccepted > Self.documentCount / 2, "seed \(Self.seed): only \(bothAccepted) documents read alike")
    }

    @Test("property lists Foundation writes (XML and binary) read the same with StubKit and PropertyListSerialization")
    func propertyLists() throws {
        var corpus = DifferentialCorpus(seed: Self.seed)
        var disagreements: [String] = []
        for i in 0..<Self.documentCount {
            let root: Any = corpus.chance(50) ? [corpus.plistValue()] : ["k": corpus.plistValue()]
            let format: PropertyListSerialization.PropertyListFormat = i % 2 == 0 ? .xml : .binary
            let data = try PropertyListSerialization.data(fromPropertyList: root, format: format, options: 0)
            let theirs = Canonical(foundation: try PropertyListSerialization.propertyList(from: data, format: nil))
            do {
                let ours = Canonical(try PropertyListSourceParser().parse(data))
                if ours != theirs { disagreements.append("#\(i) \(format == .xml ? "XML" : "binary"): ours \(ours); Foundation \(theirs)") }
            } catch {
                disagreements.append("#\(i) \(format == .xml ? "XML" : "binary"): StubKit refused: \(error)")
            }
        }
        #expect(disagreements.isEmpty, "seed \(Self.seed): \(disagreements.count) disagreements, first: \(disagreements.prefix(3))")
    }

    @Test("hand-written XML forms Foundation reads: hex and unsigned integers, entities, CDATA, comments", arguments: [
        "<plist><integer>0x1F</integer></plist>",
        "<plist><integer> 42 </integer></plist>",
        "<plist><integer>18446744073709551615</integer></plist>",
        "<plist><integer>-9223372036854775808</integer></plist>",
        "<plist><string>a &amp; &lt;b&gt; &#x1F355; &#233;</string></plist>",
        "<plist><string><![CDATA[<raw> & ]]></string></plist>",
        "<plist><!-- c --><array><!-- c --><true/><false/></array></plist>",
        "<plist><dict><key>a</key><real>1e3</real><key>b</key><date>2024-01-31T12:00:00Z</date><key>c</key><data>AAEC</data></dict></plist>",
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><array/></plist>",
    ])
    func handWrittenXML(text: String) throws {
        let data = Data(text.utf8)
        let theirs = try? PropertyListSerialization.propertyList(from: data, format: nil)
        let ours = try PropertyListSourceParser().parse(data)
        if let theirs {
            #expect(Canonical(ours) == Canonical(foundation: theirs))
        }
    }
}
