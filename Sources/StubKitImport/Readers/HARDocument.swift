#if Tools
import Foundation

/// The parts of HAR 1.2 the importer reads, decoded straight from the bytes (no intermediate object
/// tree, so a 10 MB capture costs a small multiple of 10 MB). Every field is optional: a missing one
/// is reported per entry rather than failing the file.
struct HARDocument: Decodable {
    var log: Log

    struct Log: Decodable {
        var entries: [Entry]
    }

    struct Entry: Decodable {
        var startedDateTime: String?
        var request: Request?
        var response: Response?
    }

    struct Request: Decodable {
        var method: String?
        var url: String?
        var headers: [NameValue]?
        var postData: PostData?
    }

    struct PostData: Decodable {
        var text: String?
        var encoding: String?
        var params: [NameValue]?
    }

    struct Response: Decodable {
        var status: Number?
        var headers: [NameValue]?
        var content: Content?
    }

    struct Content: Decodable {
        var text: String?
        var encoding: String?
        var mimeType: String?
        var size: Number?
    }

    struct NameValue: Decodable {
        var name: String?
        var value: String?

        enum CodingKeys: String, CodingKey { case name, value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try? container.decode(String.self, forKey: .name)
            // Polly.JS writes repeated headers as a list of values; numbers appear too.
            if let text = try? container.decode(String.self, forKey: .value) { value = text }
            else if let list = try? container.decode([String].self, forKey: .value) { value = list.joined(separator: ", ") }
            else if let number = try? container.decode(Double.self, forKey: .value) { value = number == number.rounded() ? String(Int(number)) : String(number) }
            else if let flag = try? container.decode(Bool.self, forKey: .value) { value = String(flag) }
            else { value = nil }
        }
    }

    /// An integer written as a number (`200`, `200.0`) or a numeric string, as tools differ.
    struct Number: Decodable {
        var value: Int?

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let int = try? container.decode(Int.self) { value = int }
            else if let double = try? container.decode(Double.self), double == double.rounded(), abs(double) < 1e9 { value = Int(double) }
            else if let text = try? container.decode(String.self) { value = Int(text) }
            else { value = nil }
        }
    }

    /// Decodes a HAR file; a syntax error names the line and column, a wrong shape the key path.
    static func decode(_ data: Data, file: String) throws(ImportError) -> HARDocument {
        let bytes = SourceDocument.withoutBOM(data)
        do {
            return try JSONDecoder().decode(HARDocument.self, from: bytes)
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
