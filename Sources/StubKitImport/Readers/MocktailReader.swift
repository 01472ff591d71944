#if Tools
import Foundation
import StubKit

/// Reads Mocktail `.tail` files (OHHTTPStubs): a method regex, a URL regex, a status, a content type
/// (a bare type or a `Content-Type:` line; `;base64` marks a base64 body), more `Name: value` header
/// lines, a blank line, then the body byte for byte.
enum MocktailReader {
    /// Whether the first three lines read as method, URL pattern and status.
    static func looksLikeMocktail(_ data: Data) -> Bool {
        let lines = data.prefix(4096).split(separator: UInt8(ascii: "\n"), maxSplits: 3, omittingEmptySubsequences: false)
        guard lines.count >= 3, let status = Int(String(decoding: lines[2], as: UTF8.self).trimmingCharacters(in: .whitespaces)) else { return false }
        let method = String(decoding: lines[0], as: UTF8.self).trimmingCharacters(in: .whitespaces)
        return (100...599).contains(status) && !method.isEmpty && method.allSatisfy { $0.isLetter || "|.*()".contains($0) }
    }

    static func read(_ data: Data, file: String) throws(ImportError) -> ImportBatch {
        var lines: [Data] = []
        var start = data.startIndex, index = data.startIndex
        // Header lines up to the first blank line after the fourth; the rest is the body, untouched.
        var bodyStart: Data.Index? = nil
        while index < data.endIndex {
            if data[index] == UInt8(ascii: "\n") {
                var line = data[start..<index]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                start = data.index(after: index)
                if lines.count >= 4 && line.isEmpty { bodyStart = start; break }
                lines.append(Data(line))
            }
            index = data.index(after: index)
        }
        if bodyStart == nil && start < data.endIndex { lines.append(Data(data[start...])) }
        let text = lines.map { String(decoding: $0, as: UTF8.self) }
        guard text.count >= 3 else { throw ImportError(file: file, location: "\(text.count + 1)", "a Mocktail file needs a method line, a URL line and a status line") }
        guard let status = Int(text[2].trimmingCharacters(in: .whitespaces)), (100...599).contains(status) else {
            throw ImportError(file: file, location: "3", "the status line '\(text[2])' is not a status code 100...599")
        }
        var batch = ImportBatch(format: .mocktail, file: file)
        var headers: [String: String] = [:]
        var contentType = text.count > 3 ? text[3].trimmingCharacters(in: .whitespaces) : ""
        if let header = header(contentType), header.name.lowercased() == "content-type" { contentType = header.value }
        var base64 = false
        if contentType.lowercased().hasSuffix(";base64") {
            base64 = true
            contentType = String(contentType.dropLast(";base64".count))
        }
        if !contentType.isEmpty { headers["Content-Type"] = contentType }
        for (offset, line) in text.dropFirst(4).enumerated() {
            guard let header = header(line) else {
                batch.note("\(file):\(offset + 5)", "'\(line)' is not a 'Name: value' header line; left out")
                continue
            }
            if header.name.lowercased() == "content-type" && !contentType.isEmpty { continue }
            headers[header.name] = header.value
        }
        var body = bodyStart.map { Data(data[$0...]) } ?? Data()
        if base64 {
            guard let decoded = Data(base64Encoded: body, options: .ignoreUnknownCharacters) else {
                throw ImportError(file: file, "the content type says ';base64' but the body is not base64")
            }
            body = decoded
        }
        var ext = MediaType.fileExtension(for: contentType)
        if ext == "json", (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) == nil, !body.isEmpty { ext = "txt" }
        let methodPattern = text[0].trimmingCharacters(in: .whitespaces)
        let methods = methodPattern.split(separator: "|").map { String($0).uppercased() }
        let listed = methods.allSatisfy { RuleKeys.httpMethods.contains($0) }
        let urlRegex = text[1].trimmingCharacters(in: .whitespaces)
        let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
        // Mocktail matches the method by regex: a list of methods becomes one rule per method.
        for method in listed ? methods : [BundleWriter.ImportedOptions.anyMethod] {
            var conditions = BundleWriter.RequestConditions(method: method, host: nil, path: "/" + name)
            conditions.options.urlRegex = urlRegex
            conditions.options.name = listed && methods.count > 1 ? "\(name) (\(method))" : name
            let response = BundleWriter.Response(status: status, headers: headers, body: .data(body), fileExtension: ext)
            batch.entries.append(.stub(.init(source: file, conditions: conditions, response: response)))
        }
        if !listed && methodPattern != ".*" {
            batch.note(file, "the method pattern '\(methodPattern)' is not a list of methods; the rule answers any method")
        }
        return batch
    }

    private static func header(_ line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces)
        guard !name.isEmpty, !name.contains(" "), !name.contains("/") else { return nil }
        return (name, line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }
}
#endif
