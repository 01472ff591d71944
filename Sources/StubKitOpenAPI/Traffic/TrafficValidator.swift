#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Checks recorded traffic against an OpenAPI document: each request's operation (method, path,
/// server), parameters and body, and, for responses a real backend sent, the status and body.
///
/// Each diagnostic (SK210-SK216) is located at the entry in its input (the file, the line when known,
/// the entry's key path), names the entry (`#3 POST https://…`), gives a JSON pointer into the body
/// where one applies, and points at the spec's line as the related location. What cannot be checked
/// (a body cut off by the journal, a body of a type the spec gives no schema for) is a note, never a
/// finding.
package struct TrafficValidator: Sendable {
    package let spec: OpenAPISpec

    package init(spec: OpenAPISpec) {
        self.spec = spec
    }

    /// Every finding for one entry, in the order request line, parameters, request body, response;
    /// `checksRequest` false leaves out the parameters and body (an answer checked after its request was).
    package func validate(_ entry: TrafficEntry, checksRequest: Bool = true) -> [Diagnostic] {
        // Traffic to hosts the document does not serve (analytics, images on a CDN) is not its to judge.
        if entry.hostIsKnown, let host = entry.url.host?.lowercased(), !spec.servers.contains(where: { $0.serves(host: host) }) {
            return [diagnostic(.trafficNotChecked, entry, "host '\(host)' is not a server of the OpenAPI document (servers: \(spec.serverURLs)); not checked")]
        }
        // Segments split before decoding, so an escaped `/` (`%2F`) stays inside its segment.
        let path = URLComponents(url: entry.url, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? entry.url.path
        let components = path.split(separator: "/", omittingEmptySubsequences: true).map { segment in
            PathPattern.Component.literal(String(segment).removingPercentEncoding ?? String(segment))
        }
        let matcher = OperationMatcher(spec: spec)
        var outcome = matcher.match(methods: [entry.method], host: entry.hostIsKnown ? entry.url.host : nil, components: components)
        if case .notFound = outcome {
            // HTTP answers HEAD as GET without the body; a browser's CORS preflight asks the server, not the API.
            if entry.method == "HEAD", case .found(let operations, let literals) = matcher.match(methods: ["GET"], host: entry.hostIsKnown ? entry.url.host : nil, components: components) {
                outcome = .found(operations, literals: literals)
            } else if entry.method == "OPTIONS", entry.header("Access-Control-Request-Method") != nil {
                return [diagnostic(.trafficNotChecked, entry, "a CORS preflight, which the server answers for the operation it asks about; not checked")]
            }
        }
        switch outcome {
        case .notChecked(let reason):
            return [diagnostic(.trafficNotChecked, entry, reason)]
        case .notFound(let message, let fix):
            return [diagnostic(.trafficOperationNotFound, entry, message, fix: fix,
                               related: .init(file: spec.file, position: spec.root["paths"]?.position, keyPath: "paths", message: "the OpenAPI document's paths"))]
        case .found(let operations, let literals):
            let operation = operations[0]
            var labelled = entry
            labelled.concealedPathSegments = Set(literals.filter { Self.concealer.isSecret($0.parameter, in: .parameter) }.map(\.literal))
            var out: [Diagnostic] = []
            if checksRequest {
                out += checkParameters(labelled, operation, pathLiterals: literals)
                out += checkRequestBody(labelled, operation)
            }
            if let response = entry.response, response.isReal { out += checkResponse(response, of: labelled, operation) }
            return out
        }
    }

    /// The entry's label as a finding about it names it (`#3 GET https://…/reset/REDACTED`): with what
    /// the operation says is secret concealed, which the entry alone cannot know.
    package static func entryLabel(of diagnostic: Diagnostic) -> String? {
        guard diagnostic.message.hasPrefix("#"), let end = diagnostic.message.range(of: ": ") else { return nil }
        return String(diagnostic.message[..<end.lowerBound])
    }

    /// Names whose values reports do not print: the recorder's.
    static let concealer = Redactor()

    func diagnostic(_ code: DiagnosticCode, _ entry: TrafficEntry, _ message: String, fix: String? = nil, related: Diagnostic.RelatedLocation? = nil) -> Diagnostic {
        Diagnostic(code, file: entry.source.file, position: entry.source.position, keyPath: entry.source.keyPath,
                   message: "\(entry.label): \(message)", fix: fix, related: related)
    }

    // MARK: Request body

    private func checkRequestBody(_ entry: TrafficEntry, _ operation: SpecOperation) -> [Diagnostic] {
        let body = entry.body ?? Data()
        guard entry.bodyIsKnown else {
            guard let requestBody = operation.node["requestBody"].map(spec.resolved), Self.isTrue(requestBody["required"]), body.isEmpty else { return [] }
            return [diagnostic(.trafficNotChecked, entry, "the input does not say what request body was sent (none of it was kept); not checked against \(operation.label)'s required body",
                               related: operation.related("the operation", in: spec.file))]
        }
        guard let requestBody = operation.node["requestBody"].map(spec.resolved) else {
            if body.isEmpty { return [] }
            return [diagnostic(.trafficNotChecked, entry, "the request has a body (\(body.count) bytes), which \(operation.label) does not document; not checked",
                               related: operation.related("the operation", in: spec.file))]
        }
        let related = operation.related("the documented request body", in: spec.file, suffix: ".requestBody", at: operation.node.dictionaryValue?.first { $0.key == "requestBody" }?.keyPosition)
        if body.isEmpty {
            guard Self.isTrue(requestBody["required"]) else { return [] }
            return [diagnostic(.trafficRequestBodyInvalid, entry, "the request has no body, and \(operation.label) requires one",
                               fix: "send a body of \(contentKeys(requestBody))", related: related)]
        }
        return checkBody(body, truncated: entry.bodyTruncated, contentType: entry.header("Content-Type"), content: requestBody["content"]?.dictionaryValue ?? [],
                         whose: "the request body", code: .trafficRequestBodyInvalid, entry: entry, operation: operation, suffix: ".requestBody", related: related)
    }

    // MARK: Response

    private func checkResponse(_ response: TrafficEntry.Response, of entry: TrafficEntry, _ operation: SpecOperation) -> [Diagnostic] {
        guard let documented = operation.documentedResponse(response.status) else {
            let statuses = operation.responses.map(\.key).joined(separator: ", ")
            return [diagnostic(.trafficResponseStatusUndocumented, entry,
                               "the backend answered \(response.status), which \(operation.label) does not document (documented: \(statuses.isEmpty ? "none" : statuses))",
                               fix: "document \(response.status) in the spec, or fix the backend",
                               related: operation.related("the operation", in: spec.file, suffix: ".responses", at: operation.node["responses"]?.position))]
        }
        let object = spec.resolved(documented.value)
        guard object["$ref"] == nil else { return [] }
        guard let body = response.body, !body.isEmpty else { return [] }
        let suffix = ".responses.\(documented.key)"
        let related = operation.related("the documented response", in: spec.file, suffix: suffix, at: documented.keyPosition)
        let content = object["content"]?.dictionaryValue ?? []
        if content.isEmpty {
            return [diagnostic(.trafficResponseBodyInvalid, entry, "the backend's \(response.status) has a body, and \(operation.label) documents none for \(documented.key)",
                               related: related)]
        }
        return checkBody(body, truncated: response.bodyTruncated, contentType: response.header("Content-Type"), content: content,
                         whose: "the \(response.status) response body", code: .trafficResponseBodyInvalid, entry: entry, operation: operation,
                         suffix: suffix, related: related)
    }

    // MARK: Bodies

    /// The content type, then a JSON body against its schema; what cannot be checked is a note.
    private func checkBody(_ body: Data, truncated: Bool, contentType: String?, content: [SourceValue.Entry], whose: String, code: DiagnosticCode,
                           entry: TrafficEntry, operation: SpecOperation, suffix: String, related: Diagnostic.RelatedLocation) -> [Diagnostic] {
        guard !content.isEmpty else { return [] }
        guard let contentType else {
            return [diagnostic(code, entry, "\(whose) has no Content-Type, and \(operation.label) documents \(contentKeys(content))", related: related)]
        }
        guard let media = SpecOperation.media(for: contentType, in: content) else {
            return [diagnostic(code, entry, "\(whose) is \(MediaType.essence(of: contentType)), which \(operation.label) does not document (documented: \(contentKeys(content)))",
                               related: related)]
        }
        guard let schema = media.value["schema"] else { return [] }
        let schemaRelated = operation.related("the documented schema (\(media.key))", in: spec.file, suffix: "\(suffix).content.\(media.key).schema", at: schema.position)
        guard MediaType.isJSON(MediaType.essence(of: contentType)) else {
            return [diagnostic(.trafficNotChecked, entry, "\(whose) is \(MediaType.essence(of: contentType)); only JSON bodies are checked against the schema", related: schemaRelated)]
        }
        if truncated {
            return [diagnostic(.trafficNotChecked, entry, "\(whose) was cut off when it was recorded (\(body.count) bytes kept); not checked against the schema",
                               related: schemaRelated)]
        }
        let instance: SourceValue
        do { instance = try JSONSourceParser().parse(body) } catch {
            return [diagnostic(code, entry, "\(whose) is not JSON: \(error.message)", related: schemaRelated)]
        }
        var validator = SchemaValidator(root: spec.root, dialect: spec.dialect, concealing: Self.concealer)
        validator.direction = code == .trafficRequestBodyInvalid ? .request : .response
        return validator.validate(instance, against: schema).map { violation in
            let at = violation.pointer.isEmpty ? "" : " at \(violation.pointer)"
            var found = diagnostic(violation.isViolation ? code : .trafficNotChecked, entry,
                                   violation.isViolation ? "\(whose) does not fit the schema\(at): \(violation.message)" : "\(whose)\(at): \(violation.message)",
                                   related: schemaRelated)
            found.pointer = violation.pointer
            return found
        }
    }

    static func isTrue(_ value: SourceValue?) -> Bool {
        if case .bool(true)? = value?.kind { return true }
        return false
    }

    func contentKeys(_ requestBody: SourceValue) -> String { contentKeys(requestBody["content"]?.dictionaryValue ?? []) }

    func contentKeys(_ content: [SourceValue.Entry]) -> String { content.map(\.key).joined(separator: ", ") }
}
#endif
