#if Tools
import Foundation

/// WireMock's Handlebars response templates, translated into StubKit's template fields where one
/// exists: `{{request.query.q}}` → `{{query.q}}`, `{{request.headers.X}}` → `{{header.X}}`,
/// `{{jsonPath request.body '$.a.b'}}` → `{{body.a.b}}`, `{{request.url}}`, `{{request.path}}`,
/// `{{request.method}}`, `{{now}}`.
struct WireMockTemplate {
    var headers: [String: String]
    var body: String?
    /// The `{name}`s of a `urlPathTemplate`: `{{request.path.name}}` becomes `{{path.name}}`.
    var pathParameters: Set<String> = []

    var hasPlaceholders: Bool {
        (body?.contains("{{") ?? false) || headers.values.contains { $0.contains("{{") }
    }

    /// Translates every placeholder; returns the helpers that cannot be translated (and changes
    /// nothing) when there are any.
    mutating func translate() -> [String]? {
        var failed: [String] = []
        let newBody = body.map { translated($0, failed: &failed) }
        var newHeaders: [String: String] = [:]
        for (name, value) in headers { newHeaders[name] = translated(value, failed: &failed) }
        if !failed.isEmpty { return Array(Set(failed)).sorted() }
        body = newBody
        headers = newHeaders
        return nil
    }

    private func translated(_ text: String, failed: inout [String]) -> String {
        var result = ""
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                result += rest[open.lowerBound...]
                return result
            }
            let inner = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            if let field = field(for: inner) {
                result += "{{\(field)}}"
            } else {
                failed.append("{{\(inner)}}")
                result += rest[open.lowerBound..<close.upperBound]
            }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }

    private func field(for expression: String) -> String? {
        let direct: [String: String] = ["request.url": "request.url", "request.path": "request.path",
                                        "request.method": "request.method", "request.host": "request.host", "now": "now"]
        if let field = direct[expression] { return field }
        if expression.hasPrefix("request.path."), pathParameters.contains(String(expression.dropFirst("request.path.".count))) {
            return "path." + expression.dropFirst("request.path.".count)
        }
        for (prefix, field) in [("request.query.", "query."), ("request.headers.", "header."), ("request.header.", "header.")] where expression.hasPrefix(prefix) {
            var name = String(expression.dropFirst(prefix.count))
            if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
            if name.hasSuffix(".[0]") { name = String(name.dropLast(4)) }
            guard !name.isEmpty, !name.contains(" "), !name.contains("[") else { return nil }
            return field + name
        }
        // {{jsonPath request.body '$.a.b'}} with a plain path of names and indexes.
        let parts = expression.split(separator: " ", maxSplits: 2).map(String.init)
        if parts.count == 3, parts[0] == "jsonPath", parts[1] == "request.body" {
            let path = parts[2].trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
            guard path.hasPrefix("$."), path.dropFirst(2).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else { return nil }
            return "body." + path.dropFirst(2)
        }
        return nil
    }
}
#endif
