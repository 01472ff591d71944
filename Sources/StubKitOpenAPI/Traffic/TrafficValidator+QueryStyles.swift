#if Tools
import Foundation
import StubKit
import StubKitDocuments

extension TrafficValidator {
    /// A query parameter as its style sends it: what was sent (for messages) and the JSON value its
    /// schema reads; `nil` when it was not sent.
    ///
    /// - `form` (the default), exploded: an array is the repeated items, an object its properties as
    ///   items of their own (`?lat=1&lng=2`); not exploded: comma-separated (`?ids=1,2`, `?point=lat,1,lng,2`).
    /// - `spaceDelimited`, `pipeDelimited`: an array's items joined by a space or `|`.
    /// - `deepObject`: an object's properties as `name[property]` items (`?filter[status]=open`).
    static func queryParameter(_ name: String, parameter: SourceValue, schema: SourceValue, items: [URLQueryItem],
                               otherNames: Set<String> = [], spec: OpenAPISpec) -> (raw: [String], value: SourceValue)? {
        let resolved = spec.resolved(schema)
        let style = parameter["style"]?.stringValue ?? "form"
        let explode: Bool
        if case .bool(let written)? = parameter["explode"]?.kind { explode = written } else { explode = style == "form" }
        if Self.isType("object", resolved) {
            let properties = resolved["properties"]?.dictionaryValue ?? []
            func object(_ pairs: [(String, String)]) -> SourceValue {
                SourceValue(.dictionary(pairs.map { key, text in
                    let propertySchema = properties.first { $0.key == key }?.value ?? resolved["additionalProperties"] ?? SourceValue(.dictionary([]))
                    return SourceValue.Entry(key: key, keyPosition: nil, value: OperationMatcher.parameterValue(text, schema: propertySchema, spec: spec))
                }))
            }
            switch style {
            case "deepObject":
                let prefix = name + "["
                let sent = items.filter { $0.name.hasPrefix(prefix) && $0.name.hasSuffix("]") }
                guard !sent.isEmpty else { return nil }
                // `name[a][b]=v` is {"a": {"b": v}}; nesting past a bound stays one key, so no input runs deep.
                let paths = sent.map { item -> [String] in
                    let keys = item.name.dropFirst(prefix.count).dropLast().components(separatedBy: "][")
                    return keys.count > Self.maximumDeepObjectNesting
                        ? Array(keys.prefix(Self.maximumDeepObjectNesting - 1)) + [keys.dropFirst(Self.maximumDeepObjectNesting - 1).joined(separator: "][")] : keys
                }
                let shown = zip(sent, paths).map { item, path in Self.shownPair(item.name, property: path.last ?? "", value: item.value ?? "") }
                return (shown, Self.deepObject(zip(paths, sent.map { $0.value ?? "" }).map { ($0, $1) }, schema: resolved, spec: spec))
            case "form" where explode:
                // Its properties' items; with `additionalProperties`, every item no other parameter names.
                let names = Set(properties.map(\.key))
                let open = resolved["additionalProperties"].map { if case .bool(false) = $0.kind { false } else { true } } ?? false
                let sent = items.filter { names.contains($0.name) || (open && !otherNames.contains($0.name)) }
                guard !sent.isEmpty else { return nil }
                return (sent.map { Self.shownPair($0.name, property: $0.name, value: $0.value ?? "") }, object(sent.map { ($0.name, $0.value ?? "") }))
            default:
                guard let text = items.first(where: { $0.name == name })?.value else { return nil }
                let parts = text.split(separator: Self.delimiter(style), omittingEmptySubsequences: false).map(String.init)
                let pairs = stride(from: 0, to: parts.count - 1, by: 2).map { (parts[$0], parts[$0 + 1]) }
                return ([text], object(pairs))
            }
        }
        let sent = items.filter { $0.name == name }.map { $0.value ?? "" }
        guard !sent.isEmpty else { return nil }
        guard Self.isType("array", resolved) else { return (sent, OperationMatcher.parameterValue(sent[0], schema: schema, spec: spec)) }
        let values = explode ? sent : sent.flatMap { $0.split(separator: Self.delimiter(style), omittingEmptySubsequences: false).map(String.init) }
        let itemSchema = resolved["items"] ?? SourceValue(.dictionary([]))
        return (sent, SourceValue(.array(values.map { OperationMatcher.parameterValue($0, schema: itemSchema, spec: spec) })))
    }

    static let maximumDeepObjectNesting = 32

    /// deepObject items as nested objects, each value typed by its property's schema.
    static func deepObject(_ pairs: [([String], String)], schema: SourceValue, spec: OpenAPISpec) -> SourceValue {
        let resolved = spec.resolved(schema)
        var order: [String] = []
        var groups: [String: [([String], String)]] = [:]
        for (path, text) in pairs {
            guard let first = path.first else { continue }
            if groups[first] == nil { order.append(first) }
            groups[first, default: []].append((Array(path.dropFirst()), text))
        }
        return SourceValue(.dictionary(order.map { key in
            let child = resolved["properties"]?[key] ?? resolved["additionalProperties"] ?? SourceValue(.dictionary([]))
            let members = groups[key] ?? []
            let value = members.first { $0.0.isEmpty }.map { OperationMatcher.parameterValue($0.1, schema: child, spec: spec) }
                ?? deepObject(members, schema: child, spec: spec)
            return SourceValue.Entry(key: key, keyPosition: nil, value: value)
        }))
    }

    /// `name=value` as a message prints it, the value concealed under a secret's name (`creds[token]`).
    static func shownPair(_ name: String, property: String, value: String) -> String {
        concealer.isSecret(property, in: .parameter) ? "\(name)=\(Redactor.placeholder)" : "\(name)=\(value)"
    }

    static func delimiter(_ style: String) -> Character {
        switch style {
        case "spaceDelimited": " "
        case "pipeDelimited": "|"
        default: ","
        }
    }

    static func isType(_ type: String, _ schema: SourceValue) -> Bool {
        schema["type"]?.stringValue == type || schema["type"]?.arrayValue?.contains { $0.stringValue == type } == true
            || (schema["type"] == nil && type == "object" && schema["properties"] != nil)
    }
}
#endif
