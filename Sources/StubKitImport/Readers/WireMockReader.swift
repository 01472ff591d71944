#if Tools
import Foundation
import StubKit

/// Reads WireMock stub mappings: one stub per file, or `{"mappings": [...]}`, with bodies from the
/// `__files` folder beside `mappings`.
///
/// WireMock's lowest-number-wins `priority` (default 5) becomes StubKit's higher-first `priority` as
/// `5 - priority`; `url`/`urlPath` become literal paths, `urlPathTemplate` a path pattern, and
/// `urlPattern`/`urlPathPattern` an anchored `urlRegex`. What has no counterpart is noted per mapping.
enum WireMockReader {
    static let defaultPriority = 5

    /// `__files` beside the nearest `mappings` folder above the file, else beside the file's folder.
    static func filesRoot(for file: URL) -> URL {
        var folder = file.deletingLastPathComponent()
        let start = folder
        while folder.path != "/" {
            if folder.lastPathComponent == "mappings" { return folder.deletingLastPathComponent().appendingPathComponent("__files") }
            folder = folder.deletingLastPathComponent()
        }
        let beside = start.appendingPathComponent("__files")
        return FileManager.default.fileExists(atPath: beside.path) ? beside : start.deletingLastPathComponent().appendingPathComponent("__files")
    }

    static func read(_ data: Data, file: String, filesRoot: URL) throws(ImportError) -> ImportBatch {
        let root = Node(try SourceDocument.json(data, file: file))
        let mappings: [Node]
        if let list = root["mappings"].array {
            mappings = list
        } else if root["request"].object != nil {
            mappings = [root]
        } else {
            throw ImportError(file: file, "a WireMock mapping is an object with 'request' and 'response', or {\"mappings\": [...]}")
        }
        var batch = ImportBatch(format: .wiremock, file: file)
        for mapping in mappings {
            let source = mappings.count == 1 && root["mappings"].array == nil ? file : "\(file): \(mapping.path)"
            guard mapping["request"].object != nil, mapping["response"].object != nil else {
                batch.note(source, "no 'request' or 'response'; mapping not imported")
                continue
            }
            var reader = MappingReader(source: source, filesRoot: filesRoot, file: file)
            if let stub = reader.stub(mapping) { batch.entries.append(.stub(stub)) }
            batch.notes += reader.notes
        }
        return batch
    }
}

/// One mapping: the request conditions, then the response.
private struct MappingReader {
    var source: String
    var filesRoot: URL
    var file: String
    var notes: [ImportNote] = []

    mutating func note(_ message: String) { notes.append(ImportNote(source: source, message: message)) }

    mutating func stub(_ mapping: Node) -> ImportedEntry.Stub? {
        let request = mapping["request"]
        let method = request["method"].string.map { $0.uppercased() == "ANY" ? BundleWriter.ImportedOptions.anyMethod : $0.uppercased() } ?? BundleWriter.ImportedOptions.anyMethod
        var conditions = BundleWriter.RequestConditions(method: method, host: request["host"]["equalTo"].string ?? request["host"].string, path: "/")
        if request["host"].exists, conditions.host == nil {
            note("the condition on 'host' (\(request["host"].keys.joined(separator: ", "))) has no StubKit counterpart and is not carried over; the rule matches any host")
        }
        if let scheme = (request["scheme"].string ?? request["scheme"]["equalTo"].string)?.lowercased(), ["http", "https"].contains(scheme) {
            conditions.scheme = scheme
        } else if request["scheme"].exists {
            note("the 'scheme' condition is not http or https equality and is not carried over; the rule matches any scheme")
        }
        var options = BundleWriter.ImportedOptions()
        options.name = mapping["name"].string ?? (URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent + (source == file ? "" : " " + mapping.path))
        if let url = request["url"].string {
            let parts = url.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            conditions.path = String(parts[0]).isEmpty ? "/" : String(parts[0])
            if parts.count == 2 {
                for item in parts[1].split(separator: "&") {
                    let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    options.query[PercentEncoding.ruleText(ofQuery: pair[0])] = .equals(pair.count > 1 ? PercentEncoding.ruleText(ofQuery: pair[1]) : "")
                }
            }
        } else if let path = request["urlPath"].string {
            conditions.path = path
        } else if let template = request["urlPathTemplate"].string {
            conditions.path = template
            options.pathPattern = template
        } else if let pattern = request["urlPattern"].string {
            conditions.path = pattern
            options.urlRegex = "^[a-zA-Z]+://[^/]*(?:\(pattern))$"
        } else if let pattern = request["urlPathPattern"].string {
            conditions.path = pattern
            options.urlRegex = "^[a-zA-Z]+://[^/?]*(?:\(pattern))(?:\\?.*)?$"
        } else {
            options.pathPattern = "/**"
        }
        pathParameters(request["pathParameters"], options: &options)
        port(request["port"], path: conditions.path, options: &options)
        for key in request.keys where !Self.requestKeys.contains(key) {
            note("the request key '\(key)' has no StubKit counterpart and is not carried over; the rule ignores it")
        }
        for (name, matcher) in conditionsOf(request["queryParameters"]) { options.query[name] = matcher }
        options.headers = conditionsOf(request["headers"])
        if request["cookies"].exists { note("cookie conditions are not carried over (StubKit matches headers, not cookies); the rule ignores cookies") }
        if request["basicAuthCredentials"].exists { note("'basicAuthCredentials' is not carried over; the rule ignores the Authorization header") }
        if request["formParameters"].exists || request["multipartPatterns"].exists { note("form and multipart conditions are not carried over; the rule ignores them") }
        if request["customMatcher"].exists {
            let reading = WireMockGraphQL.customMatcher(request["customMatcher"])
            conditions.graphQL = reading.graphQL
            if let body = reading.body { options.body.append(body) }
            reading.notes.forEach { note($0) }
        }
        for pattern in request["bodyPatterns"].array ?? [] {
            if conditions.graphQL == nil, let reading = WireMockGraphQL.bodyPattern(pattern) {
                conditions.graphQL = reading.graphQL
                continue
            }
            if let body = bodyCondition(pattern) {
                if options.body.contains(where: { $0.key == body.key }) {
                    note("a second '\(body.key)' body pattern is not carried over (one of each kind per rule)")
                } else {
                    options.body.append(body)
                }
            }
        }
        if let priority = mapping["priority"].int { options.priority = WireMockReader.defaultPriority - priority }
        if let scenario = mapping["scenarioName"].string {
            options.scenario = scenario
            options.whenState = mapping["requiredScenarioState"].string
            options.setState = mapping["newScenarioState"].string
        }
        for key in ["postServeActions", "serveEventListeners"] where mapping[key].exists {
            note("'\(key)' (webhooks, callbacks) is not carried over")
        }
        guard let response = response(mapping["response"], templates: &options) else { return nil }
        conditions.options = options
        var stub = ImportedEntry.Stub(source: source, conditions: conditions, response: response)
        stub.matchIdentity = CanonicalJSON.string(["request": request.value ?? NSNull(), "priority": mapping["priority"].value ?? NSNull(),
                                             "scenarioName": mapping["scenarioName"].value ?? NSNull(),
                                             "requiredScenarioState": mapping["requiredScenarioState"].value ?? NSNull()])
        return stub
    }

    // MARK: Request conditions

    /// Request keys read (or noted) by name; any other is noted as not carried over.
    static let requestKeys: Set<String> = ["method", "url", "urlPath", "urlPathTemplate", "urlPattern", "urlPathPattern", "host", "scheme", "port",
                                           "pathParameters", "queryParameters", "headers", "cookies", "basicAuthCredentials", "formParameters",
                                           "multipartPatterns", "bodyPatterns", "customMatcher"]

    /// `pathParameters` of a `urlPathTemplate`: an `equalTo` value becomes that literal segment of the
    /// path pattern; other matchers are noted.
    private mutating func pathParameters(_ node: Node, options: inout BundleWriter.ImportedOptions) {
        for name in node.keys {
            let placeholder = "{\(name)}"
            if let value = node[name]["equalTo"].string, node[name]["caseInsensitive"].bool != true, let pattern = options.pathPattern,
               pattern.contains(placeholder), !value.isEmpty, !value.contains("/"), !value.contains("{"), !value.contains("*") {
                options.pathPattern = pattern.replacingOccurrences(of: placeholder, with: value.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? value)
            } else {
                note("the path parameter condition on '\(name)' (\(node[name].keys.joined(separator: ", "))) is not carried over; the rule matches any value there")
            }
        }
    }

    /// `port`: part of a `urlRegex` for a literal path or a URL regex; noted for a path template.
    private mutating func port(_ node: Node, path: String, options: inout BundleWriter.ImportedOptions) {
        guard node.exists else { return }
        guard let port = node.int ?? node["equalTo"].int, (1...65535).contains(port), options.pathPattern == nil || options.pathPattern == "/**" else {
            note("the 'port' condition is not carried over; the rule matches any port")
            return
        }
        // A default port is not in the URL an app sends.
        let portPart = [80, 443].contains(port) ? "(?::\(port))?" : ":\(port)"
        if let regex = options.urlRegex {
            options.urlRegex = regex.replacingOccurrences(of: "^[a-zA-Z]+://[^/]*", with: "^[a-zA-Z]+://[^/:]*\(portPart)")
                .replacingOccurrences(of: "^[a-zA-Z]+://[^/?]*", with: "^[a-zA-Z]+://[^/?:]*\(portPart)")
        } else if options.pathPattern == "/**" {
            options.pathPattern = nil
            options.urlRegex = "^[a-zA-Z]+://[^/?:]*\(portPart)(?:[/?].*)?$"
        } else {
            options.urlRegex = "^[a-zA-Z]+://[^/?:]*\(portPart)\(Self.escaped(path))(?:\\?.*)?$"
        }
    }

    private mutating func conditionsOf(_ node: Node) -> [String: BundleWriter.ValueCondition] {
        var result: [String: BundleWriter.ValueCondition] = [:]
        for name in node.keys {
            let matcher = node[name]
            if let value = matcher["equalTo"].string {
                if matcher["caseInsensitive"].bool == true {
                    result[name] = .matches("^(?i:\(Self.escaped(value)))$")
                } else {
                    result[name] = .equals(value)
                }
            } else if let regex = matcher["matches"].string {
                result[name] = .matches("^(?:\(regex))$")
            } else if let text = matcher["contains"].string {
                result[name] = .matches(Self.escaped(text))
            } else if matcher["absent"].bool == true {
                result[name] = .absent
            } else {
                note("the condition on '\(name)' (\(matcher.keys.joined(separator: ", "))) has no StubKit counterpart and is not carried over")
            }
        }
        return result
    }

    private mutating func bodyCondition(_ pattern: Node) -> BundleWriter.BodyCondition? {
        if let text = pattern["equalTo"].string { return .equals(text) }
        if pattern["equalToJson"].exists {
            let value = pattern["equalToJson"].value
            let json: Any? = (value as? String).flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8), options: [.fragmentsAllowed]) } ?? (value is String ? nil : value)
            guard let json else {
                note("'equalToJson' holds no valid JSON; not carried over")
                return nil
            }
            let canonical = CanonicalJSON.string(json)
            if pattern["ignoreArrayOrder"].bool == true { note("'ignoreArrayOrder' is not carried over: arrays must keep their order") }
            if pattern["ignoreExtraElements"].bool == true {
                guard json is [String: Any] else {
                    note("'ignoreExtraElements' on a JSON value that is not an object is not carried over; the body must equal it")
                    return .equalsJSON(canonical)
                }
                return .containsJSON(canonical)
            }
            return .equalsJSON(canonical)
        }
        if let text = pattern["contains"].string { return .contains(text) }
        if let regex = pattern["matches"].string { return .matches("^(?:\(regex))$") }
        note("the body pattern '\(pattern.keys.joined(separator: ", "))' has no StubKit counterpart and is not carried over; the rule ignores it")
        return nil
    }

    /// Response keys read (or noted) by name; any other is noted as not carried over.
    static let responseKeys: Set<String> = ["status", "headers", "body", "jsonBody", "base64Body", "bodyFileName", "fixedDelayMilliseconds",
                                            "delayDistribution", "chunkedDribbleDelay", "proxyBaseUrl", "fault", "transformers"]

    static func escaped(_ text: String) -> String {
        NSRegularExpression.escapedPattern(for: text)
    }

    // MARK: Response

    private mutating func response(_ node: Node, templates options: inout BundleWriter.ImportedOptions) -> BundleWriter.Response? {
        let status = node["status"].int ?? 200
        guard (100...599).contains(status) else {
            note("status \(status) is outside 100...599; mapping not imported")
            return nil
        }
        var headers: [String: String] = [:]
        for name in node["headers"].keys {
            let value = node["headers"][name]
            if let text = value.string {
                headers[name] = text
            } else if let items = value.array, items.allSatisfy({ $0.string != nil }) {
                headers[name] = items.compactMap(\.string).joined(separator: ", ")
            } else {
                note("the response header '\(name)' is not text or a list of text; not carried over")
            }
        }
        let bodyKeys = ["body", "jsonBody", "base64Body", "bodyFileName"].filter { node[$0].exists }
        if bodyKeys.count > 1 {
            note("the response gives \(bodyKeys.joined(separator: " and ")); only '\(bodyKeys[0])' is carried over, as WireMock serves")
        }
        for key in node.keys where !Self.responseKeys.contains(key) {
            note("the response key '\(key)' has no StubKit counterpart and is not carried over")
        }
        var body = Data()
        var ext = "txt"
        if let text = node["body"].string {
            body = Data(text.utf8)
            ext = (try? JSONSerialization.jsonObject(with: body)) != nil ? "json" : "txt"
        } else if node["jsonBody"].exists {
            body = (try? JSONSerialization.data(withJSONObject: node["jsonBody"].value!, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])) ?? Data()
            ext = "json"
        } else if let base64 = node["base64Body"].string {
            guard let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
                note("'base64Body' is not base64; mapping not imported")
                return nil
            }
            body = data
            ext = "bin"
        } else if let name = node["bodyFileName"].string {
            if name.contains("{{") {
                note("a templated 'bodyFileName' (\(name)) is not carried over; mapping not imported")
                return nil
            }
            let url = filesRoot.appendingPathComponent(name)
            if !FileContainment.isInside(url, folder: filesRoot) {
                // `../../etc/passwd` or a symlink out of __files: never copy a file from elsewhere into the bundle.
                note("'bodyFileName' \(name) resolves outside \(filesRoot.path) (a '..' or a symbolic link); its body is not imported")
            } else if Self.isFolder(url) {
                // `""`, `.` or `x/..`: inside __files, but no file to carry over.
                note("'bodyFileName' \(name) names a folder, not a file; its body is not imported")
            } else {
                guard let data = FileManager.default.contents(atPath: url.path) else {
                    note("'bodyFileName' \(name) is not in \(filesRoot.path); mapping not imported")
                    return nil
                }
                body = data
                ext = url.pathExtension.isEmpty ? "bin" : url.pathExtension
            }
        }
        if let type = headers.first(where: { $0.key.lowercased() == "content-type" })?.value {
            let fromType = MediaType.fileExtension(for: type)
            if fromType != "bin" || ext == "txt" { ext = fromType }
            if ext == "json", (try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])) == nil, !body.isEmpty { ext = "txt" }
        }
        var response = BundleWriter.Response(status: status, headers: headers, body: .data(body), fileExtension: ext)
        if let delay = node["fixedDelayMilliseconds"].double { response.delay = delay / 1000 }
        for key in ["delayDistribution", "chunkedDribbleDelay"] where node[key].exists {
            note("'\(key)' is not carried over (StubKit has fixed and uniform random delays, and 'throttle')")
        }
        if node["proxyBaseUrl"].exists { note("'proxyBaseUrl' (proxying) is not carried over; the rule answers with the rest of the response") }
        if let fault = node["fault"].string {
            switch fault {
            case "CONNECTION_RESET_BY_PEER": response.error = "networkConnectionLost"
            case "EMPTY_RESPONSE", "MALFORMED_RESPONSE_CHUNK", "RANDOM_DATA_THEN_CLOSE": response.error = "badServerResponse"
            default:
                response.error = "networkConnectionLost"
                note("fault '\(fault)' is simulated as networkConnectionLost")
            }
        }
        var template = WireMockTemplate(headers: headers, body: ext == "bin" ? nil : String(data: body, encoding: .utf8))
        if let pattern = options.pathPattern, let parsed = try? PathPattern(parsing: pattern) {
            template.pathParameters = Set(parsed.components.compactMap { if case .parameter(let name) = $0 { return name } else { return nil } })
        }
        if template.hasPlaceholders {
            if let untranslated = template.translate() {
                note("response template helpers without a StubKit counterpart (\(untranslated.joined(separator: ", "))): served as literal text")
            } else {
                options.template = true
                response.headers = template.headers
                if let text = template.body { response.body = .data(Data(text.utf8)) }
            }
        }
        return response
    }

    private static func isFolder(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
#endif
