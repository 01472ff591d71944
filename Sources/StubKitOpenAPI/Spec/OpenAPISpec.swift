#if Tools
// The OpenAPI document as the checks read it.
//
// OpenAPIKit decodes the document first (3.0 with OpenAPIKit30, 3.1 and 3.2 with OpenAPIKit): a file
// that is not a valid OpenAPI document is refused with its message, so the checks never guess at a
// broken spec. The checks themselves then walk the document's own tree (YAML or JSON read into
// StubKit's `SourceValue`, with lines and columns), for three reasons:
// - schemas are validated as JSON Schema text, keyword by keyword, the way python-jsonschema (the test
//   oracle) reads them; OpenAPIKit's schema model normalises keywords (3.0 `nullable` and 3.1 `type`
//   arrays become one form, unknown keywords and some combinations are folded) and a validator over it
//   would check OpenAPIKit's reading rather than the document;
// - 3.0 and 3.1 differ in exactly the places a validator cares about (`nullable` against `type: [.., null]`,
//   boolean against numeric `exclusiveMinimum`, `$ref` siblings), and a flag on one walker says so
//   plainly (`SchemaDialect`);
// - every diagnostic can name the spec's line for the operation it talks about.
import Foundation
import OpenAPIKit
import OpenAPIKit30
import StubKit
import StubKitDocuments
import Yams

/// How a document's schemas are read.
package enum SchemaDialect: Sendable, Hashable {
    /// OpenAPI 3.0: `nullable`, one `type`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `$ref` alone.
    case openAPI30
    /// OpenAPI 3.1 and 3.2: JSON Schema 2020-12 (`type` arrays, `null`, `const`, numeric exclusive bounds).
    case jsonSchema2020
}

/// A loaded OpenAPI document: its operations, servers and the tree their schemas live in.
package struct OpenAPISpec: Sendable {
    /// The servers as written, each once (a server whose path has variables stands for several).
    package var serverURLs: String {
        var seen = Set<String>()
        return servers.map(\.url).filter { seen.insert($0).inserted }.joined(separator: ", ")
    }

    /// The file as diagnostics name it.
    package var file: String
    /// `3.0.3`, `3.1.0`, …
    package var version: String
    package var dialect: SchemaDialect
    package var title: String
    package var servers: [SpecServer]
    /// In the document's order.
    package var operations: [SpecOperation]
    let root: SourceValue

    /// Why a document cannot be used.
    package struct LoadError: Error, Sendable, CustomStringConvertible {
        package var file: String
        package var position: SourcePosition?
        package var message: String
        package var description: String { "\(file)\(position.map { ":\($0.line):\($0.column)" } ?? ""): \(message)" }

        /// The diagnostic that reports it.
        package var diagnostic: Diagnostic { Diagnostic(.unreadableSpec, file: file, position: position, message: message) }
    }

    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace", "query"]

    /// Reads and checks an OpenAPI 3.0, 3.1 or 3.2 document, YAML or JSON.
    ///
    /// - Parameter display: the name diagnostics use for the file (default: its path).
    package static func load(_ url: URL, display: String? = nil) throws(LoadError) -> OpenAPISpec {
        let name = display ?? url.path
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw LoadError(file: name, message: "cannot be read: \(error.localizedDescription)") }
        return try load(data, fileName: url.lastPathComponent, display: name)
    }

    static func load(_ data: Data, fileName: String, display name: String) throws(LoadError) -> OpenAPISpec {
        let root: SourceValue
        do { root = try SpecValueReader.read(data, fileName: fileName) } catch { throw LoadError(file: name, position: error.position, message: error.message) }
        guard root.dictionaryValue != nil else { throw LoadError(file: name, position: root.position, message: "not an OpenAPI document: the top level is \(root.typeDescription), not a mapping") }
        guard let version = root["openapi"]?.stringValue ?? root["openapi"].map({ JSONValue($0).description }) else {
            let hint = root["swagger"] != nil ? "Swagger 2.0 is not read; convert it to OpenAPI 3 first" : "it has no 'openapi' version"
            throw LoadError(file: name, position: root.position, message: "not an OpenAPI 3 document: \(hint)")
        }
        let dialect: SchemaDialect
        if version.hasPrefix("3.0") { dialect = .openAPI30 } else if version.hasPrefix("3.1") || version.hasPrefix("3.2") { dialect = .jsonSchema2020 } else {
            throw LoadError(file: name, position: root["openapi"]?.position, message: "OpenAPI version '\(version)' is not read; StubKit reads 3.0, 3.1 and 3.2")
        }
        try validateWithOpenAPIKit(data, json: SpecValueReader.isJSON(data, fileName: fileName), dialect: dialect, file: name)

        let servers = (root["servers"]?.arrayValue ?? []).flatMap(SpecServer.parseAll)
        var operations: [SpecOperation] = []
        for pathEntry in root["paths"]?.dictionaryValue ?? [] where pathEntry.key.hasPrefix("/") {
            let item = resolved(pathEntry.value, in: root)
            let shared = pathParameters(item["parameters"], in: root)
            for entry in item.dictionaryValue ?? [] where methods.contains(entry.key) {
                var parameters = shared
                parameters.merge(pathParameters(entry.value["parameters"], in: root)) { _, own in own }
                operations.append(SpecOperation(method: entry.key.uppercased(), path: pathEntry.key, segments: SpecOperation.segments(of: pathEntry.key),
                                                node: entry.value, pathParameters: parameters,
                                                parameters: allParameters(item["parameters"], entry.value["parameters"], in: root),
                                                operationID: entry.value["operationId"]?.stringValue, position: entry.keyPosition))
            }
        }
        return OpenAPISpec(file: name, version: version, dialect: dialect, title: root["info"]?["title"]?.stringValue ?? "",
                           servers: servers.isEmpty ? [SpecServer(host: nil, basePath: [], url: "/")] : servers, operations: operations, root: root)
    }

    /// OpenAPIKit's decoding: the document's structure as the specification defines it.
    private static func validateWithOpenAPIKit(_ data: Data, json: Bool, dialect: SchemaDialect, file: String) throws(LoadError) {
        do {
            switch (dialect, json) {
            case (.openAPI30, true): _ = try JSONDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
            case (.openAPI30, false): _ = try YAMLDecoder().decode(OpenAPIKit30.OpenAPI.Document.self, from: data)
            case (.jsonSchema2020, true): _ = try JSONDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            case (.jsonSchema2020, false): _ = try YAMLDecoder().decode(OpenAPIKit.OpenAPI.Document.self, from: data)
            }
        } catch {
            let message = dialect == .openAPI30 ? OpenAPIKit30.OpenAPI.Error(from: error).localizedDescription : OpenAPIKit.OpenAPI.Error(from: error).localizedDescription
            throw LoadError(file: file, message: "not a valid OpenAPI document: \(message)")
        }
    }

    /// Path parameters: name to schema (a parameter without a schema accepts any text).
    private static func pathParameters(_ list: SourceValue?, in root: SourceValue) -> [String: SourceValue] {
        var result: [String: SourceValue] = [:]
        for parameter in list?.arrayValue ?? [] {
            let parameter = resolved(parameter, in: root)
            guard parameter["in"]?.stringValue == "path", let name = parameter["name"]?.stringValue else { continue }
            result[name] = parameter["schema"] ?? SourceValue(.dictionary([]))
        }
        return result
    }

    /// Every parameter object of an operation, resolved: the path item's, then the operation's, which
    /// replace the path item's of the same name and location.
    private static func allParameters(_ shared: SourceValue?, _ own: SourceValue?, in root: SourceValue) -> [SourceValue] {
        let ownList = (own?.arrayValue ?? []).map { resolved($0, in: root) }
        func key(_ p: SourceValue) -> String { "\(p["in"]?.stringValue ?? "")\u{0}\(p["name"]?.stringValue ?? "")" }
        let ownKeys = Set(ownList.map(key))
        return (shared?.arrayValue ?? []).map { resolved($0, in: root) }.filter { !ownKeys.contains(key($0)) } + ownList
    }

    /// Follows a local `$ref` chain (`#/components/...`) to the value it names; other values as they are.
    static func resolved(_ value: SourceValue, in root: SourceValue) -> SourceValue {
        var current = value
        var seen = Set<String>()
        while let ref = current["$ref"]?.stringValue, ref.hasPrefix("#"), seen.insert(ref).inserted,
              let target = root.value(atPointer: String(ref.dropFirst())) {
            current = target
        }
        return current
    }

    func resolved(_ value: SourceValue) -> SourceValue { Self.resolved(value, in: root) }
}
#endif
