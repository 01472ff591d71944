import Foundation

/// How the writer turns a recorded request into a rule's `path` or `urlRegex`, and its response file's name.
extension BundleWriter {
    /// Groups that `path`, `host`, `scheme` and `query` conditions cannot tell apart (`/a` and `/a/`,
    /// two ports, a repeated query name): each gets a `urlRegex` that pins the whole URL instead of a
    /// `path`, so none shadows another. The rest keep the readable `path`. `ordered` are the groups
    /// whose query the regex pins in recorded order: those with a repeated name, and those sharing an
    /// endpoint with one (`?id=1` beside `?id=1&id=2`, which a `query` condition alone cannot refuse).
    static func groupsNeedingURLRegex(_ requests: [RequestConditions]) -> (pinned: Set<Int>, ordered: Set<Int>) {
        var pinned: Set<Int> = [], ordered: Set<Int> = []
        var seen: [RequestConditions: [Int]] = [:]
        for (i, request) in requests.enumerated() {
            if request.exactQuery != nil { pinned.insert(i) }
            var visible = request
            visible.port = nil
            visible.exactQuery = nil
            visible.path = "/" + request.path.split(separator: "/").joined(separator: "/")
            seen[visible, default: []].append(i)
        }
        for indexes in seen.values where indexes.count > 1 {
            pinned.formUnion(indexes)
            if indexes.contains(where: { requests[$0].exactQuery != nil }) { ordered.formUnion(indexes) }
        }
        ordered.formUnion(pinned.filter { requests[$0].exactQuery != nil })
        return (pinned, ordered)
    }

    /// `^https://host(:443)?/exact/path(\?[^#]*)?(#.*)?$`: scheme, host, port and the path with its
    /// trailing slash, as sent. The query is any (the rule's `query` conditions match it, in any order
    /// and encoding) unless `orderedQuery`: then ``RequestConditions/exactQuery`` or, failing that,
    /// ``RequestConditions/recordedQuery``, in recorded order.
    static func urlRegex(_ request: RequestConditions, orderedQuery: Bool = false) -> String {
        var pattern = "^" + (request.scheme.map(regexEscaped) ?? "https?") + "://"
        pattern += request.host.map(regexEscaped) ?? "[^/?#:]+"
        if let port = request.port {
            pattern += ":\(port)"
        } else {
            pattern += request.scheme == "https" ? "(:443)?" : request.scheme == "http" ? "(:80)?" : "(:[0-9]+)?"
        }
        pattern += mapSegments(request.path, anySegments: request.anySegments, any: "[^/?#]+") { regexEscaped(String($0)) }
        let query = request.exactQuery ?? (orderedQuery ? request.recordedQuery : nil)
        pattern += query.map { "\\?" + $0 } ?? "(\\?[^#]*)?"
        return pattern + "(#.*)?$"
    }

    /// `text` as a regular expression that matches only itself.
    package static func regexEscaped(_ text: String) -> String {
        var out = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// The path as a pattern of literal segments: `{`, `}` and `*` are percent-encoded, which a
    /// pattern reads as a literal segment that matches them after decoding; `anySegments` become `*`.
    static func literalPattern(_ path: String, anySegments: Set<Int> = []) -> String {
        let pattern = mapSegments(path, anySegments: anySegments, any: "*") { segment in
            var pattern = ""
            for character in segment {
                switch character {
                case "{": pattern += "%7B"
                case "}": pattern += "%7D"
                case "*": pattern += "%2A"
                default: pattern.append(character)
                }
            }
            return pattern
        }
        return pattern.hasPrefix("/") ? pattern : "/" + pattern
    }

    /// `GET_restaurants_1_menu.json`, then `GET_restaurants_1_menu_2.json`, … for the next ones.
    static func uniqueName(for request: RequestConditions, extension ext: String, taken: Set<String>) -> String {
        let segments = request.path.split(separator: "/").map { segment -> String in
            let decoded = PercentEncoding.decoded(segment)
            let mapped = String(decoded.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") ? $0 : "_" })
            return mapped.split(separator: "_").joined(separator: "_")
        }.filter { !$0.isEmpty }
        var base = ([request.method] + (segments.isEmpty ? ["root"] : segments)).joined(separator: "_")
        if let chosen = request.options.fileBaseName.map({ String($0.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") ? $0 : "_" }) }),
           !chosen.isEmpty {
            base = chosen
        }
        if base.count > 80 { base = String(base.prefix(80)) }
        let suffix = ext.isEmpty ? "" : "." + ext
        var name = base + suffix
        var counter = 2
        while taken.contains(name.lowercased()) || RuleKeys.rulesFileNames.contains(name) {
            name = "\(base)_\(counter)\(suffix)"
            counter += 1
        }
        return name
    }

    /// `path` with each non-empty segment rewritten: `any` for the indexes in `anySegments` (counting
    /// non-empty segments from 0), `literal` for the others; empty segments (a trailing `/`) kept.
    private static func mapSegments(_ path: String, anySegments: Set<Int>, any: String, literal: (Substring) -> String) -> String {
        var index = 0
        return path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard !segment.isEmpty else { return "" }
            defer { index += 1 }
            return anySegments.contains(index) ? any : literal(segment)
        }.joined(separator: "/")
    }
}
