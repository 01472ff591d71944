import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A blocking TCP connection to 127.0.0.1 that sends exactly the bytes given, for what no HTTP client
/// sends: malformed requests, half-sent heads, a response read while the server shuts down.
///
/// Reads wait on the socket (data or the peer closing it); `limit` only keeps a broken server from
/// hanging the test.
public final class RawConnection: @unchecked Sendable {
    private var fd: Int32
    private var received = Data()
    /// Whether the peer closed (or reset) the connection.
    public private(set) var isClosedByPeer = false

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameter receiveBuffer: `SO_RCVBUF` set before connecting, for a client that reads slowly or
    ///   not at all (a small buffer fills, and the server's writes then wait).
    public init(port: Int, limit: TimeInterval = 30, receiveBuffer: Int32? = nil) throws {
        #if canImport(Glibc)
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(description: "socket() failed") }
        var timeout = timeval(tv_sec: Int(limit), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "cannot connect to 127.0.0.1:\(port) (errno \(errno))")
        }
    }

    deinit { disconnect() }

    /// Closes the connection, as a client that leaves does.
    public func disconnect() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    public func send(_ text: String) throws { try send(Data(text.utf8)) }

    public func send(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = sendBytes(fd, raw.baseAddress! + offset, raw.count - offset)
                guard n > 0 else { throw Failure(description: "send failed (errno \(errno))") }
                offset += n
            }
        }
    }

    /// Everything until the peer closes the connection.
    public func readToEnd() throws -> Data {
        while !isClosedByPeer { try readSome() }
        return received
    }

    /// Reads until `received` satisfies `done`; returns all bytes received so far.
    @discardableResult
    public func read(until done: (Data) -> Bool) throws -> Data {
        while !done(received) {
            guard !isClosedByPeer else { throw Failure(description: "closed after \(received.count) bytes: \(String(decoding: received, as: UTF8.self))") }
            try readSome()
        }
        return received
    }

    /// Reads a response head (through the blank line).
    public func readHead() throws -> String {
        let data = try read { $0.range(of: Data("\r\n\r\n".utf8)) != nil }
        let end = data.range(of: Data("\r\n\r\n".utf8))!.lowerBound
        return String(decoding: data[..<end], as: UTF8.self)
    }

    /// Everything received so far.
    public var bytesReceived: Data { received }

    private func readSome() throws {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n > 0 {
            received.append(contentsOf: buffer[0..<n])
        } else if n == 0 || errno == ECONNRESET {
            isClosedByPeer = true
        } else {
            throw Failure(description: "no bytes within the read limit (errno \(errno)); received: \(String(decoding: received, as: UTF8.self))")
        }
    }
}

/// `send(2)` without SIGPIPE (outside the class, whose `send` methods would shadow it).
private func sendBytes(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return send(fd, bytes, count, Int32(MSG_NOSIGNAL))
    #else
    return send(fd, bytes, count, 0)
    #endif
}
