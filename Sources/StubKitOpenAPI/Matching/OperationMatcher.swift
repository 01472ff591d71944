#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// Finds the operations of an OpenAPI document that a rule's method, host and path stand for.
///
/// A rule's `{param}` segment matches a template's `{param}`; a literal segment matches the same literal,
/// or a template parameter (then the literal is checked against the parameter's schema). Among the
/// paths that match, those with more literal segments in the same places win, as OpenAPI says concrete
/// paths match before templated ones.
struct OperationMatcher: Sendable {
    let spec: OpenAPISpec

    /// A literal segment of the rule where the operation has a parameter.
    struct LiteralParameter {
        var literal: String
        var parameter: String
        var schema: SourceValue
    }

    enum Outcome {
        /// The operations, one per method the rule names (the GET, or the first, when it names none).
        case found([SpecOperation], literals: [LiteralParameter])
        case notFound(message: String, fix: String?)
        case notChecked(String)
    }

    func match(_ rule: StubRule) -> Outcome {
        guard let pattern = rule.request.path else {
            if rule.request.urlPattern != nil {
                return .notChecked("the rule matches with 'urlRegex', so the OpenAPI checks cannot tell which operation it stubs")
            }
            return .notChecked("the rule has no 'path', so it answers every path; not checked against the OpenAPI document")
        }
        if pattern.components.contains(.globstar) {
            return .notChecked("the rule's path \(pattern) ends in '**', so it stands for many operations; not checked against the OpenAPI document")
        }
        return match(methods: rule.request.methods, host: rule.request.host, components: pattern.components)
    }

    /// The operations a request line stands for: `components` are the path's segments (literal for a
    /// request that was sent), `methods` `nil` for any (then the GET, or the first at the path).
    func match(methods: Set<String>?, host: String?, components: [PathPattern.Component]) -> Outcome {
        var servers = spec.servers
        if let host = host?.lowercased() {
            servers = servers.filter { $0.serves(host: host) }
            if servers.isEmpty {
                return .notFound(message: "host '\(host)' is not a server of the OpenAPI document (servers: \(spec.serverURLs))",
                                 fix: "use the host of one of the spec's servers, or add the server to the spec")
            }
        }
        // The path templates that match, best (most literal segments in place) first.
        var best: (score: Int, path: String, literals: [LiteralParameter])? = nil
        var pathsSeen = Set<String>()
        for operation in spec.operations where pathsSeen.insert(operation.path).inserted {
            for server in servers {
                guard let (score, literals) = Self.match(components, base: server.basePath, template: operation.segments, parameters: operation.pathParameters) else { continue }
                if best == nil || score > best!.score { best = (score, operation.path, literals) }
            }
        }
        guard let best else {
            let shown = "/" + components.map(\.description).joined(separator: "/")
            let relative = servers.first.map { server in
                Array(components.dropFirst(server.basePath.count)).map(\.description)
            } ?? []
            let suggestion = Suggestion.closest(to: "/" + relative.joined(separator: "/"), in: Set(spec.operations.map(\.path)))
            let base = servers.contains { !$0.basePath.isEmpty } ? " under \(servers.map { "/" + $0.basePath.joined(separator: "/") }.joined(separator: " or "))" : ""
            return .notFound(message: "no path of the OpenAPI document matches \(shown)\(base)", fix: suggestion.map { "did you mean '\($0)'?" })
        }
        let atPath = spec.operations.filter { $0.path == best.path }
        var found: [SpecOperation] = []
        if let methods {
            for method in methods.sorted() {
                guard let operation = atPath.first(where: { $0.method == method }) else {
                    return .notFound(message: "the OpenAPI document has no \(method) \(best.path) (it has \(atPath.map(\.method).joined(separator: ", ")) there)", fix: nil)
                }
                found.append(operation)
            }
        } else {
            found.append(atPath.first { $0.method == "GET" } ?? atPath[0])
        }
        return .found(found, literals: best.literals)
    }

    /// Whether the rule's segments are the server's base path then the template's segments: the score
    /// (literal against literal) and the literals that stand where the template has a parameter.
    static func match(_ rule: [PathPattern.Component], base: [String], template: [SpecOperation.Segment],
                      parameters: [String: SourceValue]) -> (Int, [LiteralParameter])? {
        guard rule.count == base.count + template.count else { return nil }
        for (component, expected) in zip(rule, base) {
            guard case .literal(let text) = component, text == expected else { return nil }
        }
        var score = 0
        var literals: [LiteralParameter] = []
        for (component, segment) in zip(rule.dropFirst(base.count), template) {
            switch (component, segment) {
            case (.literal(let a), .literal(let b)):
                guard a == b else { return nil }
                score += 1
            case (.literal(let a), .parameter(let name)):
                literals.append(LiteralParameter(literal: a, parameter: name, schema: parameters[name] ?? SourceValue(.dictionary([]))))
            case (.literal(let a), .mixed):
                // `7.pdf` where the spec has `{id}.pdf`: the parameter's part is not checked.
                guard segment.admits(a) else { return nil }
            case (.parameter, .parameter), (.wildcard, _):
                break
            case (.parameter, .literal):
                return nil
            default:
                return nil
            }
        }
        return (score, literals)
    }

    /// A path segment as the parameter's schema reads it: a number where the schema wants one.
    static func parameterValue(_ text: String, schema: SourceValue, spec: OpenAPISpec) -> SourceValue {
        let resolved = spec.resolved(schema)
        let types: [String] = resolved["type"]?.stringValue.map { [$0] } ?? resolved["type"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if types.contains("integer"), let int = Int(text) { return SourceValue(.integer(int)) }
        if types.contains("number"), let number = Double(text), number.isFinite { return SourceValue(.real(number)) }
        if types.contains("boolean"), text == "true" || text == "false" { return SourceValue(.bool(text == "true")) }
        return SourceValue(.string(text))
    }
}
#endif
