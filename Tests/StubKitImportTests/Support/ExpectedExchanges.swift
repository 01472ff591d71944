#if Tools
import Foundation
import StubKitImport
import Yams

/// What a replay of one source entry must give, read from the source file by the test itself (not
/// by the importer), so a reader bug cannot hide behind the same bug in the expectation.
struct ExpectedExchange: CustomStringConvertible {
    var source: String
    var method: String
    var url: String
    var body: Data?
    var headers: [(String, String)] = []
    var status: Int
    var responseBody: Data
    var contentType: String?
    /// Templated or otherwise computed: only the status is compared.
    var statusOnly = false
    /// A redirect the client follows: not compared.
    var followsRedirect = false

    var description: String { "\(source): \(method) \(url)" }
}

enum ExpectedExchanges {
    /// The entries of a source file that must replay; entries the importer must report instead are left out.
    static func read(_ file: URL, format: ImportFormat) throws -> [ExpectedExchange] {
        let data = try Data(contentsOf: file)
        switch format {
        case .har: return try har(data, file: file.lastPathComponent)
        case .vcr: return try cassette(data, file: file)
        case .mocktail: return try mocktail(data, file: file.lastPathComponent)
        case .wiremock: return try wiremock(data, file: file)
        }
    }

    static func json(_ data: Data) throws -> Any {
        let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data
        return try JSONSerialization.jsonObject(with: bytes, options: [.fragmentsAllowed])
    }

    static func header(_ name: String, in headers: [[String: Any]]) -> String? {
        headers.first { ($0["name"] as? String)?.lowercased() == name }?["value"] as? String
    }

    // MARK: HAR

    static func har(_ data: Data, file: String) throws -> [ExpectedExchange] {
        let root = try json(data) as! [String: Any]
        let entries = (root["log"] as! [String: Any])["entries"] as! [[String: Any]]
        return entries.enumerated().compactMap { index, entry in
            let request = entry["request"] as! [String: Any], response = entry["response"] as! [String: Any]
            var status = response["status"] as! Int
            guard status != 0, status != 101 else { return nil }
            let content = response["content"] as? [String: Any] ?? [:]
            var body = Data(((content["text"] as? String) ?? "").utf8)
            if content["encoding"] as? String == "base64" { body = Data(base64Encoded: content["text"] as! String, options: .ignoreUnknownCharacters)! }
            if body.starts(with: [0x1f, 0x8b]) { return nil }  // gzip left in the file: the corrupted one is reported, not imported
            if status == 304 && !body.isEmpty { status = 200 }
            let headers = response["headers"] as? [[String: Any]] ?? []
            var requestBody: Data? = nil
            if let post = request["postData"] as? [String: Any], let text = post["text"] as? String, !text.isEmpty { requestBody = Data(text.utf8) }
            let type = header("content-type", in: headers) ?? (body.isEmpty ? nil : content["mimeType"] as? String)
            return ExpectedExchange(source: "\(file) entries[\(index)]", method: request["method"] as! String, url: request["url"] as! String,
                                    body: requestBody, status: status, responseBody: body, contentType: type == "x-unknown" ? nil : type)
        }
    }

    // MARK: Cassettes

    static func cassette(_ data: Data, file: URL) throws -> [ExpectedExchange] {
        let root: Any = file.pathExtension == "json" ? try json(data) : try Yams.load(yaml: String(decoding: data, as: UTF8.self))!
        let dictionary = root as? [String: Any]
        let interactions = (dictionary?["interactions"] ?? dictionary?["http_interactions"] ?? root) as! [[String: Any]]
        return interactions.enumerated().map { index, interaction in
            let request = interaction["request"] as! [String: Any], response = interaction["response"] as! [String: Any]
            let status = ((response["status"] as? [String: Any])?["code"] as? Int) ?? (response["status"] as! Int)
            var url = (request["uri"] ?? request["url"]) as? String
            if url == nil { url = "\(request["protocol"]!)://\(request["host"]!)\(request["path"]!)" }
            var headers: [String: String] = [:]
            if let object = response["headers"] as? [String: Any] {
                for (name, value) in object { headers[name.lowercased()] = (value as? String) ?? (value as? [String])?.joined(separator: ", ") }
            } else if let lines = response["headers"] as? [String] {
                for line in lines { let parts = line.split(separator: ":", maxSplits: 1); headers[parts[0].lowercased()] = parts[1].trimmingCharacters(in: .whitespacesAndNewlines) }
            }
            let type = headers["content-type"]
            var body = Data()
            switch response["body"] {
            case let text as String:
                body = Data(text.utf8)
                let dvr = response["url"] != nil
                if dvr, let type, !type.hasPrefix("text/"), (try? JSONSerialization.jsonObject(with: body)) == nil, let decoded = Data(base64Encoded: text) { body = decoded }
            case let object as [String: Any] where object["string"] != nil || object["base64_string"] != nil:
                if let bytes = object["string"] as? Data { body = bytes }
                else if let text = object["string"] as? String { body = Data(text.utf8) }
                else { body = Data(base64Encoded: object["base64_string"] as! String, options: .ignoreUnknownCharacters)! }
            case let value? where value is [String: Any] || value is [Any]:
                body = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
            default: break
            }
            if headers["content-encoding"]?.contains("gzip") == true, body.starts(with: [0x1f, 0x8b]) {
                body = try! gunzip(body)
            }
            var requestBody: Data? = nil
            switch request["body"] {
            case let text as String where !text.isEmpty: requestBody = Data(text.utf8)
            case let object as [String: Any] where object["string"] is String: requestBody = Data((object["string"] as! String).utf8)
            case let value? where value is [String: Any] || value is [Any]: requestBody = try! JSONSerialization.data(withJSONObject: value)
            default: break
            }
            if requestBody?.isEmpty == true { requestBody = nil }
            var expected = ExpectedExchange(source: "\(file.lastPathComponent) [\(index)]", method: (request["method"] as? String)?.uppercased() ?? "GET",
                                            url: url!, body: requestBody, status: status, responseBody: body, contentType: type)
            // URLSession (and StubKit on Linux) follows a redirect: the app sees where it leads, checked by that entry.
            expected.followsRedirect = (301...308).contains(status) && headers["location"] != nil
            return expected
        }
    }

    /// gzip through the system's `gzip -dc`, independent of the importer's zlib use.
    static func gunzip(_ data: Data) throws -> Data {
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("expected-\(UUID().uuidString).gz")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        return try shellOutput("gzip -dc '\(input.path)'")
    }

    // MARK: Mocktail

    static func mocktail(_ data: Data, file: String) throws -> [ExpectedExchange] {
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.components(separatedBy: "\n")
        var type = lines[3].trimmingCharacters(in: .whitespaces)
        if type.lowercased().hasPrefix("content-type:") { type = type.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
        var headerEnd = 4
        while headerEnd < lines.count, !lines[headerEnd].isEmpty { headerEnd += 1 }
        var body = Data(lines[(headerEnd + 1)...].joined(separator: "\n").utf8)
        if type.hasSuffix(";base64") {
            type = String(type.dropLast(7))
            body = Data(base64Encoded: body, options: .ignoreUnknownCharacters)!
        }
        let method = lines[0].split(separator: "|").first.map(String.init) ?? "GET"
        let url = RegexSample.url(matching: lines[1].trimmingCharacters(in: .whitespaces))!
        return [ExpectedExchange(source: file, method: method, url: url, status: Int(lines[2])!, responseBody: body, contentType: type)]
    }

    // MARK: WireMock

    static func wiremock(_ data: Data, file: URL) throws -> [ExpectedExchange] {
        let root = try json(data) as! [String: Any]
        let mappings = root["mappings"] as? [[String: Any]] ?? [root]
        var filesRoot = file.deletingLastPathComponent()
        while filesRoot.lastPathComponent != "mappings" && filesRoot.path != "/" { filesRoot.deleteLastPathComponent() }
        filesRoot = filesRoot.deletingLastPathComponent().appendingPathComponent("__files")
        return mappings.enumerated().map { index, mapping in
            let request = mapping["request"] as! [String: Any], response = mapping["response"] as! [String: Any]
            var path: String
            if let url = request["url"] ?? request["urlPath"] { path = url as! String }
            else if let pattern = (request["urlPathPattern"] ?? request["urlPattern"]) as? String { path = RegexSample.text(matching: "^" + pattern + "$")! }
            else { path = "/anything" }
            var query: [String] = []
            for (name, matcher) in (request["queryParameters"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let value = matcher["equalTo"] as? String { query.append("\(name)=\(value)") }
            }
            if !query.isEmpty { path += (path.contains("?") ? "&" : "?") + query.joined(separator: "&") }
            var headers: [(String, String)] = []
            for (name, matcher) in (request["headers"] as? [String: [String: Any]] ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let value = (matcher["equalTo"] ?? matcher["contains"]) as? String { headers.append((name, value)) }
                else if let regex = matcher["matches"] as? String { headers.append((name, RegexSample.text(matching: "^(?:\(regex))$")!)) }
            }
            var body: Data? = nil
            if let pattern = (request["bodyPatterns"] as? [[String: Any]])?.first {
                if let text = (pattern["equalTo"] ?? pattern["contains"]) as? String { body = Data(text.utf8) }
                if let json = pattern["equalToJson"] { body = (json as? String).map { Data($0.utf8) } ?? (try! JSONSerialization.data(withJSONObject: json)) }
                if let regex = pattern["matches"] as? String { body = Data(RegexSample.text(matching: "^(?:\(regex))$")!.utf8) }
                if pattern["matchesJsonPath"] != nil { body = Data("{}".utf8) }
            }
            var responseBody = Data()
            if let text = response["body"] as? String { responseBody = Data(text.utf8) }
            if let json = response["jsonBody"] { responseBody = try! JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]) }
            if let base64 = response["base64Body"] as? String { responseBody = Data(base64Encoded: base64, options: .ignoreUnknownCharacters)! }
            if let name = response["bodyFileName"] as? String { responseBody = try! Data(contentsOf: filesRoot.appendingPathComponent(name)) }
            let responseHeaders = response["headers"] as? [String: Any] ?? [:]
            let type = responseHeaders.first { $0.key.lowercased() == "content-type" }?.value as? String
            let method = (request["method"] as? String).map { $0 == "ANY" ? "GET" : $0 } ?? "GET"
            var expected = ExpectedExchange(source: "\(file.lastPathComponent) [\(index)]", method: method, url: "http://localhost" + path,
                                            body: body, headers: headers, status: response["status"] as? Int ?? 200, responseBody: responseBody, contentType: type)
            expected.statusOnly = String(decoding: responseBody, as: UTF8.self).contains("{{")
            return expected
        }
    }
}
#endif
