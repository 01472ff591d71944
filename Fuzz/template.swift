// libFuzzer target: response templates. Input: template text NUL request body NUL a value (used as the
// query item `q`, the header `X-V` and the path parameter `id`). Checked beyond "no crash": a JSON
// template whose text is valid JSON (placeholders inside strings) renders valid JSON whatever the
// request holds, and a header value never holds a line break.
import Foundation

func fuzzTemplate(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let parts = UnsafeBufferPointer(start: start, count: count).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
    let text = String(decoding: parts[0], as: UTF8.self)
    let body = parts.count > 1 ? Data(parts[1]) : nil
    let value = parts.count > 2 ? String(decoding: parts[2], as: UTF8.self) : ""
    var components = URLComponents(string: "https://h/items/1")!
    components.queryItems = [URLQueryItem(name: "q", value: value)]
    guard let url = components.url else { return 0 }
    let request = StubRequest(method: "POST", url: url, headers: ["X-V": value], body: body)
    func context() -> ResponseTemplate.Context {
        ResponseTemplate.Context(request: request, parameters: ["id": value], now: Date(timeIntervalSince1970: 0), hit: 1)
    }
    if let template = try? ResponseTemplate(parsing: text, pathParameters: ["id"], syntax: .json) {
        var c = context()
        let output = template.render(&c)
        if (try? JSONSourceParser().parse(Data(text.utf8))) != nil, !text.isEmpty {
            precondition((try? JSONSourceParser().parse(Data(output.utf8))) != nil,
                         "valid JSON template \(text.debugDescription) rendered invalid JSON \(output.debugDescription)")
        }
    }
    if let template = try? ResponseTemplate(parsing: text, pathParameters: ["id"], syntax: .text) {
        var c = context()
        let header = template.renderHeaderValue(&c)
        precondition(!header.unicodeScalars.contains { $0 == "\r" || $0 == "\n" }, "header value with a line break: \(header.debugDescription)")
    }
    return 0
}
