#if Tools
import Foundation
import StubKit

/// Turns a request to the local server into the request the rules see.
///
/// - `/api.example.com/v1/menu` stands for `https://api.example.com/v1/menu` when `api.example.com`
///   is a host of an active rule or a declared extra host (with ``StubServerConfiguration/MissPolicy/forward``,
///   any first component shaped like a domain name counts too, so unknown hosts can be forwarded);
/// - a proxy request (`GET http://api.example.com/v1/menu`, or a `Host` header naming a stubbed host)
///   stands for that plain-HTTP URL;
/// - anything else is a request to the server itself, matched by rules without a host.
///
/// Paths with `.` or `..` segments, NUL bytes or broken percent-encoding are refused.
struct HostRouter: Sendable {
    /// Lower-cased hosts that rules name, plus the declared ones.
    let hosts: Set<String>
    let scheme: String
    /// Whether any domain-shaped first component counts as a host.
    let anyDomain: Bool

    struct Routed {
        var url: URL
        /// The host the path named (or the proxy request), whose URLs in answers are rewritten.
        var stubbedHost: String?
    }

    struct Refusal: Error {
        let reason: String
    }

    init(bundles: [StubBundle], configuration: StubServerConfiguration) {
        var hosts = Set(configuration.extraHosts.map { $0.lowercased() })
        for bundle in bundles {
            for rule in bundle.rules {
                if let host = rule.request.host { hosts.insert(host) }
            }
        }
        self.hosts = hosts
        self.scheme = configuration.upstreamScheme
        self.anyDomain = configuration.onMiss == .forward
    }

    /// - Parameters:
    ///   - target: the request target as sent (`/path?query`, or an absolute URL from a proxy client).
    ///   - hostHeader: the `Host` header, if any.
    ///   - serverAuthority: `host:port` of this server, used when the request names no stubbed host.
    func route(target: String, hostHeader: String?, serverAuthority: String) -> Result<Routed, Refusal> {
        // A proxy client sends the absolute URL.
        if !target.hasPrefix("/"), let absolute = URL(string: target), let scheme = absolute.scheme?.lowercased(), ["http", "https"].contains(scheme),
           let host = absolute.host?.lowercased() {
            var components = URLComponents(url: absolute, resolvingAgainstBaseURL: false)
            components?.scheme = "http"
            guard let url = components?.url else { return .failure(Refusal(reason: "the request target '\(target)' is not a URL")) }
            return checked(path: absolute.path(percentEncoded: true), .init(url: url, stubbedHost: host))
        }
        guard target.hasPrefix("/") else {
            return .failure(Refusal(reason: "the request target '\(target)' is neither a path nor an absolute URL"))
        }
        let (path, query) = Self.split(target)
        if let problem = Self.problem(inPath: path) { return .failure(Refusal(reason: problem)) }
        let suffix = query.map { "?" + $0 } ?? ""

        // The Host header names a stubbed host (and not this server's own port): the server is used
        // as a plain-HTTP proxy.
        if let hostHeader, !Self.namesServer(hostHeader, serverAuthority), case let header = Self.hostOnly(hostHeader), hosts.contains(header) {
            return make("http://\(header)\(path)\(suffix)", stubbedHost: header)
        }
        // The first path component names a host.
        let components = path.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        if let first = components.first.map({ $0.lowercased() }), !first.isEmpty,
           hosts.contains(first) || (anyDomain && Self.looksLikeDomain(first)) {
            let rest = components.count > 1 ? "/" + components[1] : "/"
            return make("\(scheme)://\(first)\(rest)\(suffix)", stubbedHost: first)
        }
        return make("http://\(serverAuthority)\(path)\(suffix)", stubbedHost: nil)
    }

    private func make(_ text: String, stubbedHost: String?) -> Result<Routed, Refusal> {
        guard let url = URL(string: text) else { return .failure(Refusal(reason: "'\(text)' is not a valid URL")) }
        return .success(Routed(url: url, stubbedHost: stubbedHost))
    }

    private func checked(path: String, _ routed: Routed) -> Result<Routed, Refusal> {
        if let problem = Self.problem(inPath: path) { return .failure(Refusal(reason: problem)) }
        return .success(routed)
    }

    static func split(_ target: String) -> (path: String, query: String?) {
        // Per request: searched as bytes ('#' and '?' are ASCII, so their indices are character boundaries).
        let bytes = target.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        guard let mark = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) else { return (String(target[..<end]), nil) }
        return (String(target[..<mark]), String(target[bytes.index(after: mark)..<end]))
    }

    /// Why a path is refused: dot segments (in any encoding), NUL bytes, broken percent-encoding.
    static func problem(inPath path: String) -> String? {
        if isPlain(path) { return nil }
        for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
            // Per request: only a segment with a '%' needs decoding (Foundation's decoding and
            // `contains` on strings are costly; bytes are not).
            guard segment.utf8.contains(UInt8(ascii: "%")) else {
                if segment.utf8.contains(0) { return "the path '\(path)' contains a NUL byte" }
                if segment == "." || segment == ".." { return "the path '\(path)' contains a '\(segment)' segment" }
                continue
            }
            // Foundation's decoding directly (not PercentEncoding.decoded): a broken escape is refused here.
            guard let decoded = String(segment).removingPercentEncoding else {
                return "the path '\(path)' has a broken percent-encoding in '\(segment)'"
            }
            if decoded.contains("\0") { return "the path '\(path)' contains a NUL byte" }
            if decoded == "." || decoded == ".." { return "the path '\(path)' contains a '\(decoded)' segment" }
        }
        return nil
    }

    /// No `%`, NUL byte or dot segment: nothing to decode or refuse. One pass over the bytes, per request.
    static func isPlain(_ path: String) -> Bool {
        var length = 0
        var dots = 0
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "%"), 0:
                return false
            case UInt8(ascii: "/"):
                if length > 0, length == dots, dots <= 2 { return false }
                length = 0
                dots = 0
            case UInt8(ascii: "."):
                length += 1
                dots += 1
            default:
                length += 1
            }
        }
        return !(length > 0 && length == dots && dots <= 2)
    }

    /// Whether a `Host` header is this server's address: its port (a client reaching the server by any
    /// name, `localhost:PORT` or `10.0.2.2:PORT`, names it by its port).
    static func namesServer(_ header: String, _ serverAuthority: String) -> Bool {
        if header == serverAuthority { return true }
        guard let port = serverAuthority.split(separator: ":").last else { return false }
        return header.lowercased() == serverAuthority.lowercased() || header.hasSuffix(":" + port)
    }

    /// A request in absolute form naming this server itself (`GET http://127.0.0.1:PORT/api.example.com/v1 HTTP/1.1`,
    /// from a client that uses the server as its proxy too) in origin form (`/api.example.com/v1`); any other
    /// target as it is. Servers must accept the absolute form (RFC 9112, 3.2.2).
    static func originForm(of target: String, serverAuthority: String) -> String {
        guard !target.hasPrefix("/"), let url = URL(string: target), url.scheme?.lowercased() == "http",
              let host = url.host, let port = url.port, namesServer("\(host):\(port)", serverAuthority),
              let authorityStart = target.range(of: "://")?.upperBound else { return target }
        let rest = target[authorityStart...]
        guard let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) else { return "/" }
        return rest[end] == "/" ? String(rest[end...]) : "/" + rest[end...]
    }

    /// `api.example.com:8080` → `api.example.com`.
    static func hostOnly(_ header: String) -> String {
        let lowered = header.lowercased()
        if lowered.hasPrefix("[") { return lowered }
        return lowered.split(separator: ":", maxSplits: 1).first.map(String.init) ?? lowered
    }

    /// A dotted name of letters, digits and hyphens whose last label is alphabetic (`api.example.com`,
    /// not `v1.2` or `favicon.ico`-like file names with a known extension).
    static func looksLikeDomain(_ text: String) -> Bool {
        let labels = text.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } }),
              let last = labels.last, last.count >= 2, last.allSatisfy(\.isLetter) else { return false }
        return !fileExtensions.contains(String(last))
    }

    private static let fileExtensions: Set<String> = ["ico", "png", "jpg", "jpeg", "gif", "svg", "webp", "js", "css", "html", "htm",
                                                       "json", "xml", "txt", "map", "woff", "woff2", "ttf", "pdf", "zip"]
}
#endif
