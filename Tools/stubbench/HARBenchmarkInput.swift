#if Tools
import Foundation

/// Writes a HAR file shaped like a long UI-test session, for timing `stubkit import`: mostly JSON GETs
/// over 2,000 URLs with query items (so many endpoints repeat and become sequences), JSON POSTs, a
/// status poll repeated throughout, and one entry in 20 a base64 binary body. Deterministic: the
/// same N gives the same bytes.
func writeBenchmarkHAR(entries count: Int, to url: URL) throws -> Int {
    let binary = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }).base64EncodedString()
    var entries: [[String: Any]] = []
    entries.reserveCapacity(count)
    for i in 0..<count {
        let started = String(format: "2024-05-01T10:%02d:%02d.%03dZ", (i / 60_000) % 60, (i / 1000) % 60, i % 1000)
        var request: [String: Any] = ["method": "GET", "httpVersion": "HTTP/1.1", "cookies": [] as [Any], "headersSize": -1, "bodySize": 0,
                                      "headers": [["name": "Accept", "value": "application/json"]], "queryString": [] as [Any]]
        var content: [String: Any] = ["mimeType": "application/json"]
        var type = "application/json"
        switch i % 20 {
        case 0:
            request["url"] = "https://cdn.bench.example/images/\(i % 500).png"
            content["text"] = binary
            content["encoding"] = "base64"
            type = "image/png"
        case 1, 2:
            request["method"] = "POST"
            request["url"] = "https://api.bench.example/orders"
            let body = #"{"restaurantId":\#(i % 300),"items":[{"id":\#(i % 97),"quantity":\#(1 + i % 3)}],"note":"entry \#(i)"}"#
            request["postData"] = ["mimeType": "application/json", "text": body]
            content["text"] = #"{"orderId":\#(9000 + i),"state":"received"}"#
        case 3:
            request["url"] = "https://api.bench.example/orders/9001/status"
            content["text"] = #"{"state":"step \#(i)"}"#
        default:
            request["url"] = "https://api.bench.example/restaurants/\(i % 2000)/menu?lang=en&page=\(i % 3)"
            content["text"] = #"{"restaurant":\#(i % 2000),"dishes":[{"id":1,"name":"Margherita","price":8.5},{"id":2,"name":"Diavola","price":9.5}],"entry":\#(i)}"#
        }
        content["size"] = (content["text"] as! String).utf8.count
        entries.append([
            "startedDateTime": started, "time": 12, "cache": [:] as [String: Any],
            "timings": ["send": 0, "wait": 12, "receive": 0],
            "request": request,
            "response": ["status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [] as [Any], "redirectURL": "",
                         "headersSize": -1, "bodySize": content["size"]!, "content": content,
                         "headers": [["name": "Content-Type", "value": type], ["name": "Cache-Control", "value": "no-store"]]],
        ])
    }
    let document: [String: Any] = ["log": ["version": "1.2", "creator": ["name": "stubbench", "version": "1"], "entries": entries]]
    let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
    try data.write(to: url)
    return data.count
}
#endif
