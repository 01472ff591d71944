#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The end-to-end floor: a URLProtocol that answers every request with one constant response.
final class ConstantProtocol: URLProtocol {
    override class func canInit(with request: URLRequest) -> Bool { true }
    override class func canonicalRequest(for request: URLRequest) -> URLRequest { request }
    override func startLoading() {
        // The same response the stub rule gives (body and headers), so only the lookup differs.
        let body = Data(#"{"id": 500}"#.utf8)
        let response = HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: "HTTP/1.1",
                                       headerFields: ["Content-Length": String(body.count), "X-Rule": "500"])!
        client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
        client?.urlProtocol(self, didLoad: body)
        client?.urlProtocolDidFinishLoading(self)
    }
    override func stopLoading() {}
}

extension URLSession {
    /// A session whose every request ConstantProtocol answers.
    static func constant(cache: Bool = true) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [ConstantProtocol.self]
        if !cache { configuration.urlCache = nil }
        return URLSession(configuration: configuration)
    }
}
#endif
