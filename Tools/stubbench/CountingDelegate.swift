#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Counts a response's bytes and touches every page of them, as an app that writes the data somewhere would.
final class CountingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    var bytes = 0
    let done = DispatchSemaphore(value: 0)
    var checksum: UInt8 = 0
    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        data.withUnsafeBytes { buffer in
            var i = 0
            while i < buffer.count { checksum &+= buffer[i]; i += 4096 }
        }
        bytes += data.count
    }
    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) { done.signal() }
}
#endif
