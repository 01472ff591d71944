import Foundation

/// Reads HAR 1.2 (`log.entries[]`) as written by browsers, proxies and HTTP clients.
///
/// Bodies may be base64 (`content.encoding`), still gzip-compressed, or missing; request bodies come
/// from `postData.text` or, for forms, `postData.params`. Entries without a usable response (status
/// 0, WebSocket upgrades) are reported, never dropped silently.
enum HARReader {
    static func read(_ data: Data, file: String) throws(ImportError) -> ImportBatch {
        let root = Node(try SourceDocument.json(data, file: file))
        guard root.object != nil else { throw ImportError(file: file, "a HAR file is a JSON object with 'log'") }
        guard let entries = root["log"]["entries"].array else {
            throw ImportError(file: file, location: "log.entries", "a HAR file needs 'log.entries', a list of requests")
        }
        var batch = ImportBatch(format: .har, file: file)
        for entry in entries {
            let source = "\(file): \(entry.path)"
            let request = entry["request"], response = entry["response"]
            guard let method = request["method"].string, let url = request["url"].string else {
                batch.note(source, "no 'request.method' or 'request.url'; entry not imported")
                continue
            }
            guard let status = response["status"].int else {
                batch.note(source, "no 'response.status'; entry not imported")
                continue
            }
            let content = response["content"]
            var body = Data()
            if let text = content["text"].string {
                if content["encoding"].string?.lowercased() == "base64" {
                    guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        batch.note(source, "'response.content.text' is declared base64 but is not; entry not imported")
                        continue
                    }
                    body = decoded
                } else {
                    if let encoding = content["encoding"].string, !encoding.isEmpty {
                        batch.note(source, "unknown 'response.content.encoding' '\(encoding)': the text is used as it is")
                    }
                    body = Data(text.utf8)
                }
            }
            var recorded = ExchangeBuilder.Recorded(source: source, method: method, url: url, status: status, body: body)
            recorded.requestHeaders = pairs(request["headers"])
            recorded.headers = pairs(response["headers"])
            recorded.mimeType = content["mimeType"].string
            if !content["text"].exists { recorded.missingBodySize = content["size"].int }
            recorded.requestBody = postData(request["postData"])
            recorded.startedAt = ExchangeBuilder.date(entry["startedDateTime"].string)
            ExchangeBuilder.build(recorded, into: &batch)
        }
        return batch
    }

    private static func pairs(_ node: Node) -> [(String, String)] {
        (node.array ?? []).compactMap { item in
            guard let name = item["name"].string else { return nil }
            return (name, item["value"].string ?? "")
        }
    }

    private static func postData(_ node: Node) -> Data? {
        guard node.exists else { return nil }
        if let text = node["text"].string, !text.isEmpty {
            if node["encoding"].string?.lowercased() == "base64", let data = Data(base64Encoded: text) { return data }
            return Data(text.utf8)
        }
        let params = pairs(node["params"])
        return params.isEmpty ? nil : Data(ExchangeBuilder.formEncoded(params).utf8)
    }
}
