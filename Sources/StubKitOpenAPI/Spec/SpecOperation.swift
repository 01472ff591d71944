#if Tools
import Foundation
import StubKit
import StubKitDocuments

/// One operation of an OpenAPI document: a method on a path template, with its responses.
package struct SpecOperation: Sendable {
    package enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
        /// A segment with parameters and text (`{id}.pdf`, `{name}.{format}`), as written.
        case mixed(String)

        /// Whether a rule's literal segment is one this segment stands for (`7.pdf` for `{id}.pdf`).
        func admits(_ literal: String) -> Bool {
            guard case .mixed(let template) = self else { return false }
            var pattern = "^"
            var rest = Substring(template)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                pattern += NSRegularExpression.escapedPattern(for: String(rest[..<open])) + ".+"
                rest = rest[rest.index(after: close)...]
            }
            pattern += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
            guard let regex = try? NSRegularExpression(pattern: pattern) else { return false }
            return regex.firstMatch(in: literal, range: NSRange(literal.startIndex..., in: literal)) != nil
        }
    }

    /// Upper-cased: `GET`.
    package var method: String
    /// The path template as the spec writes it: `/pets/{petId}`.
    package var path: String
    package var segments: [Segment]
    /// The operation object.
    var node: SourceValue
    /// Path parameters by name: their schemas (the operation's own override the path item's).
    var pathParameters: [String: SourceValue]
    /// Every parameter object (path, query, header, cookie), resolved; the operation's replace the path item's.
    var parameters: [SourceValue]
    /// `operationId`, when the spec gives one.
    package var operationID: String?
    /// Where the operation's method key sits in the spec.
    package var position: SourcePosition?

    /// `GET /pets/{petId}`: how diagnostics name the operation.
    package var label: String { "\(method) \(path)" }

    /// `paths./pets/{petId}.get`: where the operation sits in the spec.
    var keyPath: String { "paths.\(path).\(method.lowercased())" }

    /// The documented responses, in the spec's order: status (`200`, `2XX`, `default`) and response object.
    var responses: [SourceValue.Entry] { node["responses"]?.dictionaryValue ?? [] }

    /// The spec's side of a diagnostic: the operation, or the part of it (`suffix`, at `position`) that
    /// the rule or the traffic disagrees with.
    func related(_ what: String, in file: String, suffix: String = "", at position: SourcePosition? = nil) -> Diagnostic.RelatedLocation {
        .init(file: file, position: position ?? self.position, keyPath: keyPath + suffix, message: "\(what): \(label)")
    }

    /// The documented response for a status: the exact code, then its range (`2XX`), then `default`.
    func documentedResponse(_ status: Int) -> SourceValue.Entry? {
        responses.first { $0.key == String(status) }
            ?? responses.first { $0.key.uppercased() == "\(status / 100)XX" }
            ?? responses.first { $0.key == "default" }
    }

    /// The entry of a `content` map that describes a content type: the same essence (parameters
    /// aside), then `major/*`, then `*/*`.
    static func media(for contentType: String, in content: [SourceValue.Entry]) -> SourceValue.Entry? {
        let essence = MediaType.essence(of: contentType)
        let major = essence.split(separator: "/").first.map(String.init) ?? essence
        return content.first(where: { MediaType.essence(of: $0.key) == essence })
            ?? content.first(where: { $0.key.lowercased() == "\(major)/*" }) ?? content.first(where: { $0.key == "*/*" })
    }

    static func segments(of path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { piece in
            if piece.hasPrefix("{"), piece.hasSuffix("}"), piece.count > 2, piece.dropFirst().firstIndex(of: "{") == nil { return .parameter(String(piece.dropFirst().dropLast())) }
            if let open = piece.firstIndex(of: "{"), piece[open...].contains("}") { return .mixed(String(piece)) }
            return .literal(String(piece).removingPercentEncoding ?? String(piece))
        }
    }
}

/// Where a spec's `servers` put its operations: a host (when the URL names one) and a base path.
package struct SpecServer: Sendable, Hashable {
    /// Lower-cased; `nil` for a relative server URL (`/api/v3`), which matches any host. Variables
    /// hold their defaults.
    package var host: String?
    package var basePath: [String]
    /// The URL as written, for messages.
    package var url: String
    /// When the host has `{variables}`: a regular expression for every host they allow (an `enum`'s
    /// values, or any text for a variable without one), so `eu.api.example.com` is a host of
    /// `https://{region}.api.example.com` whatever the default region.
    var hostPattern: String?

    /// Whether a request to `host` (lower-cased) reaches this server.
    func serves(host requested: String) -> Bool {
        guard let host else { return true }
        if requested == host { return true }
        guard let hostPattern, let regex = try? NSRegularExpression(pattern: hostPattern) else { return false }
        return regex.firstMatch(in: requested, range: NSRange(requested.startIndex..., in: requested)) != nil
    }

    /// The servers a `servers` entry stands for: one per value a `{variable}` in its path may take (an
    /// `enum`'s values, else the default; `https://api.example.com/{version}` with `enum: [v1, v2]` is
    /// two base paths), at most ``maximumExpansions``; host variables are matched by ``hostPattern``.
    static func parseAll(_ server: SourceValue) -> [SpecServer] {
        guard let written = server["url"]?.stringValue else { return [] }
        let variables = server["variables"]?.dictionaryValue ?? []
        let path = split(written).path
        var assignments: [[String: String]] = [[:]]
        for entry in variables {
            let defaultValue = entry.value["default"]?.stringValue
            let values = path.contains("{\(entry.key)}") ? (entry.value["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []) : []
            let choices = values.isEmpty ? defaultValue.map { [$0] } ?? [] : values
            guard !choices.isEmpty, assignments.count * choices.count <= maximumExpansions else {
                if let defaultValue { assignments = assignments.map { $0.merging([entry.key: defaultValue]) { a, _ in a } } }
                continue
            }
            assignments = assignments.flatMap { assignment in choices.map { assignment.merging([entry.key: $0]) { a, _ in a } } }
        }
        // The defaults' server first: it is the one a scaffold writes.
        let first = parse(server).map { [$0] } ?? []
        var seen = Set(first)
        return first + assignments.compactMap { parse(server, values: $0) }.filter { seen.insert($0).inserted }
    }

    static let maximumExpansions = 32

    /// Reads a server URL, filling `{variables}` with their defaults.
    static func parse(_ server: SourceValue) -> SpecServer? {
        parse(server, values: [:])
    }

    /// Reads a server URL, filling `{variables}` with `values`, else their defaults.
    static func parse(_ server: SourceValue, values: [String: String]) -> SpecServer? {
        guard let written = server["url"]?.stringValue else { return nil }
        var text = written
        let variables = server["variables"]?.dictionaryValue ?? []
        for entry in variables {
            if let value = values[entry.key] ?? entry.value["default"]?.stringValue { text = text.replacingOccurrences(of: "{\(entry.key)}", with: value) }
        }
        var (host, path) = split(text)
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        let base = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        var pattern: String? = nil
        if let template = split(written).host, template.contains("{") {
            var regex = "^"
            var rest = Substring(template)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                regex += NSRegularExpression.escapedPattern(for: String(rest[..<open]))
                let name = String(rest[rest.index(after: open)..<close])
                let values = variables.first { $0.key.lowercased() == name }?.value["enum"]?.arrayValue?.compactMap(\.stringValue) ?? []
                regex += values.isEmpty ? "[^/]+" : "(?:" + values.map { NSRegularExpression.escapedPattern(for: $0.lowercased()) }.joined(separator: "|") + ")"
                rest = rest[rest.index(after: close)...]
            }
            pattern = regex + NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        }
        return SpecServer(host: host?.isEmpty == true ? nil : host, basePath: base, url: written, hostPattern: pattern)
    }

    /// The host (lower-cased, without user or port) and the path of a server URL.
    private static func split(_ text: String) -> (host: String?, path: String) {
        if let schemeEnd = text.range(of: "://") {
            let afterScheme = text[schemeEnd.upperBound...]
            let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            var authority = String(afterScheme[..<hostEnd])
            if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
            if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") { authority = String(authority[..<colon]) }
            return (authority.lowercased(), String(afterScheme[hostEnd...]))
        } else if text.hasPrefix("//") {
            let rest = text.dropFirst(2)
            let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            return (String(rest[..<hostEnd]).lowercased(), String(rest[hostEnd...]))
        }
        return (nil, text)
    }
}
#endif
