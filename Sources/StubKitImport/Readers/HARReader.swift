#if Tools
import Foundation
import StubKit

/// Reads HAR 1.2 (`log.entries[]`) as written by browsers, proxies and HTTP clients.
///
/// Bodies may be base64 (`content.encoding`), still gzip-compressed, or missing; request bodies come
/// from `postData.text` or, for forms, `postData.params`. Entries without a usable response (status
/// 0, WebSocket upgrades) are reported, never dropped silently.
enum HARReader {
    static func read(_ data: Data, file: String, inflateLimit: Int = .max) throws(ImportError) -> ImportBatch {
        let document = try HARDocument.decode(data, file: file)
        var batch = ImportBatch(format: .har, file: file)
        batch.inflateLimit = inflateLimit
        let dates = ExchangeBuilder.DateParser()
        for (index, entry) in document.log.entries.enumerated() {
            let source = "\(file): log.entries[\(index)]"
            guard let request = entry.request, let method = request.method, let url = request.url else {
                batch.note(source, "no 'request.method' or 'request.url'; entry not imported")
                continue
            }
            guard let status = entry.response?.status?.value else {
                batch.note(source, "no 'response.status'; entry not imported")
                continue
            }
            if status == 101, let messages = entry.webSocketMessages {
                webSocket(entry, method: method, url: url, messages: messages, source: source, dates: dates, into: &batch)
                continue
            }
            let content = entry.response?.content
            var body = Data()
            if let text = content?.text {
                if content?.encoding?.lowercased() == "base64" {
                    guard let decoded = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        batch.note(source, "'response.content.text' is declared base64 but is not; entry not imported")
                        continue
                    }
                    body = decoded
                } else {
                    if let encoding = content?.encoding, !encoding.isEmpty {
                        batch.note(source, "unknown 'response.content.encoding' '\(encoding)': the text is used as it is")
                    }
                    body = Data(text.utf8)
                }
            }
            var recorded = ExchangeBuilder.Recorded(source: source, method: method, url: url, status: status, body: body)
            recorded.requestHeaders = pairs(request.headers)
            recorded.headers = pairs(entry.response?.headers)
            recorded.mimeType = content?.mimeType
            if content?.text == nil { recorded.missingBodySize = content?.size?.value }
            recorded.requestBody = postData(request.postData)
            recorded.startedAt = entry.startedDateTime.flatMap(dates.date)
            ExchangeBuilder.build(recorded, into: &batch)
        }
        return batch
    }

    static func pairs(_ list: [HAR.NameValue]?) -> [(String, String)] {
        (list ?? []).compactMap { item in item.name.map { ($0, item.value ?? "") } }
    }

    private static func postData(_ postData: HAR.PostData?) -> Data? {
        guard let postData else { return nil }
        if let text = postData.text, !text.isEmpty {
            if postData.encoding?.lowercased() == "base64", let data = Data(base64Encoded: text) { return data }
            return Data(text.utf8)
        }
        let params = pairs(postData.params)
        return params.isEmpty ? nil : Data(ExchangeBuilder.formEncoded(params).utf8)
    }
}
#endif
