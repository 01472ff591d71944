import Foundation

/// A response body or header with `{{…}}` placeholders filled from the request when served.
///
/// | placeholder | value |
/// |---|---|
/// | `{{path.id}}` | the path parameter `{id}` of the rule's `path` |
/// | `{{query.q}}` | the query item `q` ("" when absent) |
/// | `{{header.Accept-Language}}` | a request header ("" when absent) |
/// | `{{body.order.items.0.id}}` | a field of the JSON request body ("" when absent or not JSON) |
/// | `{{now}}`, `{{now.epoch}}`, `{{now.date}}` | the engine's "now" (`STUB_NOW`): ISO 8601, seconds since 1970, `yyyy-MM-dd` |
/// | `{{request.method}}`, `{{request.url}}`, `{{request.path}}`, `{{request.host}}` | the request itself |
/// | `{{hit}}` | how many times the rule answered before (0 for the first request) |
public struct ResponseTemplate: Sendable, Hashable {
    enum Part: Sendable, Hashable {
        case text(String)
        case field(Field)
    }

    enum Field: Sendable, Hashable {
        case path(String)
        case query(String)
        case header(String)
        case body([String])
        case now(NowFormat)
        case request(String)
        case hit
    }

    enum NowFormat: String, Sendable, Hashable {
        case iso8601, epoch, date
    }

    let parts: [Part]

    /// Why a template cannot be used, found at load time.
    public struct Problem: Error, Sendable {
        public var message: String
        public var fix: String?
    }

    /// Every problem in one template, so all are reported together.
    public struct Problems: Error, Sendable {
        public var problems: [Problem]
    }

    /// Parses a template; `pathParameters` are the names the rule's path captures.
    public init(parsing text: String, pathParameters: Set<String>?) throws(Problems) {
        var parts: [Part] = []
        var problems: [Problem] = []
        var rest = Substring(text)
        while let open = rest.range(of: "{{") {
            if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].range(of: "}}") else {
                problems.append(Problem(message: "'{{' without a closing '}}'", fix: "close the placeholder, as in {{path.id}}"))
                break
            }
            let name = rest[open.upperBound..<close.lowerBound].trimmingCharacters(in: .whitespaces)
            do {
                parts.append(.field(try Self.field(name, pathParameters: pathParameters)))
            } catch {
                problems.append(error)
            }
            rest = rest[close.upperBound...]
        }
        if !problems.isEmpty { throw Problems(problems: problems) }
        if !rest.isEmpty { parts.append(.text(String(rest))) }
        self.parts = parts
    }

    private static func field(_ name: String, pathParameters: Set<String>?) throws(Problem) -> Field {
        let components = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let namespace = components.first ?? ""
        let rest = Array(components.dropFirst())
        let joined = rest.joined(separator: ".")
        switch namespace {
        case "path":
            guard rest.count == 1, !joined.isEmpty else { throw Problem(message: "'{{\(name)}}' should name one path parameter", fix: "write {{path.NAME}} for a {NAME} in the rule's path") }
            if let pathParameters, !pathParameters.contains(joined) {
                let known = pathParameters.sorted()
                throw Problem(message: "'{{\(name)}}' names a path parameter the rule's path does not have",
                              fix: known.isEmpty ? "add {\(joined)} to the rule's path" : "use one of: " + known.map { "{{path.\($0)}}" }.joined(separator: ", "))
            }
            return .path(joined)
        case "query":
            guard !joined.isEmpty else { throw Problem(message: "'{{\(name)}}' names no query item", fix: "write {{query.NAME}}") }
            return .query(joined)
        case "header":
            guard !joined.isEmpty else { throw Problem(message: "'{{\(name)}}' names no header", fix: "write {{header.NAME}}") }
            return .header(joined)
        case "body":
            guard !joined.isEmpty else { throw Problem(message: "'{{\(name)}}' names no body field", fix: "write {{body.FIELD}} or {{body.a.b.0}}") }
            return .body(rest)
        case "now":
            switch joined {
            case "": return .now(.iso8601)
            case "epoch": return .now(.epoch)
            case "date": return .now(.date)
            default: throw Problem(message: "unknown time format '{{\(name)}}'", fix: "use {{now}}, {{now.epoch}} or {{now.date}}")
            }
        case "request":
            guard ["method", "url", "path", "host"].contains(joined) else {
                throw Problem(message: "unknown request field '{{\(name)}}'", fix: "use {{request.method}}, {{request.url}}, {{request.path}} or {{request.host}}")
            }
            return .request(joined)
        case "hit":
            guard rest.isEmpty else { throw Problem(message: "unknown field '{{\(name)}}'", fix: "write {{hit}}") }
            return .hit
        default:
            let suggestion = Suggestion.closest(to: namespace, in: ["path", "query", "header", "body", "now", "request", "hit"])
            throw Problem(message: "unknown template field '{{\(name)}}'",
                          fix: suggestion.map { "did you mean '{{\($0)\(joined.isEmpty ? "" : "." + joined)}}'?" }
                            ?? "fields are path.*, query.*, header.*, body.*, now, request.*, hit")
        }
    }

    /// What a request gives a template.
    struct Context {
        var request: StubRequest
        var parameters: [String: String]
        var now: Date
        var hit: Int
        /// Parsed once, on first use.
        var bodyJSON: JSONValue?? = nil
    }

    func render(_ context: inout Context) -> String {
        var out = ""
        for part in parts {
            switch part {
            case .text(let text): out += text
            case .field(let field): out += Self.value(field, &context)
            }
        }
        return out
    }

    private static func value(_ field: Field, _ context: inout Context) -> String {
        switch field {
        case .path(let name): return context.parameters[name] ?? ""
        case .query(let name): return context.request.queryValue(name) ?? ""
        case .header(let name): return context.request.header(name) ?? ""
        case .body(let path):
            if context.bodyJSON == nil { context.bodyJSON = .some(context.request.body.flatMap(JSONValue.init(parsing:))) }
            return context.bodyJSON??.value(at: path.map { Substring($0) })?.templateText ?? ""
        case .now(let format):
            switch format {
            case .iso8601:
                let formatter = ISO8601DateFormatter()
                return formatter.string(from: context.now)
            case .epoch: return String(Int(context.now.timeIntervalSince1970))
            case .date:
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withFullDate]
                return formatter.string(from: context.now)
            }
        case .request(let name):
            switch name {
            case "method": return context.request.method
            case "url": return context.request.url.absoluteString
            case "path": return "/" + context.request.pathSegments.joined(separator: "/")
            default: return context.request.host
            }
        case .hit: return String(context.hit)
        }
    }
}
