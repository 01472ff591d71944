#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension TrafficValidator {
    /// Headers OpenAPI describes elsewhere (`content`, security schemes): parameters of these names are ignored.
    static let ignoredHeaders: Set<String> = ["accept", "content-type", "authorization"]

    /// Path, query and header parameters: the required ones present, each value valid against its schema.
    ///
    /// Values are read as OpenAPI's default styles say: `simple` for path and header (an array is
    /// comma-separated), `form` for query, exploded by default (an array is the repeated items,
    /// `explode: false` a comma-separated value). A number or boolean schema reads the text as one.
    func checkParameters(_ entry: TrafficEntry, _ operation: SpecOperation, pathLiterals: [OperationMatcher.LiteralParameter]) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let open = SchemaValidator(root: spec.root, dialect: spec.dialect, concealing: Self.concealer)
        var concealed = open
        concealed.concealsEveryValue = true
        func validator(for name: String) -> SchemaValidator { Self.concealer.isSecret(name, in: .parameter) ? concealed : open }
        let pathRelated = operation.related("the operation", in: spec.file)
        for literal in pathLiterals {
            // The matcher reads parameters from the first operation at the path; the request's method
            // says which operation's own declaration counts (GET and DELETE may type `{id}` apart).
            let schema = operation.pathParameters[literal.parameter] ?? literal.schema
            let value = OperationMatcher.parameterValue(literal.literal, schema: schema, spec: spec)
            for violation in validator(for: literal.parameter).validate(value, against: schema) where violation.isViolation {
                out.append(diagnostic(.trafficParameterInvalid, entry, "path parameter '\(literal.parameter)' is \(Self.shown([literal.literal], name: literal.parameter)), which does not fit its schema: \(violation.message)",
                                      related: pathRelated))
            }
        }
        // Query values decoded as servers decode forms: `+` is a space.
        let queryItems = (URLComponents(url: entry.url, resolvingAgainstBaseURL: false)?.percentEncodedQueryItems ?? []).map { item in
            func decoded(_ text: String) -> String { text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? text }
            return URLQueryItem(name: decoded(item.name), value: item.value.map(decoded))
        }
        let cookies = entry.headers.filter { $0.name.caseInsensitiveCompare("Cookie") == .orderedSame }.flatMap { header in
            header.value.split(separator: ";").compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }
        }
        for parameter in operation.parameters {
            guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue else { continue }
            let related = operation.related("parameter '\(name)' (in \(location))", in: spec.file, at: parameter.position)
            let raw: [String]
            var styled: SourceValue? = nil
            switch location {
            case "query":
                // Sent, but its value not kept (a recording's secret): present, not checked.
                if entry.queryNamesWithoutValues.contains(name) { continue }
                if let schema = parameter["schema"] {
                    let others = Set(operation.parameters.compactMap { $0["in"]?.stringValue == "query" ? $0["name"]?.stringValue : nil }).subtracting([name])
                    let sent = Self.queryParameter(name, parameter: parameter, schema: schema, items: queryItems, otherNames: others, spec: spec)
                    raw = sent?.raw ?? []
                    styled = sent?.value
                } else {
                    raw = queryItems.filter { $0.name == name }.map { $0.value ?? "" }
                }
            case "cookie":
                raw = cookies.filter { $0.0 == name }.map(\.1)
            case "header":
                guard !Self.ignoredHeaders.contains(name.lowercased()) else { continue }
                raw = entry.headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map { $0.value.trimmingCharacters(in: .whitespaces) }
            default:
                continue
            }
            if raw.isEmpty {
                // A recording keeps only the headers its rule matches on; one it does not name may have been sent.
                if Self.isTrue(parameter["required"]), location == "query" || location == "path" || entry.headersAreComplete,
                   location != "cookie" || entry.cookiesAreComplete {
                    out.append(diagnostic(.trafficParameterInvalid, entry, "required \(location) parameter '\(name)' is missing", related: related))
                }
                continue
            }
            guard let schema = parameter["schema"] else {
                // Described by `content` (a JSON-encoded value, say): present, and its value not read.
                out.append(diagnostic(.trafficNotChecked, entry, "\(location) parameter '\(name)' is described by 'content', not 'schema'; its value is not checked", related: related))
                continue
            }
            let value = styled ?? Self.value(of: raw, location: location, parameter: parameter, schema: schema, spec: spec)
            for violation in validator(for: name).validate(value, against: schema) where violation.isViolation {
                out.append(diagnostic(.trafficParameterInvalid, entry,
                                      "\(location) parameter '\(name)' is \(Self.shown(raw, name: name)), which does not fit its schema: \(violation.pointer.isEmpty ? "" : violation.pointer + ": ")\(violation.message)",
                                      related: related))
            }
        }
        return out
    }

    /// A parameter's value as a message prints it: quoted and cut, or not at all under a secret's name.
    static func shown(_ raw: [String], name: String) -> String {
        if concealer.isSecret(name, in: .parameter) { return "a value not shown (\(name) is a secret's name)" }
        let text = raw.joined(separator: ",")
        return text.count > 80 ? "'\(text.prefix(80))…' (\(text.utf8.count) bytes)" : "'\(text)'"
    }

    /// The parameter's text as the JSON value its schema reads: an array from repeated items or a
    /// comma-separated value, numbers and booleans where the schema (or its `items`) wants them.
    static func value(of raw: [String], location: String, parameter: SourceValue, schema: SourceValue, spec: OpenAPISpec) -> SourceValue {
        let resolved = spec.resolved(schema)
        let isArray = resolved["type"]?.stringValue == "array" || resolved["type"]?.arrayValue?.contains { $0.stringValue == "array" } == true
        guard isArray else { return OperationMatcher.parameterValue(raw[0], schema: schema, spec: spec) }
        let explode: Bool
        if case .bool(let written)? = parameter["explode"]?.kind { explode = written } else { explode = location == "query" || location == "cookie" }
        let items = explode && location == "query" ? raw : raw.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        let itemSchema = resolved["items"] ?? SourceValue(.dictionary([]))
        return SourceValue(.array(items.map { OperationMatcher.parameterValue($0, schema: itemSchema, spec: spec) }))
    }
}
#endif
