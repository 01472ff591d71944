import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback server that accepts connections and never answers: for requests that must be cancelled
/// while they wait. `onConnection` runs when one arrives, which is the event tests wait on.
public final class SilentServer: @unchecked Sendable {
    public let port: UInt16
    private let fd: Int32
    private let lock = NSLock()
    private var handler: (@Sendable () -> Void)?
    private var clients: [Int32] = []

    public var onConnection: (@Sendable () -> Void)? {
        get { lock.withLock { handler } }
        set { lock.withLock { handler = newValue } }
    }

    public init() throws {
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
        let listener = fd
        Thread { [weak self] in
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                guard let self else { close(client); return }
                let handler = self.lock.withLock { () -> (@Sendable () -> Void)? in
                    self.clients.append(client)
                    return self.handler
                }
                handler?()
            }
        }.start()
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit {
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
        for client in clients { close(client) }
    }
}
