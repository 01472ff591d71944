#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Reads cassettes of the VCR family into exchanges: vcrpy (YAML and JSON, `!!binary` bodies, the
/// pre-1.0 layout), Ruby VCR and Python Betamax (`http_interactions`, `base64_string`), go-vcr,
/// Java Betamax and OkReplay tapes, DVR and Vinyl.
///
/// The layouts differ in names more than in shape, so one reader tries each name: the URL is `uri`
/// or `url` (or old vcrpy's protocol, host, port and path); the status a number, `{code:}`, or
/// go-vcr's `code`; a body a string, `{string:}`, `{base64_string:}`, bytes, or (DVR, Vinyl) JSON.
enum CassetteReader {
    /// - Parameter yaml: the file already parsed as YAML (a YAML file is parsed once).
    static func read(_ data: Data, file: String, yaml: Any? = nil, inflateLimit: Int = .max) throws(ImportError) -> ImportBatch {
        let value: Any
        if let yaml {
            value = yaml
        } else {
            value = DocumentReader.looksLikeJSON(data) ? try SourceDocument.json(data, file: file) : try SourceDocument.yaml(data, file: file)
        }
        let root = Node(value)
        guard let interactions = root["interactions"].array ?? root["http_interactions"].array ?? root.array else {
            throw ImportError(file: file, "a cassette needs 'interactions' or 'http_interactions', a list of requests and responses")
        }
        var batch = ImportBatch(format: .vcr, file: file)
        batch.inflateLimit = inflateLimit
        for interaction in interactions {
            let source = "\(file): \(interaction.path)"
            let request = interaction["request"], response = interaction["response"]
            // DVR and Vinyl: requests default to GET; bodies that are neither text nor JSON are base64.
            let dvr = response["url"].exists || interaction["recorded_at"].value is Double
            guard let method = request["method"].string ?? (dvr ? "GET" : nil), let url = url(of: request) else {
                batch.note(source, "no request method or URL; interaction not imported")
                continue
            }
            guard let status = response["status"]["code"].int ?? response["code"].int ?? response["status"].int else {
                batch.note(source, "no response status; interaction not imported")
                continue
            }
            let headers = self.headers(response["headers"])
            let contentType = headers.first { $0.0.lowercased() == "content-type" }?.1
            var responseBody = body(response["body"], contentType: contentType, note: { batch.note(source, $0) }) ?? Data()
            if dvr, let text = response["body"].string, let type = contentType?.lowercased(), !type.hasPrefix("text/"),
               (try? JSONSerialization.jsonObject(with: responseBody, options: [.fragmentsAllowed])) == nil,
               let decoded = Data(base64Encoded: text) {
                responseBody = decoded
            }
            var recorded = ExchangeBuilder.Recorded(source: source, method: method, url: url, status: status, body: responseBody)
            recorded.headers = headers
            recorded.requestHeaders = self.headers(request["headers"])
            let requestType = recorded.requestHeaders.first { $0.0.lowercased() == "content-type" }?.1
            recorded.requestBody = body(request["body"], contentType: requestType, note: { batch.note(source, "request body: " + $0) })
            if recorded.requestBody?.isEmpty == true { recorded.requestBody = nil }
            recorded.startedAt = recordedAt(interaction)
            ExchangeBuilder.build(recorded, into: &batch)
        }
        return batch
    }

    private static func url(of request: Node) -> String? {
        if let uri = request["uri"].string ?? request["url"].string { return uri }
        // vcrpy before 1.0: protocol, host, port, path.
        guard let host = request["host"].string, let path = request["path"].string else { return nil }
        let scheme = request["protocol"].string ?? "http"
        let port = request["port"].int.flatMap { ($0 == 80 && scheme == "http") || ($0 == 443 && scheme == "https") ? nil : ":\($0)" } ?? ""
        return "\(scheme)://\(host)\(port)\(path)"
    }

    /// Headers as a dictionary of strings or lists, a list of pairs, or old vcrpy's `Name: value\r\n` lines.
    private static func headers(_ node: Node) -> [(String, String)] {
        if let object = node.object {
            return object.keys.sorted().flatMap { name -> [(String, String)] in
                let value = node[name]
                if let text = value.string { return [(name, text)] }
                return (value.array ?? []).compactMap(\.string).map { (name, $0) }
            }
        }
        return (node.array ?? []).compactMap { item -> (String, String)? in
            if let line = item.string, let colon = line.firstIndex(of: ":") {
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if let pair = item.array, pair.count == 2, let name = pair[0].string { return (name, pair[1].string ?? "") }
            if let name = item["name"].string ?? item["key"].string { return (name, item["value"].string ?? "") }
            return nil
        }
    }

    private static func body(_ node: Node, contentType: String?, note: (String) -> Void) -> Data? {
        guard node.exists else { return nil }
        if let data = node.value as? Data { return data }
        if let text = node.value as? String { return Data(text.utf8) }
        if node.object != nil, node["string"].exists || node["base64_string"].exists || node["encoding"].exists {
            if let data = node["string"].value as? Data { return data }
            if let base64 = node["base64_string"].string {
                guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
                    note("'base64_string' is not base64; stored empty")
                    return Data()
                }
                return data
            }
            return Data((node["string"].string ?? "").utf8)
        }
        // DVR and Vinyl store JSON bodies as JSON values.
        if let value = node.value, value is [String: Any] || value is [Any] {
            return CanonicalJSON.data(value)
        }
        note("a body of an unknown shape; stored empty")
        return Data()
    }

    private static func recordedAt(_ interaction: Node) -> Date? {
        if let seconds = interaction["recorded_at"].value as? Double { return Date(timeIntervalSince1970: seconds) }
        if let date = interaction["recorded_at"].value as? Date ?? interaction["recorded"].value as? Date { return date }
        if let text = interaction["recorded_at"].string ?? interaction["recorded"].string {
            if let date = ExchangeBuilder.date(text) { return date }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
            return formatter.date(from: text)
        }
        return nil
    }
}
#endif
