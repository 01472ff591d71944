#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Reading HAR files for the importer: the shared model (`HAR`) decoded straight from the bytes (no
/// intermediate object tree, so a 10 MB capture costs a small multiple of 10 MB), with errors that
/// name the file and the key path.
enum HARDocument {
    /// Decodes a HAR file; a syntax error names the line and column, a wrong shape the key path.
    static func decode(_ data: Data, file: String) throws(ImportError) -> HAR {
        let bytes = DocumentReader.withoutBOM(data)
        do {
            return try JSONDecoder().decode(HAR.self, from: bytes)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ImportError(file: file, location: path(context.codingPath + [key]), "a HAR file needs '\(key.stringValue)' here")
        } catch let DecodingError.typeMismatch(type, context) {
            throw ImportError(file: file, location: path(context.codingPath), "expected \(describe(type)) here")
        } catch let DecodingError.valueNotFound(type, context) {
            throw ImportError(file: file, location: path(context.codingPath), "expected \(type) here, found null")
        } catch {
            // Not JSON at all: the source parser says where.
            _ = try SourceDocument.json(bytes, file: file)
            throw ImportError(file: file, "not a HAR file: \(error.localizedDescription)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Array") { return "a list" }
        if name.hasPrefix("Dictionary") { return "an object" }
        if name == "String" { return "text" }
        return name.hasPrefix("Int") || name == "Double" ? "a number" : name
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        var text = ""
        for key in keys {
            if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
        }
        return text
    }
}
#endif
