import Foundation
import Testing
@testable import StubKit

/// The one HAR model both writers and the importer use: what it writes, and how leniently it reads.
struct HARTests {
    @Test("a body is written as UTF-8 text, or base64 with its encoding named, and reads back the same")
    func bodies() throws {
        let binary = Data([0xFF, 0x00, 0xFE])
        let entry = HAR.Entry(startedDateTime: "1970-01-01T00:00:00.000Z", time: 1.5,
                              request: HAR.Request(method: "GET", url: "https://api.example.test/a", headers: [], queryString: [], bodySize: 0),
                              response: HAR.Response(status: 200, statusText: "OK", headers: [HAR.NameValue(name: "A", value: "1")],
                                                     content: HAR.Content(size: 3, mimeType: "image/png", body: binary), redirectURL: "", bodySize: 3))
        let data = HAR(log: HAR.Log(creator: HAR.Creator(name: "StubKit", version: "1"), entries: [entry])).encoded()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains(#""encoding" : "base64""#), "\(text)")
        #expect(text.contains(#""text" : "/wD+""#), "\(text)")
        #expect(text.contains(#""cache" : {"#) && text.contains(#""pages" : ["#) && text.contains(#""headersSize" : -1"#), "\(text)")
        let read = try JSONDecoder().decode(HAR.self, from: data)
        let content = try #require(read.log.entries.first?.response?.content)
        #expect(content.encoding == "base64" && content.text.flatMap { Data(base64Encoded: $0) } == binary)
        #expect(read.log.entries.first?.response?.status?.value == 200)
        let plain = HAR.Content(size: 2, mimeType: "text/plain", body: Data("hi".utf8))
        #expect(plain.text == "hi" && plain.encoding == nil)
        // A request body follows the same rule, so a binary upload reads back as the bytes sent.
        let upload = HAR.PostData(mimeType: "application/octet-stream", body: binary)
        #expect(upload.encoding == "base64" && upload.text.flatMap { Data(base64Encoded: $0) } == binary)
        let form = HAR.PostData(mimeType: "text/plain", body: Data("a=1".utf8))
        #expect(form.text == "a=1" && form.encoding == nil)
    }

    @Test("tools' variants read as StubKit's: numeric strings, list and number header values")
    func lenient() throws {
        let json = #"{"log":{"entries":[{"request":{"method":"GET","url":"https://a.test/"},"response":{"status":"201","headers":[{"name":"Set-Cookie","value":["a=1","b=2"]},{"name":"X-N","value":3}],"content":{"size":2.0,"text":"ok","comment":{"by":"a tool"}}}}]}}"#
        let read = try JSONDecoder().decode(HAR.self, from: Data(json.utf8))
        let response = try #require(read.log.entries.first?.response)
        #expect(response.status?.value == 201)
        #expect(response.headers?.map(\.value) == ["a=1, b=2", "3"])
        #expect(response.content?.size?.value == 2)
        // A comment that is not text (the importer never reads it) must not fail the file.
        #expect(response.content?.text == "ok" && response.content?.comment == nil)
    }
}
