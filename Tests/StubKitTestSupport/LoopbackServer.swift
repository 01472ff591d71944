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
    /// The exact bytes sent after the headers (`responseBody` as UTF-8 unless given as data).
    public let responseData: Data
    private let socketFD: Int32
    private let counter: Counter
    private let state = NSLock()
    private var stopped = false

    /// What the accept loop saw, shared with it under a lock.
    private final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var connections = 0
        var requestLines: [String] = []
        var requests: [ReceivedRequest] = []
    }

    /// One request as the server read it.
    public struct ReceivedRequest: Sendable {
        public var line: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: Data
    }
    private let thread: Thread

    public enum Failure: Error { case socket(String) }

    public convenience init(responseBody: String = "from the real network") throws {
        try self.init(status: 200, headers: ["Content-Type": "text/plain"], body: Data(responseBody.utf8))
    }

    /// A server that answers every request with this status, these headers and these exact bytes.
    public convenience init(status: Int, headers: [String: String], body: Data) throws {
        try self.init(fixedBody: body) { _ in (status, headers, body) }
    }

    /// What a routing server answers one request with: status, headers (sent as given, plus
    /// `Content-Length` and `Connection: close`), and the exact body bytes.
    public typealias Responder = @Sendable (ReceivedRequest) -> (status: Int, headers: [String: String], body: Data)

    /// A server that answers each request with what `respond` returns for it (per path, counters, …).
    public convenience init(respond: @escaping Responder) throws {
        try self.init(fixedBody: Data(), respond: respond)
    }

    private init(fixedBody body: Data, respond: @escaping Responder) throws {
        self.responseBody = String(decoding: body, as: UTF8.self)
        self.responseData = body
        let response: @Sendable (ReceivedRequest) -> Data = { request in
            let (status, headers, body) = respond(request)
            var head = "HTTP/1.1 \(status) Stubbed\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
            head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            return Data(head.utf8) + body
        }
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
        let counter = Counter()
        self.counter = counter
        self.thread = Thread { LoopbackServer.acceptLoop(fd: fd, counter: counter, response: response) }
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

    /// Every request received, with headers and body.
    public var requests: [ReceivedRequest] {
        counter.lock.lock(); defer { counter.lock.unlock() }
        return counter.requests
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
        // Shut down only: the accept loop closes the descriptor when it ends. Closing it here would let
        // the next server get the same descriptor number while this loop may still call accept() on
        // it, and answer that server's requests with this one's responses.
        if !wasStopped { shutdown(socketFD, Int32(SHUT_RDWR)) }
    }

    private static func acceptLoop(fd: Int32, counter: Counter, response respond: @Sendable (ReceivedRequest) -> Data) {
        while true {
            let client = accept(fd, nil, nil)
            if client < 0 {
                close(fd)
                return
            }
            counter.lock.lock()
            counter.connections += 1
            counter.lock.unlock()
            var buffer = [UInt8](repeating: 0, count: 65536)
            var received: [UInt8] = []
            var headerEnd: Int? = nil
            while headerEnd == nil {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                received += buffer[0..<n]
                headerEnd = received.headerEnd
            }
            let head = String(decoding: received[..<(headerEnd ?? received.count)], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            var headers: [String: String] = [:]
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            // Read the body the request announces.
            let length = Int(headers["content-length"] ?? "") ?? 0
            var body = headerEnd.map { Array(received[($0 + 4)...]) } ?? []
            while body.count < length {
                let n = read(client, &buffer, buffer.count)
                if n <= 0 { break }
                body += buffer[0..<n]
            }
            let request = ReceivedRequest(line: lines.first ?? "", headers: headers, body: Data(body))
            counter.lock.lock()
            counter.requestLines.append(lines.first ?? "")
            counter.requests.append(request)
            counter.lock.unlock()
            respond(request).withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(client, raw.baseAddress! + offset, raw.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(client)
        }
    }
}

private extension Array where Element == UInt8 {
    /// The index of the blank line's CR LF CR LF.
    var headerEnd: Int? {
        guard count >= 4 else { return nil }
        for i in 0...(count - 4) where self[i] == 13 && self[i + 1] == 10 && self[i + 2] == 13 && self[i + 3] == 10 { return i }
        return nil
    }
}
