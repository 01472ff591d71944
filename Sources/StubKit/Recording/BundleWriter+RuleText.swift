import Foundation

/// The JSON of one rule: the request conditions as rule keys, then its response or response sequence.
extension BundleWriter {
    static func rule(_ request: RequestConditions, _ responses: [Stored], urlRegex: Bool = false, orderedQuery: Bool = false) -> JSONText {
        // A GraphQL rule says which operation: every one of them shares the endpoint's method and path.
        let operation = request.graphQL?.operationName.map { " " + $0 } ?? ""
        var pairs: [(String, JSONText)] = [entry(.name, .string(request.options.name ?? "\(request.method) \(request.path)\(operation)"))]
        if request.method != ImportedOptions.anyMethod { pairs.append(entry(.method, .string(request.method))) }
        if let scheme = request.scheme { pairs.append(entry(.scheme, .string(scheme))) }
        if let host = request.host { pairs.append(entry(.host, .string(host))) }
        if let regex = request.options.urlRegex {
            pairs.append(entry(.urlRegex, .string(regex)))
        } else if urlRegex {
            pairs.append(entry(.urlRegex, .string(Self.urlRegex(request, orderedQuery: orderedQuery))))
        } else {
            pairs.append(entry(.path, .string(request.options.pathPattern ?? literalPattern(request.path, anySegments: request.anySegments))))
        }
        if !request.query.isEmpty {
            pairs.append(entry(.query, .object(request.query.keys.sorted().map { name in
                switch request.query[name]! {
                case .equals(let value): return (name, Self.queryEquals(value))
                case .present: return (name, ValueCondition.present.json)
                }
            })))
        }
        pairs += request.options.conditionKeys
        if let graphQL = request.graphQL { pairs.append(entry(.graphql, graphQL.json)) }
        if let body = request.body {
            let condition: (String, JSONText)
            switch body {
            case .equals(let text): condition = BodyCondition.equals(text).json
            case .equalsJSON(let json): condition = BodyCondition.equalsJSON(json).json
            case .containsJSON(let json): condition = BodyCondition.containsJSON(json).json
            }
            pairs.append(entry(.requestBody, .object([condition])))
        }
        pairs += request.options.ruleKeys
        if let script = responses.first?.webSocket {
            pairs.append(entry(.webSocket, script))
        } else if responses.count == 1 {
            pairs += responseKeys(responses[0])
        } else {
            pairs.append(entry(.responses, .array(responses.map { .object(responseKeys($0)) })))
        }
        return .object(pairs)
    }

    static func responseKeys(_ stored: Stored) -> [(String, JSONText)] {
        var pairs: [(String, JSONText)] = [entry(.status, .int(stored.status))]
        if !stored.headers.isEmpty {
            pairs.append(entry(.headers, .object(stored.headers.keys.sorted().map { ($0, .string(stored.headers[$0]!)) })))
        }
        if let file = stored.file { pairs.append(entry(.response, .string(file))) }
        if let delay = stored.delay, delay > 0 { pairs.append(entry(.delay, .raw(ImportedOptions.number(delay)))) }
        if let error = stored.error { pairs.append(entry(.error, .string(error))) }
        if let stream = stored.events {
            pairs.append(entry(.events, .array(stream.events.map { .object(eventKeys($0)) })))
            if stream.keepsOpen { pairs.append(entry(.keepOpen, .bool(true))) }
        }
        return pairs
    }

    /// One event as a rule writes it: `data` always as text (what was received, never re-serialized
    /// JSON), `delay` only when there is one.
    static func eventKeys(_ event: EventStream.Event) -> [(String, JSONText)] {
        typealias Field = RuleKey.EventField
        var pairs: [(String, JSONText)] = []
        if let comment = event.comment { pairs.append((Field.comment.rawValue, .string(comment))) }
        if let name = event.event { pairs.append((Field.event.rawValue, .string(name))) }
        if let id = event.id { pairs.append((Field.id.rawValue, .string(id))) }
        if let retry = event.retry { pairs.append((Field.retry.rawValue, .int(retry))) }
        if let data = event.data { pairs.append((Field.data.rawValue, .string(data))) }
        if event.delay > 0 { pairs.append((Field.delay.rawValue, .raw(ImportedOptions.number(event.delay)))) }
        return pairs
    }

    /// `key` and `value` as one entry of a rule's JSON object.
    static func entry(_ key: RuleKey, _ value: JSONText) -> (String, JSONText) { (key.rawValue, value) }

    static func parsed(_ json: String) -> JSONText {
        (try? JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])).map(JSONText.from(any:)) ?? .string(json)
    }
}
