import Foundation
import StubKit

/// One operation of an OpenAPI document: a method on a path template, with its responses.
public struct SpecOperation: Sendable {
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    /// Upper-cased: `GET`.
    public var method: String
    /// The path template as the spec writes it: `/pets/{petId}`.
    public var path: String
    public var segments: [Segment]
    /// The operation object.
    var node: SourceValue
    /// Path parameters by name: their schemas (the operation's own override the path item's).
    var pathParameters: [String: SourceValue]
    /// `operationId`, when the spec gives one.
    public var operationID: String?
    /// Where the operation's method key sits in the spec.
    public var position: SourcePosition?

    /// `GET /pets/{petId}`: how diagnostics name the operation.
    public var label: String { "\(method) \(path)" }

    /// `paths./pets/{petId}.get`: where the operation sits in the spec.
    var keyPath: String { "paths.\(path).\(method.lowercased())" }

    /// The documented responses, in the spec's order: status (`200`, `2XX`, `default`) and response object.
    var responses: [SourceValue.Entry] { node["responses"]?.dictionaryValue ?? [] }

    static func segments(of path: String) -> [Segment] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { piece in
            if piece.hasPrefix("{"), piece.hasSuffix("}"), piece.count > 2 { return .parameter(String(piece.dropFirst().dropLast())) }
            return .literal(String(piece).removingPercentEncoding ?? String(piece))
        }
    }
}

/// Where a spec's `servers` put its operations: a host (when the URL names one) and a base path.
public struct SpecServer: Sendable, Hashable {
    /// Lower-cased; `nil` for a relative server URL (`/api/v3`), which matches any host.
    public var host: String?
    public var basePath: [String]
    /// The URL as written, for messages.
    public var url: String

    /// Reads a server URL, filling `{variables}` with their defaults.
    static func parse(_ server: SourceValue) -> SpecServer? {
        guard var text = server["url"]?.stringValue else { return nil }
        let written = text
        for entry in server["variables"]?.dictionaryValue ?? [] {
            if let value = entry.value["default"]?.stringValue { text = text.replacingOccurrences(of: "{\(entry.key)}", with: value) }
        }
        var host: String? = nil
        var path = text
        if let schemeEnd = text.range(of: "://") {
            let afterScheme = text[schemeEnd.upperBound...]
            let hostEnd = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
            var authority = String(afterScheme[..<hostEnd])
            if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
            if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") { authority = String(authority[..<colon]) }
            host = authority.lowercased()
            path = String(afterScheme[hostEnd...])
        } else if text.hasPrefix("//") {
            let rest = text.dropFirst(2)
            let hostEnd = rest.firstIndex(of: "/") ?? rest.endIndex
            host = String(rest[..<hostEnd]).lowercased()
            path = String(rest[hostEnd...])
        }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        let base = path.split(separator: "/").map { String($0).removingPercentEncoding ?? String($0) }
        return SpecServer(host: host?.isEmpty == true ? nil : host, basePath: base, url: written)
    }
}
