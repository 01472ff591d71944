import Foundation

/// Where the app's WebSockets go under test (`STUB_WEBSOCKET_SERVER`): to the local stub server the
/// test runner started, because no URL protocol can answer a WebSocket in-process.
///
/// Neither Apple's URL loading system nor FoundationNetworking hands a `URLSessionWebSocketTask`'s
/// frames to a custom `URLProtocol`: the protocol client has no frame calls, and FoundationNetworking's
/// task sends and receives only through its own built-in WebSocket protocol. So ``StubURLProtocol``
/// never takes a WebSocket request (`ws`, `wss`, or an upgrade), and the app asks
/// ``LaunchOverrides/webSocketURL(for:)`` for the URL to open instead:
///
/// - `wss://chat.example.com/orders/1/chat?x=1` with `STUB_WEBSOCKET_SERVER=http://127.0.0.1:8080`
///   becomes `ws://127.0.0.1:8080/chat.example.com/orders/1/chat?x=1`: the server's host-prefixed form,
///   which its rules for `chat.example.com` answer;
/// - with the kill switch on and no server, ``refusedURL`` (`ws://stubkit-refused.invalid/`): a name that
///   never resolves (RFC 6761), so the socket fails instead of reaching the real host. It is one constant
///   URL, so nothing of the original (user and password, host, path, query tokens) reaches a resolver
///   that answers `.invalid` names anyway;
/// - with a server named and a URL that cannot be rebuilt on it, ``refusedURL`` too: never the original;
/// - otherwise (a production launch) the URL unchanged.
package struct WebSocketRoute: Sendable, Hashable {
    /// `STUB_WEBSOCKET_SERVER=<http(s) or ws(s) URL of the local stub server>`.
    package static let serverVariable = "STUB_WEBSOCKET_SERVER"

    /// Where a socket goes when it must not reach its real host: a name that never resolves, carrying
    /// nothing of the app's URL.
    package static let refusedURL = URL(string: "ws://stubkit-refused.invalid/")!

    /// What a path segment holds as it is (RFC 3986 `pchar` without `%`).
    private static let segmentCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@")

    /// The local server's base URL, when the launch names one.
    package var server: URL?
    /// Whether the launch turned the kill switch on.
    package var killSwitch: Bool

    package init(server: URL?, killSwitch: Bool) {
        self.server = server
        self.killSwitch = killSwitch
    }

    /// `STUB_WEBSOCKET_SERVER_ALLOW_REMOTE=1`, in the environment only: lets the server be another
    /// machine (a device reaching the Mac's LAN address). Without it the server must be loopback, because
    /// a launch argument, which anyone starting the app can pass, would otherwise send the app's sockets
    /// with their cookies, `Authorization` and query tokens to any host, in cleartext with an `http` server.
    package static let allowRemoteVariable = "STUB_WEBSOCKET_SERVER_ALLOW_REMOTE"

    /// The server named by a launch setting's text: a URL with a scheme and a loopback host (any host
    /// when `allowRemote`), or the problem, naming the variable and the value.
    package static func parseServer(_ text: String, allowRemote: Bool = false) -> Result<URL, Problem> {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              ["http", "https", "ws", "wss"].contains(scheme), let host = components.host, !host.isEmpty,
              let url = components.url else {
            return .failure(Problem(description: "\(serverVariable)='\(text)' is not the URL of a local stub server; write http://127.0.0.1:PORT (what `stubkit serve` prints)"))
        }
        guard allowRemote || isLoopback(host) else {
            return .failure(Problem(description: "\(serverVariable)='\(text)' is not a loopback address (127.0.0.1, ::1, localhost); set the environment variable \(allowRemoteVariable)=1 to send the app's WebSockets to another machine"))
        }
        return .success(url)
    }

    /// Whether `host` (as `URLComponents` gives it, bracketed or not) is this machine: 127.0.0.0/8, ::1, localhost.
    package static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Why a launch setting names no server.
    package struct Problem: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// The URL to open for `url`. Only `ws`, `wss`, `http` and `https` URLs with a host are routed; any
    /// other URL is returned as it is.
    package func url(for url: URL) -> URL {
        guard let original = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = original.scheme?.lowercased(), ["ws", "wss", "http", "https"].contains(scheme),
              let host = original.host, !host.isEmpty else { return url }
        if let server, var routed = URLComponents(url: server, resolvingAgainstBaseURL: false) {
            let secure = ["https", "wss"].contains(routed.scheme?.lowercased() ?? "")
            routed.scheme = secure ? "wss" : "ws"
            let base = routed.percentEncodedPath.hasSuffix("/") ? String(routed.percentEncodedPath.dropLast()) : routed.percentEncodedPath
            // The server's host-prefixed form names a non-default port as part of the host segment.
            let segment = host.lowercased() + (original.port.map { ":\($0)" } ?? "")
            // A host a path cannot hold as it is (an IPv6 literal's brackets) has no host-prefixed form;
            // setting such a path would trap, and the original URL would reach the real host.
            guard segment.unicodeScalars.allSatisfy(Self.segmentCharacters.contains) else { return Self.refusedURL }
            routed.percentEncodedPath = base + "/" + segment + (original.percentEncodedPath.isEmpty ? "/" : original.percentEncodedPath)
            routed.percentEncodedQuery = original.percentEncodedQuery
            routed.fragment = nil
            // Fail closed: the original URL here would reach the real host under test.
            return routed.url ?? Self.refusedURL
        }
        return killSwitch ? Self.refusedURL : url
    }
}
