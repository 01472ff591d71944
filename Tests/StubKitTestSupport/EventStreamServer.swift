import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback backend that answers with a Server-Sent Events feed, as a real one does: the head, then
/// each piece in a write of its own with a real pause between (the server waits, the client cannot
/// tell it from a quiet feed), then either the end of the stream or nothing more until the client leaves.
public final class EventStreamServer: @unchecked Sendable {
    public enum Step: Sendable {
        /// These bytes, in one write.
        case send(String)
        /// A pause of this many seconds before the next step.
        case pause(TimeInterval)
    }

    public let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var sent: [UInt64] = []
    private var left = false
    private var requestHead = ""

    /// - Parameters:
    ///   - headers: sent as given (with `Connection: close`, no length: the stream ends when it closes).
    ///   - keepOpen: after the steps, wait for the client to leave instead of closing.
    public init(headers: [String: String] = ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"],
                steps: [Step], keepOpen: Bool = false) throws {
        signal(SIGPIPE, SIG_IGN)
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 16) == 0 else { throw LoopbackServer.Failure.socket("bind/listen failed") }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        port = UInt16(bigEndian: actual.sin_port)
        self.fd = fd
        var head = "HTTP/1.1 200 OK\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\n\r\n"
        let listener = fd, headBytes = head
        Thread { [weak self] in
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 65536), received: [UInt8] = []
            while !received.containsBlankLine {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { return }
                received += buffer[0..<n]
            }
            self?.lock.withLock { self?.requestHead = String(decoding: received, as: UTF8.self) }
            guard Self.send(headBytes, to: client) else { return }
            for step in steps {
                switch step {
                case .send(let text):
                    guard Self.send(text, to: client) else { return }
                    self?.lock.withLock { self?.sent.append(DispatchTime.now().uptimeNanoseconds) }
                case .pause(let seconds):
                    // The real backend's gap between two events, on its own thread: a fixed time is what the
                    // recording tests measure (the recorded delay), so it is a pause here, not a wait.
                    Thread.sleep(forTimeInterval: seconds)
                }
            }
            if keepOpen {
                // A live feed: nothing more until the client closes its end.
                while read(client, &buffer, buffer.count) > 0 {}
                self?.lock.withLock { self?.left = true }
            }
        }.start()
    }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }

    private static func send(_ text: String, to client: Int32) -> Bool {
        Array(text.utf8).withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(client, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// When each `send` step was written, in monotonic nanoseconds.
    public var sentAt: [UInt64] { lock.withLock { sent } }
    /// Whether the client closed its end of a `keepOpen` feed.
    public var clientLeft: Bool { lock.withLock { left } }
    /// The request's head as received.
    public var request: String { lock.withLock { requestHead } }
}

private extension Array where Element == UInt8 {
    var containsBlankLine: Bool {
        guard count >= 4 else { return false }
        return (0...(count - 4)).contains { self[$0] == 13 && self[$0 + 1] == 10 && self[$0 + 2] == 13 && self[$0 + 3] == 10 }
    }
}
