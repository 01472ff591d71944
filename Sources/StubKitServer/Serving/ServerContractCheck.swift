#if Tools
import Foundation
import StubKit

/// Checks each exchange the server answers against the API's contract. The server knows no OpenAPI:
/// `stubkit serve --openapi` hands it the check as a closure, and the server journals each finding
/// with its request, reports it, and, when asked, refuses requests that do not conform.
package struct ServerContractCheck: Sendable {
    /// An answer the server is about to send, or relayed: what the check reads of it.
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [String: String]
        /// `nil` when the server did not hold the body (a streamed one, an event stream).
        package var body: Data?
        package var bodyTruncated: Bool
        /// Whether a real backend sent it (a pass-through) rather than a rule.
        package var isReal: Bool

        package init(status: Int, headers: [String: String], body: Data?, bodyTruncated: Bool, isReal: Bool) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyTruncated = bodyTruncated
            self.isReal = isReal
        }
    }

    /// Check the requests clients send.
    package var checksRequests: Bool
    /// Check the answers the server sends (a rule's, or a real backend's when forwarding).
    package var checksResponses: Bool
    /// Answer a request with an error finding `400` (`application/problem+json`) instead of the stubs.
    package var rejectsInvalidRequests: Bool
    /// The findings for a request (answer `nil`), or for the answer to it (request findings left out).
    /// `hostIsNamed` says whether the request named the API's host (a path `/api.example.com/…`, or a
    /// proxy request): a client that talks to the server's own address names none, so only its path counts.
    package var check: @Sendable (_ request: StubRequest, _ hostIsNamed: Bool, _ answer: Answer?) -> [JournalContractFinding]
    /// Called with one line per finding that is not a note (`stubkit serve` writes them to stderr).
    package var report: @Sendable (String) -> Void

    package init(checksRequests: Bool, checksResponses: Bool, rejectsInvalidRequests: Bool = false,
                 check: @escaping @Sendable (StubRequest, Bool, Answer?) -> [JournalContractFinding], report: @escaping @Sendable (String) -> Void) {
        self.checksRequests = checksRequests
        self.checksResponses = checksResponses
        self.rejectsInvalidRequests = rejectsInvalidRequests
        self.check = check
        self.report = report
    }

    /// Reports the findings that are not notes: `warning: POST https://api.example/v1/orders: … [SK212]`.
    func report(_ findings: [JournalContractFinding], for request: StubRequest, rejected: Bool = false) {
        // Without the query, which may carry secrets (`?api_key=`).
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        let path = components?.string ?? request.url.path
        for finding in findings where finding.severity != .note {
            let target = finding.shownURL ?? path
            let whose: String
            switch finding.subject {
            case .request: whose = rejected ? "the request violates the spec (answered 400)" : "the request violates the spec"
            case .stubResponse: whose = "the stub's response violates the spec"
            case .backendResponse: whose = "the backend's response violates the spec"
            }
            report("warning: \(request.method) \(target): \(whose): \(finding.message) [\(finding.code)]")
        }
    }

    /// Whether the request is to be refused rather than answered.
    func rejects(_ findings: [JournalContractFinding]) -> Bool {
        rejectsInvalidRequests && findings.contains { $0.subject == .request && $0.severity == .error }
    }

    /// The header that marks the server's own refusal.
    static let rejectedHeader = ("X-StubKit-Contract", "request-rejected")

    /// The RFC 9457 problem document a refused request gets.
    static func problem(_ findings: [JournalContractFinding], for request: StubRequest) -> Data {
        let errors = findings.filter { $0.severity == .error }
        var items: [[String: Any]] = []
        for finding in errors {
            var item: [String: Any] = ["code": finding.code, "message": finding.message]
            if let pointer = finding.pointer { item["pointer"] = pointer }
            if let parameter = finding.parameter { item["parameter"] = parameter }
            items.append(item)
        }
        let count = errors.count
        let document: [String: Any] = [
            // `about:blank` with the status's title, as RFC 9457 has it for a problem with no type of
            // its own; the `X-StubKit-Contract` header tells it from a 400 a stub sends.
            "type": "about:blank",
            "title": "Bad Request",
            "status": 400,
            "detail": "\(request.method) \(request.url.path) has \(count) \(count == 1 ? "violation" : "violations") of the OpenAPI document; the stubs were not asked (stubkit serve --reject-invalid-requests)",
            "errors": items,
        ]
        return (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
    }
}
#endif
