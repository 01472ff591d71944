#if Tools
import Foundation
import StubKit
import Yams

/// A source file's bytes parsed as JSON or YAML, with errors that name the file and the line.
enum SourceDocument {
    /// The bytes without a UTF-8 byte order mark (Fiddler and some Windows tools write one).
    static func withoutBOM(_ data: Data) -> Data {
        data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
    }

    /// Whether the first non-blank byte opens a JSON object or array.
    static func looksLikeJSON(_ data: Data) -> Bool {
        let first = withoutBOM(data).first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    }

    /// Parses JSON; on failure the error carries StubKit's parser's line and column.
    static func json(_ data: Data, file: String) throws(ImportError) -> Any {
        let bytes = withoutBOM(data)
        if let value = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) { return value }
        do {
            _ = try BundleLoader.parse(Data(bytes), fileName: "source.json")
        } catch {
            throw ImportError(file: file, location: error.position.map { "\($0.line):\($0.column)" }, "not valid JSON: \(error.message)")
        }
        throw ImportError(file: file, "not valid JSON")
    }

    /// Nodes a YAML document may expand to, aliases followed: a floor plus a multiple of its size. A
    /// document without aliases has fewer nodes than bytes; an alias bomb ("billion laughs") has
    /// exponentially more, and would hang the importer and exhaust memory as it is built.
    static func yamlNodeBudget(forBytes bytes: Int) -> Int { 100_000 + 10 * bytes }

    /// Parses YAML (cassettes); `!!binary` values become `Data`.
    ///
    /// - Throws: ``ImportError`` naming the file when it is not YAML, or when its aliases expand it past
    ///   ``yamlNodeBudget(forBytes:)`` (nothing is built then).
    static func yaml(_ data: Data, file: String) throws(ImportError) -> Any {
        guard let text = String(data: withoutBOM(data), encoding: .utf8) else {
            throw ImportError(file: file, "not UTF-8 text")
        }
        do {
            // Composed first: an alias is then a shared reference to its anchor's node, so the tree
            // costs the file's size; it is counted, aliases followed, before anything is expanded.
            guard let node = try Yams.compose(yaml: text) else { throw ImportError(file: file, "the YAML document is empty") }
            let budget = yamlNodeBudget(forBytes: data.count)
            var left = budget
            guard fitsBudget(node, left: &left) else {
                throw ImportError(file: file, "the YAML document's aliases (*name) expand it to more than \(budget) nodes for \(data.count) bytes; refused as an alias bomb")
            }
            return node.any
        } catch let error as ImportError {
            throw error
        } catch let error as YamlError {
            throw ImportError(file: file, location: Self.location(of: error), "not valid YAML: \(error)")
        } catch {
            throw ImportError(file: file, "not valid YAML: \(error)")
        }
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

    private static func location(of error: YamlError) -> String? {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return "\(mark.line):\(mark.column)"
        default:
            return nil
        }
    }
}

/// Typed access to a parsed JSON or YAML tree, with the key path for messages.
struct Node {
    var value: Any?
    var path: String

    init(_ value: Any?, path: String = "") {
        self.value = value
        self.path = path
    }

    subscript(key: String) -> Node {
        Node((value as? [String: Any])?[key], path: path.isEmpty ? key : "\(path).\(key)")
    }

    subscript(index: Int) -> Node {
        let array = value as? [Any]
        return Node(array.flatMap { index < $0.count ? $0[index] : nil }, path: "\(path)[\(index)]")
    }

    var exists: Bool { value != nil && !(value is NSNull) }
    var object: [String: Any]? { value as? [String: Any] }
    var array: [Node]? {
        (value as? [Any]).map { items in items.indices.map { Node(items[$0], path: "\(path)[\($0)]") } }
    }
    var string: String? {
        if let text = value as? String { return text }
        if let number = value as? NSNumber, !(value is Bool) { return number.stringValue }
        return nil
    }
    var int: Int? {
        if let number = value as? Int { return number }
        if let number = value as? Double, number == number.rounded() { return Int(number) }
        if let text = value as? String { return Int(text) }
        return nil
    }
    var double: Double? {
        if let number = value as? Double { return number }
        if let number = value as? Int { return Double(number) }
        if let text = value as? String { return Double(text) }
        return nil
    }
    var bool: Bool? { value as? Bool }
    var keys: [String] { object.map { $0.keys.sorted() } ?? [] }
}
#endif
