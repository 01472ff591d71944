#if Tools
import Foundation
import StubKit
import StubKitDocuments
import Yams

/// Reads an OpenAPI document, YAML or JSON, into StubKit's ``SourceValue`` tree, keeping each value's
/// line and column so diagnostics can point into the spec as they point into rules files.
enum SpecValueReader {
    struct Failure: Error {
        var message: String
        var position: SourcePosition?
    }

    static func isJSON(_ data: Data, fileName: String) -> Bool {
        fileName.lowercased().hasSuffix(".json") || data.first(where: { !" \t\r\n".utf8.contains($0) }) == UInt8(ascii: "{")
    }

    /// - Throws: ``Failure`` when the JSON is malformed or ``DocumentReader`` refuses the YAML (not YAML,
    ///   empty, or expanded past its alias budget).
    static func read(_ data: Data, fileName: String) throws(Failure) -> SourceValue {
        if isJSON(data, fileName: fileName) {
            do { return try JSONSourceParser().parse(data) } catch { throw Failure(message: "malformed JSON: \(error.message)", position: error.position) }
        }
        let node: Node
        do {
            // Timestamps stay strings: an example's `2024-05-01T12:00:00Z` is the text the API sends.
            node = try DocumentReader.yaml(data, timestamps: .text)
        } catch {
            throw Failure(message: error.message, position: error.position)
        }
        // The reader has counted the tree, aliases followed, so converting it is bounded too.
        return try convert(node)
    }

    private static func convert(_ node: Node) throws(Failure) -> SourceValue {
        let position = node.mark.map { SourcePosition(line: $0.line, column: $0.column) }
        switch node {
        case .scalar(let scalar):
            // The tag decides (a quoted "true" stays text), as Yams' constructor reads it.
            switch node.any {
            case is NSNull: return SourceValue(.null, at: position)
            case let b as Bool: return SourceValue(.bool(b), at: position)
            case let i as Int: return SourceValue(.integer(i), at: position)
            case let d as Double: return SourceValue(.real(d), at: position)
            default: return SourceValue(.string(scalar.string), at: position)
            }
        case .mapping(let mapping):
            var entries: [SourceValue.Entry] = []
            var merged: [SourceValue.Entry] = []
            for (key, value) in mapping {
                let keyPosition = key.mark.map { SourcePosition(line: $0.line, column: $0.column) }
                // A merge key (`<<: *base`, or a list of them): the mappings' keys, unless written here.
                if let scalar = key.scalar, scalar.string == "<<", scalar.style == .plain {
                    let sources = value.sequence.map(Array.init) ?? [value]
                    for source in sources where source.mapping != nil {
                        merged += try convert(source).dictionaryValue ?? []
                    }
                    continue
                }
                // YAML keys may be numbers (`200:` in responses); OpenAPI reads them as text.
                entries.append(SourceValue.Entry(key: key.scalar?.string ?? "\(key)", keyPosition: keyPosition, value: try convert(value)))
            }
            for entry in merged where !entries.contains(where: { $0.key == entry.key }) { entries.append(entry) }
            return SourceValue(.dictionary(entries), at: position)
        case .sequence(let sequence):
            var items: [SourceValue] = []
            for item in sequence { items.append(try convert(item)) }
            return SourceValue(.array(items), at: position)
        case .alias:
            throw Failure(message: "an unresolved YAML alias", position: position)
        }
    }
}

extension SourceValue {
    /// The value at a JSON pointer (`/components/schemas/Pet`, `~1` for `/`, `~0` for `~`).
    func value(atPointer pointer: String) -> SourceValue? {
        // `#str` names a `$anchor`, not a place: no value is found rather than the whole document.
        guard pointer.isEmpty || pointer.hasPrefix("/") else { return nil }
        var current: SourceValue? = self
        for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            let key = String(token).removingPercentEncoding?.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~") ?? String(token)
            guard let value = current else { return nil }
            if let items = value.arrayValue { current = Int(key).flatMap { $0 >= 0 && $0 < items.count ? items[$0] : nil } } else { current = value[key] }
        }
        return current
    }

    var boolValue: Bool? { if case .bool(let b) = kind { return b } else { return nil } }

    var numberValue: Double? {
        switch kind {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        default: return nil
        }
    }
}

/// A JSON pointer token: `/` and `~` escaped.
func pointerToken(_ key: String) -> String {
    key.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
}
#endif
