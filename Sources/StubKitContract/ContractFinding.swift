#if Tools
import StubKit

/// One way a request does not conform to the OpenAPI document (or a journal line that cannot be
/// read), as `stublint traffic` reports it.
public struct ContractFinding: Sendable, Hashable, CustomStringConvertible {
    private let diagnostic: Diagnostic
    /// The request, as `#4 POST https://api.example.com/v1/orders` (its number in the journal, its
    /// method and URL); `nil` for a journal line that cannot be read.
    public let entry: String?
    /// What is wrong, without the request: `the request body does not fit the schema at
    /// /restaurantId: expected integer, got string`.
    public let message: String
    /// Where in the body the problem is, as a JSON pointer (`/items/0/quantity`); `nil` when the
    /// finding is not about a value inside a body.
    public let pointer: String?

    init(_ diagnostic: Diagnostic, entry: String?) {
        self.diagnostic = diagnostic
        self.entry = entry
        let prefix = entry.map { "\($0): " } ?? ""
        message = diagnostic.message.hasPrefix(prefix) ? String(diagnostic.message.dropFirst(prefix.count)) : diagnostic.message
        pointer = diagnostic.pointer.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The stable code: SK210 (no such operation), SK211 (a parameter), SK212 (the request body),
    /// SK213 (an undocumented response status), SK214 (the response body), SK215 (not checked, a
    /// note), SK216 (a journal line that cannot be read).
    public var code: DiagnosticCode { diagnostic.code }
    /// `.error` or `.warning` for a failure; `.note` for what could not be checked.
    public var severity: Diagnostic.Severity { diagnostic.severity }
    /// How to fix it, when there is one obvious fix.
    public var fix: String? { diagnostic.fix }
    /// The request's line in the journal file.
    public var journalLine: Int? { diagnostic.position?.line }
    /// The line of the OpenAPI document the finding is about (the operation, the parameter, the schema).
    public var specLine: Int? { diagnostic.related?.position?.line }
    /// Where in the OpenAPI document, as a key path: `paths./orders.post.requestBody.content.application/json.schema`.
    public var specKeyPath: String? { diagnostic.related.map(\.keyPath) }

    /// `stublint`'s lines: `journal:line:column: error: #N METHOD URL: message [SK212]`, then, when the
    /// finding points into the OpenAPI document, `spec:line:column: note: key path: what is there`.
    public var description: String {
        guard let related = diagnostic.related else { return diagnostic.description }
        let location = related.position.map { "\(related.file):\($0.line):\($0.column)" } ?? related.file
        return diagnostic.description + "\n\(location): note: \(related.keyPath.isEmpty ? "" : related.keyPath + ": ")\(related.message)"
    }
}
#endif
