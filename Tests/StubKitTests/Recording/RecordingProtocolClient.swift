import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import StubKit

/// A client that keeps every call (and the request of a redirect), as the loading system would get them.
final class RecordingProtocolClient: NSObject, URLProtocolClient, @unchecked Sendable {
    let calls = Locked([String]())
    let redirectedTo = Locked<URLRequest?>(nil)
    let status = Locked<Int?>(nil)
    let body = Locked(Data())
    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        redirectedTo.withLock { $0 = request }
        calls.withLock { $0.append("redirect") }
    }
    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) { calls.withLock { $0.append("cached") } }
    func urlProtocol(_ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy) {
        status.withLock { $0 = (response as? HTTPURLResponse)?.statusCode }
        calls.withLock { $0.append("response") }
    }
    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) {
        body.withLock { $0.append(data) }
        calls.withLock { $0.append("data") }
    }
    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { calls.withLock { $0.append("finish") } }
    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) { calls.withLock { $0.append("fail") } }
    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) { calls.withLock { $0.append("challenge") } }
    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) { calls.withLock { $0.append("cancel") } }
}
