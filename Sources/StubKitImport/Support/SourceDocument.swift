#if Tools
import Foundation
import StubKit
import StubKitDocuments
import Yams

/// A source file's bytes parsed as JSON or YAML, with errors that name the file and the line.
enum SourceDocument {
    /// Parses JSON; on failure the error carries StubKit's parser's line and column.
    static func json(_ data: Data, file: String) throws(ImportError) -> Any {
        let bytes = DocumentReader.withoutBOM(data)
        if let value = try? JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed]) { return value }
        do {
            _ = try BundleLoader.parse(Data(bytes), fileName: "source.json")
        } catch {
            throw ImportError(file: file, location: error.position.map { "\($0.line):\($0.column)" }, "not valid JSON: \(error.message)")
        }
        throw ImportError(file: file, "not valid JSON")
    }

    /// Parses YAML (cassettes) with ``DocumentReader``'s alias budget; timestamps become `Date`s and
    /// `!!binary` values `Data`.
    ///
    /// - Throws: ``ImportError`` naming the file (and the line where known) when ``DocumentReader`` refuses it.
    static func yaml(_ data: Data, file: String) throws(ImportError) -> Any {
        do {
            return try DocumentReader.yaml(data, timestamps: .dates).any
        } catch {
            throw ImportError(file: file, location: error.position?.description, error.message)
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
