#if Tools
import Foundation
import StubKit
import Yams

/// Reads the JSON and YAML documents the tools take in (cassettes for the importers, OpenAPI specs for
/// the checks): one place for the byte order mark, the JSON sniff and the alias budget that refuses a
/// "billion laughs" document before it is expanded.
package enum DocumentReader {
    /// How YAML timestamps (`2024-05-01T12:00:00Z`) are resolved.
    package enum Timestamps: Sendable {
        /// As dates (`Date` in `Node.any`), YAML 1.1's reading.
        case dates
        /// As text: an OpenAPI example's timestamp is the characters the API sends.
        case text
    }

    /// Why a document cannot be read; the caller's error adds the file's name.
    package struct Failure: Error, Sendable {
        package var message: String
        package var position: SourcePosition?

        package init(_ message: String, position: SourcePosition? = nil) {
            self.message = message
            self.position = position
        }
    }

    /// The bytes without a UTF-8 byte order mark (Fiddler and some Windows tools write one).
    package static func withoutBOM(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }

    /// Whether the first non-blank byte opens a JSON object or array.
    package static func looksLikeJSON(_ data: Data) -> Bool {
        let first = withoutBOM(data).first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Nodes a YAML document may expand to, aliases followed: a floor plus a multiple of its size. A
    /// document without aliases has fewer nodes than bytes; an alias bomb ("billion laughs") has
    /// exponentially more, and would hang the reader and exhaust memory as it is built.
    package static func yamlNodeBudget(forBytes bytes: Int) -> Int { 100_000 + 10 * bytes }

    /// Composes a YAML document into its node tree, each node with its line and column.
    ///
    /// Composing keeps an alias as a shared reference to its anchor's node, so the tree costs the file's
    /// size; it is counted, aliases followed, before anyone expands it. `!!binary` scalars stay tagged:
    /// `Node.any` makes them `Data`, `scalar.string` keeps their base64 text.
    ///
    /// - Throws: ``Failure`` when the bytes are not UTF-8 YAML (with the line and column where known),
    ///   hold no document, or expand past ``yamlNodeBudget(forBytes:)`` through their aliases.
    package static func yaml(_ data: Data, timestamps: Timestamps) throws(Failure) -> Yams.Node {
        guard let text = String(data: withoutBOM(data), encoding: .utf8) else { throw Failure("not UTF-8 text") }
        let node: Yams.Node?
        do {
            node = try Yams.compose(yaml: text, timestamps == .dates ? .default : Resolver.default.removing(.timestamp))
        } catch let error as YamlError {
            throw Failure("not valid YAML: \(error)", position: position(of: error))
        } catch {
            throw Failure("not valid YAML: \(error)")
        }
        guard let node else { throw Failure("the YAML document is empty") }
        let budget = yamlNodeBudget(forBytes: data.count)
        var left = budget
        guard fitsBudget(node, left: &left) else {
            throw Failure("the YAML document's aliases (*name) expand it to more than \(budget) nodes for \(data.count) bytes; refused as an alias bomb")
        }
        return node
    }

    /// Counts `node` and everything under it, aliases expanded, against `left`; false once it runs out.
    private static func fitsBudget(_ node: Yams.Node, left: inout Int) -> Bool {
        left -= 1
        guard left >= 0 else { return false }
        switch node {
        case .mapping(let mapping):
            for (key, value) in mapping where !fitsBudget(key, left: &left) || !fitsBudget(value, left: &left) { return false }
        case .sequence(let sequence):
            for item in sequence where !fitsBudget(item, left: &left) { return false }
        case .scalar, .alias:
            break
        }
        return true
    }

    private static func position(of error: YamlError) -> SourcePosition? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return SourcePosition(line: mark.line, column: mark.column)
        default:
            return nil
        }
    }
}
#endif
