import Foundation

/// A response body or header with `{{…}}` placeholders filled from the request when served.
///
/// | placeholder | value |
/// |---|---|
/// | `{{path.id}}` | the path parameter `{id}` of the rule's `path` |
/// | `{{query.q}}` | the query item `q` ("" when absent) |
/// | `{{header.Accept-Language}}` | a request header ("" when absent) |
/// | `{{body}}` | the whole request body as text (an echo; a WebSocket reply's client message); with `\| json`, its JSON value (`null` when not JSON) |
/// | `{{body.order.items.0.id}}` | a field of the JSON request body ("" when absent or not JSON) |
/// | `{{now}}`, `{{now.epoch}}`, `{{now.date}}` | the engine's "now" (`STUB_NOW`): ISO 8601, seconds since 1970, `yyyy-MM-dd` |
/// | `{{request.method}}`, `{{request.url}}`, `{{request.path}}`, `{{request.host}}` | the request itself |
/// | `{{hit}}` | how many times the rule answered before (0 for the first request) |
/// | `{{graphql.operationName}}`, `{{graphql.operationType}}` | the GraphQL operation's name and type ("" when unknown) |
/// | `{{graphql.variables.id}}`, `{{graphql.variables}}` | a GraphQL variable, or all of them with `\| json` ("" when absent) |
package struct ResponseTemplate: Sendable, Hashable {
    /// What the template's output is, which decides how values are written into it.
    package enum Syntax: Sendable, Hashable {
        /// Plain text (a text body, a header): values go in as they are.
        case text
        /// JSON (a `json` body, a JSON response file or body): inside a string, values are escaped so
        /// the output stays valid JSON; a placeholder that is a whole string with the `json` or
        /// `number` filter (`"{{body.id | json}}"`) is replaced, quotes and all, by a JSON value.
        /// Outside strings a filtered value goes in as a JSON value, an unfiltered one as text.
        case json
    }

    enum Part: Sendable, Hashable {
        case text(String)
        case field(Field, Filter?, Insertion)
    }

    /// How a value goes into the output.
    enum Insertion: Sendable, Hashable {
        /// As text (no filter, outside a JSON string).
        case raw
        /// Escaped as the content of a JSON string.
        case jsonStringContent
        /// As a JSON value (a filter, outside a JSON string or replacing a whole one).
        case jsonValue
    }

    /// Converts a value before it is inserted: `{{body.id | json}}`, `{{path.id | number}}`.
    enum Filter: String, Sendable, Hashable, CaseIterable {
        /// The value with its JSON type (a body field stays a number, an object stays an object).
        case json
        /// The value as a JSON number (text that is not a number gives `null`).
        case number
    }

    enum Field: Sendable, Hashable {
        case path(String)
        case query(String)
        case header(String)
        case body([String])
        case now(NowFormat)
        case request(String)
        case hit
        /// `operationName`, `operationType`, or `variables` followed by a path into them.
        case graphQL([String])
    }

    enum NowFormat: String, Sendable, Hashable {
        case iso8601, epoch, date
    }

    let parts: [Part]

    /// Whether the template counts the rule's answers (`{{hit}}`), so the engine must count them.
    package var usesHitCount: Bool {
        parts.contains { if case .field(.hit, _, _) = $0 { return true } else { return false } }
    }

    /// Why a template cannot be used, found at load time.
    package struct Problem: Error, Sendable {
        package var message: String
        package var fix: String?
    }

    /// Every problem in one template, so all are reported together.
    package struct Problems: Error, Sendable {
        package var problems: [Problem]
    }

    /// Parses a template; `pathParameters` are the names the rule's path captures.
    package init(parsing text: String, pathParameters: Set<String>?, syntax: Syntax = .text) throws(Problems) {
        var parts: [Part] = []
        var problems: [Problem] = []
        let bytes = Array(text.utf8)
        var pending: [UInt8] = []
        var inString = false
        var stringStart = -1
        var i = 0
        func flush() {
            if !pending.isEmpty { parts.append(.text(String(decoding: pending, as: UTF8.self))) }
            pending = []
        }
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "{"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "{") {
                guard let close = Self.closing(bytes, from: i + 2) else {
                    problems.append(Problem(message: "'{{' without a closing '}}'", fix: "close the placeholder, as in {{path.id}}"))
                    break
                }
                let inside = String(decoding: bytes[(i + 2)..<close], as: UTF8.self)
                var after = close + 2
                // A name never holds a quote, a line break or another `{{`: such a span is a placeholder
                // whose `}}` is missing, and taking it whole would swallow the JSON between (and break it).
                if let stray = inside.unicodeScalars.first(where: { $0 == "\"" || $0 == "\n" || $0 == "\r" }) ?? (inside.contains("{{") ? "{" : nil) {
                    let shown = stray == "{" ? "'{{'" : stray == "\"" ? "a quote" : "a line break"
                    problems.append(Problem(message: "a placeholder holds \(shown): '{{\(inside.prefix(40))…' is missing its '}}'",
                                            fix: "close each placeholder on its own, as in {{path.id}}"))
                    i = close + 2
                    continue
                }
                do {
                    let (field, filter) = try Self.placeholder(inside, pathParameters: pathParameters)
                    // A filter asks for a JSON value; without one a value goes in as text, as it always
                    // did (`{"id": {{path.id}}}` gives `{"id": 42}`), escaped inside a JSON string.
                    var insertion: Insertion = filter == nil ? .raw : .jsonValue
                    if syntax == .json, inString {
                        insertion = .jsonStringContent
                        // A whole string holding one filtered placeholder becomes a JSON value: drop its quotes.
                        if inString, filter != nil, stringStart == i - 1, pending.last == UInt8(ascii: "\""),
                           after < bytes.count, bytes[after] == UInt8(ascii: "\"") {
                            pending.removeLast()
                            after += 1
                            inString = false
                            insertion = .jsonValue
                        }
                    }
                    flush()
                    parts.append(.field(field, filter, insertion))
                } catch {
                    problems.append(error)
                }
                i = after
                continue
            }
            if syntax == .json {
                if inString {
                    if byte == UInt8(ascii: "\\") {
                        pending.append(byte)
                        i += 1
                        if i < bytes.count { pending.append(bytes[i]) }
                        i += 1
                        continue
                    }
                    if byte == UInt8(ascii: "\"") { inString = false }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                    stringStart = i
                }
            }
            pending.append(byte)
            i += 1
        }
        if !problems.isEmpty { throw Problems(problems: problems) }
        flush()
        self.parts = parts
    }

    /// The index of the `}}` that closes a placeholder opened before `start`.
    private static func closing(_ bytes: [UInt8], from start: Int) -> Int? {
        var j = start
        while j + 1 < bytes.count {
            if bytes[j] == UInt8(ascii: "}"), bytes[j + 1] == UInt8(ascii: "}") { return j }
            j += 1
        }
        return nil
    }

    /// `name` or `name | filter`.
    private static func placeholder(_ text: String, pathParameters: Set<String>?) throws(Problem) -> (Field, Filter?) {
        let pieces = text.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
        let name = pieces[0].trimmingCharacters(in: .whitespaces)
        var filter: Filter? = nil
        if pieces.count > 1 {
            let filterName = pieces[1].trimmingCharacters(in: .whitespaces)
            guard let known = Filter(rawValue: filterName) else {
                let suggestion = Suggestion.closest(to: filterName, in: Filter.allCases.map(\.rawValue))
                throw Problem(message: "unknown filter '\(filterName)' in '{{\(text)}}'",
                              fix: suggestion.map { "did you mean '| \($0)'?" } ?? "filters are '| json' and '| number'")
            }
            filter = known
        }
        return (try field(name, pathParameters: pathParameters), filter)
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
            // `{{body}}` alone is the whole body; `{{body.}}` names an empty field.
            guard rest.isEmpty || !joined.isEmpty else { throw Problem(message: "'{{\(name)}}' names no body field", fix: "write {{body}}, {{body.FIELD}} or {{body.a.b.0}}") }
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
        case "graphql":
            guard let first = rest.first, ["operationName", "operationType", "variables"].contains(first),
                  first == "variables" || rest.count == 1, !rest.dropFirst().contains("") else {
                throw Problem(message: "unknown GraphQL field '{{\(name)}}'",
                              fix: "use {{graphql.operationName}}, {{graphql.operationType}} or {{graphql.variables.NAME}}")
            }
            return .graphQL(rest)
        default:
            let suggestion = Suggestion.closest(to: namespace, in: ["path", "query", "header", "body", "now", "request", "hit", "graphql"])
            throw Problem(message: "unknown template field '{{\(name)}}'",
                          fix: suggestion.map { "did you mean '{{\($0)\(joined.isEmpty ? "" : "." + joined)}}'?" }
                            ?? "fields are path.*, query.*, header.*, body.*, now, request.*, hit, graphql.*")
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
            case .text(let text):
                out += text
            case .field(let field, let filter, let insertion):
                let value = Self.apply(filter, to: Self.value(field, wholeBodyAsJSON: filter == .json, &context))
                switch insertion {
                case .raw:
                    out += value?.templateText ?? ""
                case .jsonStringContent:
                    var quoted = ""
                    SourceValue.appendQuoted(value?.templateText ?? "", to: &quoted)
                    out += quoted.dropFirst().dropLast()
                case .jsonValue:
                    out += value?.description ?? "null"
                }
            }
        }
        return out
    }

    /// A header value: CR and LF become spaces, so a request value cannot start a header of its own.
    func renderHeaderValue(_ context: inout Context) -> String {
        let text = render(&context)
        guard text.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" ? " " : $0 })
    }

    private static func apply(_ filter: Filter?, to value: JSONValue?) -> JSONValue? {
        guard let filter else { return value }
        switch (filter, value) {
        case (.json, _): return value
        case (.number, .number?): return value
        case (.number, .string(let text)?):
            return Double(text.trimmingCharacters(in: .whitespaces)).flatMap { $0.isFinite ? JSONValue.number($0) : nil } ?? .null
        case (.number, _): return .null
        }
    }

    /// The value of a field, typed: numbers for `{{hit}}` and `{{now.epoch}}`, the JSON value of a body
    /// field (and of the whole body with `| json`), text for the rest; `nil` when the request has no such value.
    private static func value(_ field: Field, wholeBodyAsJSON: Bool, _ context: inout Context) -> JSONValue? {
        switch field {
        case .body(let path) where path.isEmpty && !wholeBodyAsJSON:
            // The body as the client sent it, not re-serialized: an echo keeps its bytes.
            return context.request.body.map { .string(String(decoding: $0, as: UTF8.self)) }
        case .path(let name): return context.parameters[name].map(JSONValue.string)
        case .query(let name): return context.request.queryValue(name).map(JSONValue.string)
        case .header(let name): return context.request.header(name).map(JSONValue.string)
        case .body(let path):
            if context.bodyJSON == nil { context.bodyJSON = .some(context.request.body.flatMap(JSONValue.init(parsing:))) }
            return context.bodyJSON??.value(at: path.map { Substring($0) })
        case .now(let format):
            switch format {
            case .iso8601:
                return .string(ISO8601DateFormatter().string(from: context.now))
            case .epoch: return .number(context.now.timeIntervalSince1970.rounded(.down))
            case .date:
                let formatter = ISO8601DateFormatter()
                formatter.formatOptions = [.withFullDate]
                return .string(formatter.string(from: context.now))
            }
        case .request(let name):
            switch name {
            case "method": return .string(context.request.method)
            case "url": return .string(context.request.url.absoluteString)
            case "path": return .string("/" + context.request.pathSegments.joined(separator: "/"))
            default: return .string(context.request.host)
            }
        case .hit: return .number(Double(context.hit))
        case .graphQL(let path):
            guard case .single(let operation)? = context.request.graphQL else { return nil }
            switch path[0] {
            case "operationName": return operation.name.map(JSONValue.string)
            case "operationType": return operation.type.map { .string($0.rawValue) }
            default: return (operation.variables ?? .object([:])).value(at: path.dropFirst().map { Substring($0) })
            }
        }
    }
}
