/// Checks a request against a rule's conditions, and explains the first one that fails.
enum RequestMatcher {
    /// Whether every condition holds. The path is checked too, so this is correct without the index.
    static func matches(_ conditions: RequestConditions, _ request: StubRequest) -> Bool {
        mismatch(conditions, request) == nil
    }

    /// The first condition that fails, or `nil` when the request matches.
    static func mismatch(_ conditions: RequestConditions, _ request: StubRequest) -> Mismatch? {
        if let methods = conditions.methods, !methods.contains(request.method) {
            return Mismatch(field: "method", expected: methods.sorted().joined(separator: " or "), actual: request.method)
        }
        if let host = conditions.host, host != request.host {
            return Mismatch(field: "host", expected: host, actual: request.host)
        }
        if let path = conditions.path, path.match(request.pathSegments) == nil {
            return Mismatch(field: "path", expected: path.description, actual: "/" + request.pathSegments.joined(separator: "/"),
                            detail: pathDetail(path, request.pathSegments))
        }
        if let pattern = conditions.urlPattern, !pattern.matches(request.url.absoluteString) {
            return Mismatch(field: "url", expected: "matches /\(pattern.pattern)/", actual: request.url.absoluteString)
        }
        for name in conditions.query.keys.sorted() {
            let expected = conditions.query[name]!
            let actual = request.queryValue(name)
            if actual != expected {
                return Mismatch(field: "query.\(name)", expected: expected, actual: actual ?? "(absent)")
            }
        }
        for name in conditions.headers.keys.sorted() {
            let expected = conditions.headers[name]!
            let actual = request.header(name)
            if actual != expected {
                return Mismatch(field: "header \(name)", expected: expected, actual: actual ?? "(absent)")
            }
        }
        return nil
    }

    /// Names the first path segment that differs, for a readable explanation.
    private static func pathDetail(_ pattern: PathPattern, _ segments: [Substring]) -> String? {
        for (i, component) in pattern.components.enumerated() {
            switch component {
            case .globstar:
                return nil
            case .literal(let literal):
                guard i < segments.count else { return "the path ends before segment \(i + 1) ('\(literal)')" }
                if segments[i] != literal { return "segment \(i + 1) is '\(segments[i])', expected '\(literal)'" }
            case .parameter, .wildcard:
                guard i < segments.count else { return "the path ends before segment \(i + 1) (\(component))" }
            }
        }
        if segments.count > pattern.components.count {
            return "the path has \(segments.count) segments, the pattern \(pattern.components.count)"
        }
        return nil
    }
}

/// One condition of a rule that a request did not meet.
public struct Mismatch: Sendable, Hashable, CustomStringConvertible {
    public var field: String
    public var expected: String
    public var actual: String
    public var detail: String?

    public var description: String {
        var text = "\(field): expected \(expected), got \(actual)"
        if let detail { text += " (\(detail))" }
        return text
    }
}
