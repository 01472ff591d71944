import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A matched rule's answer made ready to send, the same way for every transport (``StubURLProtocol``
/// and the local server): the simulated network error, or the status, the headers with templates
/// filled in and `Content-Length` set to the body's real length, and a reader for the body.
package struct PreparedResponse {
    package var status: Int
    package var headers: [String: String]
    package var reader: ResponseBodyReader
    /// The body rendered from a template, when the rule has one.
    package var rendered: Data?
    /// The events to send instead of a body, when the rule answers with an event stream: the body is
    /// then empty and the head has no `Content-Length` (the stream ends when its last event is sent).
    package var events: PreparedEvents?

    /// Fills in the rule's templates for this request; everything else was prepared at load time.
    ///
    /// - Returns: the response, or the error the client sees: the rule's simulated network error, or
    ///   `cannotOpenFile` when the response file went missing since the bundle was loaded.
    package static func render(_ match: StubMatch, for request: StubRequest, now: Date) -> Result<PreparedResponse, URLError> {
        let response = match.response
        let url = request.url
        if let error = response.error {
            return .failure(URLError(error.code, userInfo: [
                NSLocalizedDescriptionKey: "StubKit simulated \(error.rawValue) for \(request.method) \(url.absoluteString) (rule \(match.rule.displayName) in \(match.bundle))",
                NSURLErrorFailingURLErrorKey: url,
            ]))
        }
        var headers = response.headerFields
        var rendered: Data? = nil
        if let templates = response.template {
            var context = ResponseTemplate.Context(request: request, parameters: match.parameters, now: now, hit: match.hit)
            for (name, template) in templates.headers { headers[name] = template.renderHeaderValue(&context) }
            if let body = templates.body { rendered = Data(body.render(&context).utf8) }
        }
        if let stream = response.events {
            headers = headers.filter { $0.key.lowercased() != "content-length" }
            return .success(PreparedResponse(status: response.status, headers: headers, reader: ResponseBodyReader(.empty), rendered: nil,
                                             events: PreparedEvents(stream, match: match, request: request)))
        }
        let reader = rendered.map { ResponseBodyReader(.inline($0)) } ?? ResponseBodyReader(response.body)
        if let problem = reader.problem {
            return .failure(unreadable(match, url: url, problem))
        }
        let length = String(reader.length)
        if headers["Content-Length"] != length { headers["Content-Length"] = length }
        return .success(PreparedResponse(status: response.status, headers: headers, reader: reader, rendered: rendered))
    }

    /// The error for a response file that cannot be read any more.
    package static func unreadable(_ match: StubMatch, url: URL, _ error: any Error) -> URLError {
        URLError(.cannotOpenFile, userInfo: [
            NSLocalizedDescriptionKey: "StubKit could not read the response file for rule \(match.rule.displayName): \(error.localizedDescription)",
            NSURLErrorFailingURLErrorKey: url,
        ])
    }
}
