import Foundation

/// A GraphQL batch (a JSON array of operations in one request body, as Apollo's batching link sends)
/// taken apart so that each operation is answered by its own rule, and the answers put back together.
///
/// Each operation becomes a request of its own: the batch's method, URL and headers with that one
/// operation's JSON object as its body, so rules, templates (`{{graphql.variables.x}}`) and near misses
/// see it exactly as they would see the operation sent alone.
package struct GraphQLBatch: Sendable {
    /// The batch as it was sent.
    package var request: StubRequest
    /// The operations, in the order sent.
    package var operations: [GraphQLOperation]
    /// One request per operation, in the same order.
    package var requests: [StubRequest]

    /// The batch a request carries; `nil` when its body is not a JSON array of GraphQL operations
    /// (or has not been read yet).
    package init?(_ request: StubRequest) {
        // Only an array can be a batch: any other body is not parsed here.
        guard let body = request.body, body.first(where: { !Self.isJSONWhitespace($0) }) == UInt8(ascii: "["),
              case .batch(let operations)? = request.graphQL, case .array(let items)? = request.bodyJSON,
              items.count == operations.count else { return nil }
        self.request = request
        self.operations = operations
        var headers = request.headers
        // The operation's body is not the batch's length.
        headers["content-length"] = nil
        requests = items.map { StubRequest(method: request.method, url: request.url, headers: headers, body: Data($0.description.utf8)) }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// How reports name operation `index` (from 0): `operation 2 (query Search)`.
    package func label(_ index: Int) -> String {
        "operation \(index + 1) (\(operations[index].summary))"
    }

    // MARK: The answer

    /// The batch's answer from each operation's match, in order: status 200, `application/json`, the
    /// body a JSON array of each operation's answer, the longest of their delays.
    ///
    /// An operation answered with a 2xx status and a JSON body gets that body as it is; a JSON object
    /// with `errors` too whatever its status (a GraphQL error answer). Any other answer (another
    /// status, a body that is not JSON, an event stream, a response file that went missing) becomes
    /// `{"errors":[{"message":…}]}` naming the rule and why, so the app sees which operation failed.
    /// A simulated network error fails the whole request (one HTTP exchange cannot half fail): the
    /// first one found is the answer's error.
    ///
    /// The answer's rule names each operation's rule (`GraphQL batch: GetMenu (menu of Pizza Palace), …`)
    /// for the journal and reports; its bundle names theirs.
    package func answer(_ matches: [StubMatch], now: Date) -> StubMatch {
        precondition(matches.count == requests.count, "GraphQLBatch.answer: one match per operation")
        var body = Data("[".utf8)
        var delay: TimeInterval = 0
        var simulated: SimulatedNetworkError?
        for (index, match) in matches.enumerated() {
            delay = max(delay, match.delay)
            if index > 0 { body.append(UInt8(ascii: ",")) }
            if let error = match.response.error {
                simulated = simulated ?? error
                body.append(contentsOf: "null".utf8)
                continue
            }
            body.append(part(match, index: index, now: now))
        }
        body.append(UInt8(ascii: "]"))
        var response = StubResponse(status: 200, body: .json(body), contentType: "application/json", delay: delay, error: simulated)
        response.cacheHeaderFields()
        let names = matches.enumerated().map { index, match in
            "\(operations[index].name ?? operations[index].summary) (\(match.rule.displayName))"
        }
        let source = RuleSource(file: Self.distinct(matches.map(\.rule.source.file)).joined(separator: ", "), position: nil, index: -1,
                                keyPath: matches.map(\.rule.source.keyPath).joined(separator: ", "))
        let rule = StubRule(name: "GraphQL batch: " + names.joined(separator: ", "), source: source, request: RequestConditions(),
                            response: response)
        return StubMatch(rule: rule, bundle: Self.distinct(matches.map(\.bundle)).joined(separator: ", "), parameters: [:],
                         response: response, delay: delay, hit: 0)
    }

    /// The JSON text one operation's match contributes to the batch's body.
    private func part(_ match: StubMatch, index: Int, now: Date) -> Data {
        let rule = "rule \(match.rule.displayName) in \(match.bundle) (\(match.rule.source.locationDescription))"
        if match.response.events != nil {
            return Self.errors("StubKit: \(rule) answers \(label(index)) with an event stream, which a batch answer cannot carry")
        }
        let prepared: PreparedResponse
        switch PreparedResponse.render(match, for: requests[index], now: now) {
        case .failure(let error): return Self.errors(error.localizedDescription)
        case .success(let ready): prepared = ready
        }
        let data: Data
        do {
            data = try prepared.rendered ?? prepared.reader.whole()
        } catch {
            return Self.errors(PreparedResponse.unreadable(match, url: request.url, error).localizedDescription)
        }
        let json = JSONValue(parsing: data)
        var isErrorAnswer = false
        if case .object(let fields)? = json, fields["errors"] != nil { isErrorAnswer = true }
        guard (200...299).contains(prepared.status) || isErrorAnswer else {
            return Self.errors("StubKit: \(rule) answers \(label(index)) with status \(prepared.status)")
        }
        guard let json else {
            return Self.errors("StubKit: \(rule) answers \(label(index)) with a body that is not JSON, which a batch answer cannot carry")
        }
        // The body as written (key order, number spelling), unless its bytes cannot stand in an array as they are.
        let spliceable = data.first != 0xEF && String(data: data, encoding: .utf8) != nil
        return spliceable ? data : Data(json.description.utf8)
    }

    /// `{"errors":[{"message":…}]}`, as a GraphQL server reports an operation it could not run.
    private static func errors(_ message: String) -> Data {
        Data(JSONValue.object(["errors": .array([.object(["message": .string(message)])])]).description.utf8)
    }

    private static func distinct(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}
