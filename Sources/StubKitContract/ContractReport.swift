#if Tools
import StubKit

/// What ``ContractCheck`` found in one journal: the requests that do not conform to the OpenAPI
/// document, each with its findings.
///
/// Its ``description`` lists every failure the way `stublint traffic` prints it, in the journal's
/// order, under a line that counts them; notes (what could not be checked, such as a body the journal
/// cut off) are kept in ``notes`` and never fail.
public struct ContractReport: Sendable, CustomStringConvertible {
    /// A request that does not conform.
    public struct Request: Sendable, Hashable {
        /// The request, as `#4 POST https://api.example.com/v1/orders`.
        public let entry: String
        /// Its line in the journal file.
        public let journalLine: Int?
        /// Why it does not conform (errors and warnings), in the order request line, parameters,
        /// body, response.
        public let findings: [ContractFinding]
    }

    /// The journal checked (its path).
    public let journal: String
    /// The OpenAPI document it was checked against (its path).
    public let spec: String
    /// How many requests the journal holds.
    public let requestCount: Int
    /// The requests with at least one error or warning, in the journal's order.
    public let nonConformingRequests: [Request]
    /// Journal lines that could not be read (SK216): each one a failure, as the request it held went unchecked.
    public let unreadableLines: [ContractFinding]
    /// What could not be checked (SK215): never a failure.
    public let notes: [ContractFinding]

    /// Whether every request conforms and every line could be read.
    public var isConforming: Bool { nonConformingRequests.isEmpty && unreadableLines.isEmpty }

    /// Every failure (the requests' findings and the unreadable lines), in the journal's order.
    public var findings: [ContractFinding] {
        let all = nonConformingRequests.flatMap(\.findings) + unreadableLines
        return all.enumerated().sorted { a, b in
            let (l, r) = (a.element.journalLine ?? 0, b.element.journalLine ?? 0)
            return l != r ? l < r : a.offset < b.offset
        }.map(\.element)
    }

    /// A line that sums up, then each failure as `stublint traffic` prints it:
    ///
    /// ```
    /// /tmp/app.jsonl: 2 of 7 requests do not conform to api.yaml (3 findings)
    /// /tmp/app.jsonl:4:1: error: #4 POST https://api.example.com/v1/orders: the request body does not fit the schema at /restaurantId: expected integer, got string [SK212]
    /// api.yaml:81:15: note: paths./orders.post.requestBody.content.application/json.schema: the documented schema (application/json): POST /orders
    /// …
    /// ```
    public var description: String {
        func count(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        guard !isConforming else {
            switch requestCount {
            case 0: return "\(journal): no requests to check against \(spec)"
            case 1: return "\(journal): the request conforms to \(spec)"
            default: return "\(journal): all \(requestCount) requests conform to \(spec)"
            }
        }
        var head = "\(journal): \(nonConformingRequests.count) of \(count(requestCount, "request")) \(nonConformingRequests.count == 1 ? "does" : "do") not conform to \(spec)"
        if !unreadableLines.isEmpty { head += ", \(count(unreadableLines.count, "line")) cannot be read" }
        head += " (\(count(findings.count, "finding")))"
        return ([head] + findings.map(\.description)).joined(separator: "\n")
    }
}
#endif
