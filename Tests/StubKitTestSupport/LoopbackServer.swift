import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP server on 127.0.0.1 that counts the connections it accepts.
///
/// It binds port 0 and is listening when `init` returns, so tests never wait for it to start. Each
/// connection gets one fixed response and is closed. Used to prove that the kill switch keeps every
/// byte off the network, and that requests pass through when it is off.
public final class LoopbackServer: @unchecked Sendable {
    public let port: UInt16
    public let responseBody: String
    private let socketFD: Int32
    private let counter: Counter
    private let state = NSLock()
    private var stopped = false

    /// What the accept loop saw, shared with it under a lock.
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var connections = 0
        var requestLines: [String] = []
    }
    private let thread: Thread

    public enum Failure: Error { case socket(String) }

    public init(responseBody: String = "from the real network") throws {
        self.responseBody = responseBody
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure.socket("socket() failed") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else {
            close(fd)
            throw Failure.socket("bind/listen failed")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.port = UInt16(bigEndian: actual.sin_port)
        self.socketFD = fd
        let body = responseBody
        let counter = Counter()
        self.counter = counter
        self.thread = Thread { LoopbackServer.acceptLoop(fd: fd, counter: counter, body: body) }
        thread.start()
    }

    deinit { stop() }

    /// `http://127.0.0.1:<port>`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Connections accepted so far.
    public var connectionCount: Int {
        counter.lock.lock(); defer { counter.lock.unlock() }
        return counter.connections
    }

    /// The first line of each request received.
    public var requestLines: [String] {
        counter.lock.lock(); defer { counter.lock.unlock() }
        return counter.requestLines
    }

    public func stop() {
        state.lock()
        let wasStopped = stopped
        stopped = true
        state.unlock()
        if !wasStopped {
            shutdown(socketFD, Int32(SHUT_RDWR))
            close(socketFD)
        }
    }

    private static func acceptLoop(fd: Int32, counter: Counter, body: String) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 { return }
            counter.lock.lock()
            counter.connections += 1
            counter.lock.unlock()
            var buffer = [UInt8](repeating: 0, count: 65536)
            var received: [UInt8] = []
            while !received.containsHeaderEnd {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                received += buffer[0..<n]
            }
            let firstLine = String(decoding: received, as: UTF8.self).split(separator: "\r\n").first.map(String.init) ?? ""
            counter.lock.lock()
            counter.requestLines.append(firstLine)
            counter.lock.unlock()
            let response = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
            _ = response.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }
}

private extension Array where Element == UInt8 {
    var containsHeaderEnd: Bool {
        guard count >= 4 else { return false }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return true }
        return false
    }
}
