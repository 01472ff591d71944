import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The request a stubbed redirect leads to, as browsers and URLSession build it.
///
/// On Linux FoundationNetworking traps on `wasRedirectedTo` from a custom protocol, so the load follows
/// the redirect itself through the same stubs, up to ``maximumRedirects`` hops. On Apple platforms the
/// loading system is told (`wasRedirectedTo`) and starts the next load itself.
enum RedirectFollower {
    static let maximumRedirects = 10

    /// The next request, or `nil` when the response is not a redirect the stubs can follow.
    static func nextRequest(after request: URLRequest, status: Int, location: String) -> URLRequest? {
        guard let current = request.url, let target = URL(string: location, relativeTo: current)?.absoluteURL else { return nil }
        var next = URLRequest(url: target)
        next.allHTTPHeaderFields = request.allHTTPHeaderFields
        if status == 307 || status == 308 {
            // 307 and 308 keep the method and the body.
            next.httpMethod = request.httpMethod
            next.httpBody = request.httpBody
        } else {
            // 301, 302 and 303 turn into GET without a body; HEAD stays HEAD.
            next.httpMethod = request.httpMethod?.uppercased() == "HEAD" ? "HEAD" : "GET"
            for name in ["Content-Type", "Content-Length"] { next.setValue(nil, forHTTPHeaderField: name) }
        }
        return next
    }

    /// The error when a chain of redirects is too long.
    static func tooMany(last target: URL?) -> URLError {
        URLError(.httpTooManyRedirects, userInfo: [
            NSLocalizedDescriptionKey: "StubKit: more than \(maximumRedirects) redirects, last to \(target?.absoluteString ?? "?")",
        ])
    }
}
