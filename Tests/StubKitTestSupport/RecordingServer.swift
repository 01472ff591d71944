import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A loopback "backend" with one endpoint per kind of exchange a recording must survive: JSON, text,
/// binary, a gzip-encoded body, a login that sets a cookie and returns a token, an endpoint behind
/// `Authorization`, a counter that answers identical requests differently, a sign-up with a random
/// e-mail in its body, a search with a volatile query item, and one that blocks until released.
public final class RecordingServer: @unchecked Sendable {
    public let server: LoopbackServer
    /// Every secret the server or the app uses: none may appear in a recorded bundle.
    public static let secrets = ["sekret-token-123", "sekret-cookie-456", "sekret-bearer-789", "sekret-pass-000"]
    public static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + (0..<256).map { UInt8($0) })
    /// `{"compressed": true, "items": [1, 2, 3]}`, gzip-compressed.
    public static let gzipped = Data(base64Encoded: "H4sIAAAAAAACA6tWSs7PLShKLS5OTVGyUigpKk3VUVDKLEnNLQZyow11FIx0FIxjawHpl/SEKAAAAA==")!
    /// 2 MB in many network chunks, every byte value, so a relay that keeps only one chunk shows.
    public static let large = Data((0..<(2 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 8) })
    /// Signalled when a request for `/block` arrives; the server answers it once `release` is signalled.
    public let blocked = DispatchSemaphore(value: 0)
    public let release = DispatchSemaphore(value: 0)

    public init() throws {
        // A client killed mid-request (the interrupted-recording test) must not kill the test process
        // when the server writes its answer to the closed socket.
        signal(SIGPIPE, SIG_IGN)
        let counter = CounterBox()
        let blocked = self.blocked, release = self.release
        server = try LoopbackServer { request in
            let target = request.line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let path = String(target.split(separator: "?", maxSplits: 1).first ?? "")
            let json = ["Content-Type": "application/json"]
            switch path {
            case "/restaurants":
                return (200, json.merging(["X-Request-ID": UUID().uuidString]) { a, _ in a }, Data(#"{"restaurants":[{"id":1,"name":"Pizzeria Napoli"}]}"#.utf8))
            case "/restaurants/1/menu":
                return (200, json, Data("{\n  \"items\" : [ \"margherita\", \"marinara\" ]\n}".utf8))
            case "/hello.txt":
                return (200, ["Content-Type": "text/plain; charset=utf-8"], Data("hello, world\nsecond line\n".utf8))
            case "/logo.png":
                return (200, ["Content-Type": "image/png"], RecordingServer.png)
            case "/compressed":
                return (200, ["Content-Type": "application/json", "Content-Encoding": "gzip"], RecordingServer.gzipped)
            case "/login":
                return (200, json.merging(["Set-Cookie": "session=sekret-cookie-456; Path=/; HttpOnly"]) { a, _ in a },
                        Data(#"{"access_token":"sekret-token-123","user":"ann"}"#.utf8))
            case "/me":
                let authorized = request.headers["authorization"] == "Bearer sekret-bearer-789"
                return (authorized ? 200 : 401, json, Data(authorized ? #"{"name":"Ann"}"#.utf8 : #"{"error":"unauthorized"}"#.utf8))
            case "/counter":
                return (200, json, Data(#"{"count":\#(counter.next())}"#.utf8))
            case "/signup":
                return (201, json, Data(#"{"created":true}"#.utf8))
            case "/search":
                return (200, ["Content-Type": "text/plain"], Data("results for \(target)".utf8))
            case "/echo":
                // A careless backend that echoes the credentials in free text and in a header of its own.
                let sent = request.headers["authorization"] ?? ""
                return (200, ["Content-Type": "text/plain", "X-Echo": sent], Data("you sent: \(sent)\n".utf8))
            case "/large":
                return (200, ["Content-Type": "application/octet-stream"], RecordingServer.large)
            case "/block":
                blocked.signal()
                release.wait()
                return (200, json, Data("{}".utf8))
            default:
                return (404, ["Content-Type": "text/plain"], Data("no such endpoint".utf8))
            }
        }
    }

    public var baseURL: URL { server.baseURL }
    public func stop() { server.stop() }

    private final class CounterBox: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.lock(); defer { lock.unlock() }
            value += 1
            return value
        }
    }
}
