/// The `graphql` condition of a rule: which GraphQL operation it answers.
extension RulesDecoder {
    mutating func graphQLCondition(_ value: SourceValue, keyPath: @autoclosure () -> String) -> GraphQLCondition? {
        guard let entries = value.dictionaryValue else {
            wrongType(value, keyPath: keyPath(), expected: "a dictionary of GraphQL conditions (operationName, operationType, variables, variablesEqual, persistedQuery, document)")
            return nil
        }
        if entries.isEmpty {
            report(.invalidValue, at: value.position, keyPath: keyPath(), "no GraphQL condition given",
                   fix: "add \"operationName\": \"GetMenu\" (or operationType, variables, persistedQuery, document)")
        }
        var condition = GraphQLCondition()
        var seen = SeenKeys(capacity: entries.count)
        for entry in entries {
            guard checkDuplicate(entry, keyPath: keyPath(), seen: &seen) else { continue }
            let path = "\(keyPath()).\(entry.key)"
            switch RuleKey.GraphQLKey(rawValue: entry.key) {
            case .operationName:
                guard let name = string(entry.value, keyPath: path) else { continue }
                if Self.isGraphQLName(name) {
                    condition.operationName = name
                } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'\(name)' is not a GraphQL operation name",
                           fix: "a name is letters, digits and '_', not starting with a digit, as in GetMenu")
                }
            case .operationType:
                guard let text = string(entry.value, keyPath: path) else { continue }
                if let type = GraphQLOperationType(rawValue: text) {
                    condition.operationType = type
                } else {
                    let options = GraphQLOperationType.allCases.map(\.rawValue)
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'\(text)' is not a GraphQL operation type",
                           fix: Suggestion.closest(to: text.lowercased(), in: options).map { "did you mean '\($0)'?" } ?? "use one of: " + options.joined(separator: ", "))
                }
            case .variables, .variablesEqual:
                guard case .dictionary = entry.value.kind else {
                    wrongType(entry.value, keyPath: path, expected: "a JSON object of variables")
                    continue
                }
                if entry.key == RuleKey.GraphQLKey.variables.rawValue {
                    condition.variables = JSONValue(entry.value)
                } else {
                    condition.variablesEqual = JSONValue(entry.value)
                }
            case .persistedQuery:
                guard let hash = string(entry.value, keyPath: path) else { continue }
                if hash.utf8.count == 64, hash.utf8.allSatisfy({ Self.isHexDigit($0) }) {
                    condition.persistedQuery = hash.lowercased()
                } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'\(hash)' is not a SHA-256 hash (64 hexadecimal digits), as Apollo's persisted queries send in extensions.persistedQuery.sha256Hash",
                           fix: "copy the hash the client sends, or match the operation by operationName")
                }
            case .document:
                guard let text = string(entry.value, keyPath: path) else { continue }
                if let presence = GraphQLCondition.DocumentPresence(rawValue: text) {
                    condition.document = presence
                } else {
                    report(.invalidValue, at: entry.value.position, keyPath: path, "'\(text)' is not 'present' or 'absent'",
                           fix: "\"absent\" matches a persisted query sent as its hash only; \"present\" one that sends its document")
                }
            case nil:
                unknownKey(entry, keyPath: keyPath(), candidates: RuleKey.GraphQLKey.allCases.map(\.rawValue))
            }
        }
        if condition.variables != nil, condition.variablesEqual != nil,
           let both = entries.first(where: { $0.key == RuleKey.GraphQLKey.variablesEqual.rawValue }) {
            report(.conflictingKeys, at: both.keyPosition, keyPath: "\(keyPath()).\(both.key)", "'variables' and 'variablesEqual' cannot be used together",
                   fix: "keep 'variables' for the fields that must be there, or 'variablesEqual' for the whole set")
        }
        return condition
    }

    /// A rule that tells GraphQL operations apart by `operationName` in its body misses the requests
    /// that do not send it (a document with one operation, a GET, a batch): `graphql` reads them all.
    mutating func noteOperationNameInBody(_ request: RequestConditions, entries: [SourceValue.Entry], keyPath: String) {
        guard !isRecorded, request.graphQL == nil else { return }
        for matcher in request.body {
            guard case .containsJSON(.object(let fields)) = matcher, case .string(let name)? = fields["operationName"] else { continue }
            let entry = entries.first { $0.key == RuleKey.requestBody.rawValue }
            report(.operationNameInBody, at: entry?.value.position, keyPath: "\(keyPath).requestBody.containsJSON.operationName",
                   "the rule matches GraphQL's 'operationName' in the body, which misses clients that send a document without it, GETs, persisted queries and batches",
                   fix: "write \"graphql\": {\"operationName\": \"\(name)\"} instead")
            return
        }
    }

    /// A GraphQL name: `/[_A-Za-z][_0-9A-Za-z]*/`.
    static func isGraphQLName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return text.utf8.allSatisfy { byte in
            byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }
}
