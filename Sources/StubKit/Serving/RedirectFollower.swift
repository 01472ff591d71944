import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request a stubbed redirect leads to, as browsers and URLSession build it, and how the load goes on.
///
/// On Linux FoundationNetworking traps on `wasRedirectedTo` from a custom protocol, so the load follows
/// the redirect itself through the same stubs, up to ``maximumRedirects`` hops. On Apple platforms the
/// loading system is told (`wasRedirectedTo`) and starts the next load itself, if the delegate lets it.
enum RedirectFollower {
    static let maximumRedirects = 10

    /// What a load does with a stubbed redirect.
    enum Mode: Sendable {
        /// Follow it inside the load: match the next request against the stubs (or pass it through).
        case followHere
        /// Tell the loading system (`wasRedirectedTo`), then send the 3xx, its body and the end like
        /// any response: a delegate that declines the redirect gets that 3xx as the task's answer,
        /// and one that accepts it makes the loading system drop this load and start the next.
        case tellLoadingSystem

        /// What the platform's loading system supports.
        static var platform: Mode {
            #if canImport(FoundationNetworking)
            return .followHere
            #else
            return .tellLoadingSystem
            #endif
        }
    }

    /// Headers that carry credentials; they never go to another origin, as browsers, curl and
    /// URLSession drop them on a cross-origin redirect. Headers whose name the recorder would redact
    /// (`X-Api-Key`, `X-Auth-Token`, `X-Amz-Security-Token`, …) are dropped too: a secret sent to one
    /// origin is never handed to another.
    static let credentialHeaders = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The recorder's default judgement of header names, built once rather than per header.
    private static let secretNames = Redactor()

    /// Whether a header of this name stays behind on a cross-origin redirect.
    static func isCredential(_ name: String) -> Bool {
        credentialHeaders.contains { $0.caseInsensitiveCompare(name) == .orderedSame } || secretNames.isSecret(name, in: .parameter)
    }

    /// The next request, or `nil` when the response is not a redirect the stubs can follow.
    static func nextRequest(after request: URLRequest, status: Int, location: String) -> URLRequest? {
        guard let current = request.url, let target = URL(string: location, relativeTo: current)?.absoluteURL else { return nil }
        var next = URLRequest(url: target)
        next.allHTTPHeaderFields = request.allHTTPHeaderFields
        if !isSameOrigin(current, target) {
            for name in (request.allHTTPHeaderFields ?? [:]).keys where isCredential(name) { next.setValue(nil, forHTTPHeaderField: name) }
        }
        if keepsBody(status: status) {
            // 307 and 308 keep the method and the body. Only `httpBody` is copied: a body still in its
            // stream is the load's to read (see StubLoad's `follow`).
            next.httpMethod = request.httpMethod
            next.httpBody = request.httpBody
        } else {
            // 301, 302 and 303 turn into GET without a body; HEAD stays HEAD.
            next.httpMethod = request.httpMethod?.uppercased() == "HEAD" ? "HEAD" : "GET"
            for name in ["Content-Type", "Content-Length"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return next
    }

    /// Whether a redirect of this status keeps the method and the body (307, 308).
    static func keepsBody(status: Int) -> Bool {
        status == 307 || status == 308
    }

    /// Whether two URLs share scheme, host and port (a missing port is the scheme's default).
    static func isSameOrigin(_ a: URL, _ b: URL) -> Bool {
        let schemeA = a.scheme?.lowercased(), schemeB = b.scheme?.lowercased()
        return schemeA == schemeB && a.host?.lowercased() == b.host?.lowercased() && port(of: a) == port(of: b)
    }

    private static func port(of url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// The error when a chain of redirects is too long.
    static func tooMany(last target: URL?) -> URLError {
        URLError(.httpTooManyRedirects, userInfo: [
            NSLocalizedDescriptionKey: "StubKit: more than \(maximumRedirects) redirects, last to \(target?.absoluteString ?? "?")",
        ])
    }
}
