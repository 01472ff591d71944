import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few BSD socket calls runtime control needs, on 127.0.0.1 only: the runner listens, the app
/// connects out. Blocking descriptors, closed on exec, and writes that never raise SIGPIPE. Every
/// decision (what to send, whom to trust) is made by the callers; this type only moves bytes.
package struct LoopbackSocket: Sendable {
    package let descriptor: Int32

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package var description: String

        init(_ call: String, _ code: Int32 = errno) {
            description = "\(call) failed: \(String(cString: strerror(code)))"
        }

        init(description: String) {
            self.description = description
        }
    }

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    private static func make() throws(Failure) -> LoopbackSocket {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        guard fd >= 0 else { throw Failure("socket") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure("socket") }
        #endif
        return LoopbackSocket(descriptor: fd)
    }

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        #if canImport(Darwin)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
        return address
    }

    /// A socket listening on 127.0.0.1 at a port the kernel picks, and that port.
    package static func listen() throws(Failure) -> (socket: LoopbackSocket, port: UInt16) {
        let socket = try make()
        var address = loopbackAddress(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { let failure = Failure("bind"); socket.close(); throw failure }
        guard systemListen(socket.descriptor, 8) == 0 else { let failure = Failure("listen"); socket.close(); throw failure }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket.descriptor, $0, &length) }
        }
        guard named == 0 else { let failure = Failure("getsockname"); socket.close(); throw failure }
        return (socket, UInt16(bigEndian: address.sin_port))
    }

    /// A connection to 127.0.0.1:`port`.
    package static func connect(port: UInt16) throws(Failure) -> LoopbackSocket {
        let socket = try make()
        var address = loopbackAddress(port: port)
        while true {
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { systemConnect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if result == 0 { return socket }
            if errno == EINTR { continue }
            let failure = Failure("connect to 127.0.0.1:\(port)")
            socket.close()
            throw failure
        }
    }

    /// The next connection on a listening socket; `nil` when none is waiting (the descriptor is
    /// non-blocking then) or accepting failed.
    ///
    /// The connection is blocking and closed on exec whatever the listener is: BSD kernels (Darwin)
    /// give an accepted socket the listener's `O_NONBLOCK`, Linux does not, and a reader that expects
    /// to block would otherwise see "no data yet" where it waits for a hello. `inherited` runs on the
    /// raw descriptor before that is settled, so a test can play the Darwin kernel here.
    package func accept(inherited: (@Sendable (Int32) -> Void)? = nil) -> LoopbackSocket? {
        let fd = systemAccept(descriptor, nil, nil)
        guard fd >= 0 else { return nil }
        // Glibc's module does not export accept4, so both set close-on-exec just after accepting.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        #if canImport(Darwin)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        inherited?(fd)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return LoopbackSocket(descriptor: fd)
    }

    /// Makes `accept` return at once when no connection waits (for a dispatch read source).
    package func setNonBlocking() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Ends blocking reads after `seconds` without data (the read then reports the end).
    package func setReceiveTimeout(_ seconds: Int) {
        var limit = timeval(tv_sec: seconds, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `data`; `false` when the peer is gone.
    @discardableResult
    package func send(_ data: Data) -> Bool {
        #if canImport(Darwin)
        let flags: Int32 = 0
        #else
        let flags = Int32(MSG_NOSIGNAL)
        #endif
        return data.withUnsafeBytes { buffer -> Bool in
            var offset = 0
            while offset < buffer.count {
                let written = systemSend(descriptor, buffer.baseAddress! + offset, buffer.count - offset, flags)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    /// How a bounded write ended.
    package enum SendOutcome: Sendable, Equatable {
        case sent
        /// The peer stopped reading: the kernel's buffers stayed full until the time limit.
        case timedOut
        case failed(String)
    }

    /// Writes all of `data` without ever blocking longer than `seconds`: a peer that stops reading
    /// (suspended, stopped in a debugger) costs the time limit, not the calling thread.
    package func send(_ data: Data, within seconds: TimeInterval) -> SendOutcome {
        #if canImport(Darwin)
        let flags = Int32(MSG_DONTWAIT)
        #else
        let flags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
        #endif
        let deadline = Date().addingTimeInterval(seconds)
        return data.withUnsafeBytes { buffer -> SendOutcome in
            var offset = 0
            while offset < buffer.count {
                let written = systemSend(descriptor, buffer.baseAddress! + offset, buffer.count - offset, flags)
                if written >= 0 { offset += written; continue }
                let code = errno
                if code == EINTR { continue }
                guard code == EAGAIN || code == EWOULDBLOCK else { return .failed(Failure("send", code).description) }
                let left = deadline.timeIntervalSinceNow
                guard left > 0, wait(for: Int16(POLLOUT), milliseconds: Int32(min(left * 1000, 1_000_000)) + 1) else { return .timedOut }
            }
            return .sent
        }
    }

    /// Blocks until bytes arrive; empty at the end of the connection.
    ///
    /// - Throws: ``Failure`` when reading fails or the receive time-out passes without data. On a
    ///   descriptor that is non-blocking after all, "no data yet" waits for data rather than ending.
    package func receive() throws(Failure) -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 { return Data(buffer[0..<count]) }
            if count == 0 { return Data() }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK {
                if fcntl(descriptor, F_GETFL) & O_NONBLOCK != 0 {
                    _ = wait(for: Int16(POLLIN), milliseconds: -1)
                    continue
                }
                // A blocking read reports EAGAIN only when SO_RCVTIMEO passed.
                throw Failure(description: "no data within the time limit")
            }
            throw Failure("recv", code)
        }
    }

    /// Waits until `events` (`POLLIN`, `POLLOUT`) can proceed or `milliseconds` pass (-1: no limit);
    /// `false` when the time passed.
    package func wait(for events: Int16, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: events, revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result < 0 && errno == EINTR { continue }
            return result != 0
        }
    }

    /// Ends the connection both ways: a read blocked on it returns.
    package func shutdown() {
        _ = systemShutdown(descriptor, Int32(SHUT_RDWR))
    }

    package func close() {
        _ = systemClose(descriptor)
    }
}

// The module-level functions by names that the type's own methods do not hide.
private func systemListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }
private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 { connect(fd, address, length) }
private func systemAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: UnsafeMutablePointer<socklen_t>?) -> Int32 { accept(fd, address, length) }
private func systemSend(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int { send(fd, bytes, count, flags) }
private func systemShutdown(_ fd: Int32, _ how: Int32) -> Int32 { shutdown(fd, how) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
