import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// GraphQL requests are recorded as `graphql` conditions (operation, variables, a persisted query
/// sent as its hash) rather than as the bytes of their bodies, so a replay answers the operation
/// however the client prints its document.
struct RecordingGraphQLConditionsTests {
    static let endpoint = URL(string: "https://api.takeaway.test/graphql")!
    static let getMenu = "query GetMenu($id: ID!, $page: Int) { restaurant(id: $id) { id menu(page: $page) { name } } }"

    static func post(_ body: String, contentType: String = "application/json") -> StubRequest {
        StubRequest(method: "POST", url: endpoint, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }

    static func operation(_ document: String?, name: String? = nil, variables: String? = nil, hash: String? = nil) -> StubRequest {
        var fields: [String] = []
        if let document { fields.append(#""query":\#(quoted(document))"#) }
        if let name { fields.append(#""operationName":"\#(name)""#) }
        if let variables { fields.append(#""variables":\#(variables)"#) }
        if let hash { fields.append(#""extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(hash)"}}"#) }
        return post("{" + fields.joined(separator: ",") + "}")
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }

    /// Records each request answered with `answer <i>` (or the body given) and returns the linted bundle's engine.
    func record(_ requests: [(StubRequest, String?)], in folder: TemporaryFolder, configuration: ((inout RecorderConfiguration) -> Void)? = nil,
                sourceLocation: SourceLocation = #_sourceLocation) throws -> (engine: StubEngine, rules: String, recorder: Recorder) {
        var settings = RecorderConfiguration(template: "rec", folder: folder.url)
        configuration?(&settings)
        let recorder = try Recorder(configuration: settings)
        for (i, (request, body)) in requests.enumerated() {
            let capture = try #require(recorder.makeCapture(), sourceLocation: sourceLocation)
            capture.append(Data((body ?? #"{"data":{"answer":\#(i)}}"#).utf8))
            _ = try recorder.record(request, status: 200, headers: ["Content-Type": "application/json"], capture: capture).get()
        }
        let result = BundleLoader(options: .lint).load(folder: recorder.writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))", sourceLocation: sourceLocation)
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        let rules = try String(contentsOf: recorder.writer.rulesFile, encoding: .utf8)
        return (engine, rules, recorder)
    }

    func answer(_ engine: StubEngine, _ request: StubRequest) -> String? {
        guard case .answer(let match) = engine.decision(for: request) else { return nil }
        switch match.response.body {
        case .file(let file): return try? String(contentsOf: file, encoding: .utf8)
        case .inline(let data): return String(decoding: data, as: UTF8.self)
        default: return nil
        }
    }

    @Test("an operation is recorded by name, type and exact variables, and replays for the same operation printed differently")
    func byOperation() throws {
        let folder = try TemporaryFolder()
        let (engine, rules, _) = try record([(Self.operation(Self.getMenu, name: "GetMenu", variables: #"{"id":"r1"}"#), nil)], in: folder)
        #expect(rules.contains(#""graphql""#) && rules.contains(#""operationName": "GetMenu""#) && rules.contains(#""operationType": "query""#))
        #expect(rules.contains(#""variablesEqual""#))
        #expect(!rules.contains("requestBody"), "no body match for a GraphQL operation: \(rules)")
        // Another client prints the document on several lines, leaves out operationName and orders the fields otherwise.
        let reprinted = Self.post(#"{"variables":{"id":"r1"},"query":"query GetMenu($id: ID!, $page: Int) {\n  restaurant(id: $id) {\n    id\n    menu(page: $page) { name }\n  }\n}"}"#)
        #expect(answer(engine, reprinted) == #"{"data":{"answer":0}}"#)
        #expect(answer(engine, Self.operation(Self.getMenu, name: "GetMenu", variables: #"{"id":"r2"}"#)) == nil, "other variables are another request")
    }

    @Test("two calls of one operation with variables where one holds the other's become two rules, each answering its own call")
    func variablesPrecedence() throws {
        let folder = try TemporaryFolder()
        let narrow = Self.operation(Self.getMenu, name: "GetMenu", variables: #"{"id":"r1"}"#)
        let wide = Self.operation(Self.getMenu, name: "GetMenu", variables: #"{"id":"r1","page":2}"#)
        let none = Self.operation("query GetMenu { restaurant(id: \"r0\") { id } }", name: "GetMenu")
        let (engine, _, recorder) = try record([(none, nil), (narrow, nil), (wide, nil)], in: folder)
        #expect(recorder.writer.ruleCount == 3)
        #expect(answer(engine, none) == #"{"data":{"answer":0}}"#)
        #expect(answer(engine, narrow) == #"{"data":{"answer":1}}"#)
        #expect(answer(engine, wide) == #"{"data":{"answer":2}}"#)
    }

    @Test("a persisted query sent as its hash alone is recorded with document absent: its answer never replays for the retry with the document")
    func persistedQueryNotFound() throws {
        let folder = try TemporaryFolder()
        let hash = String(repeating: "ab", count: 32)
        let hashOnly = Self.operation(nil, name: "GetMenu", variables: #"{"id":"r1"}"#, hash: hash)
        let retry = Self.operation(Self.getMenu, name: "GetMenu", variables: #"{"id":"r1"}"#, hash: hash)
        let notFound = #"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#
        // The retry is recorded first, so only the written order (the hash-only rule first) keeps it from answering the hash.
        let (engine, rules, _) = try record([(retry, nil), (hashOnly, notFound)], in: folder)
        #expect(rules.contains(#""document": "absent""#))
        #expect(!rules.contains("requestBody") && !rules.contains(hash), "extensions are not matched: \(rules)")
        #expect(answer(engine, hashOnly) == notFound)
        #expect(answer(engine, retry) == #"{"data":{"answer":0}}"#)
        let anonymousHash = Self.operation(nil, hash: String(repeating: "cd", count: 32))
        let anonymousFolder = try TemporaryFolder()
        let (anonymousEngine, anonymousRules, _) = try record([(anonymousHash, notFound)], in: anonymousFolder)
        #expect(anonymousRules.contains(#""persistedQuery": "\#(String(repeating: "cd", count: 32))""#), "an anonymous hash goes by its hash")
        #expect(answer(anonymousEngine, anonymousHash) == notFound)
        #expect(answer(anonymousEngine, Self.operation(nil, hash: String(repeating: "ef", count: 32))) == nil)
    }

    @Test("secrets in the variables are left out of the condition (a subset without them), and a replay with another secret is answered")
    func redactedVariables() throws {
        let folder = try TemporaryFolder()
        let login = "mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { token } }"
        let request = Self.operation(login, name: "Login", variables: #"{"email":"ann@example.test","password":"sekret-gql-pass-1"}"#)
        let (engine, rules, recorder) = try record([(request, #"{"data":{"login":{"ok":true}}}"#)], in: folder)
        #expect(!rules.contains("sekret-gql-pass-1"), "\(rules)")
        #expect(rules.contains(#""variables": { "email": "ann@example.test" }"#), "\(rules)")
        #expect(!rules.contains("variablesEqual"))
        #expect(recorder.summary.redacted >= 1)
        let other = Self.operation(login, name: "Login", variables: #"{"email":"ann@example.test","password":"another-one"}"#)
        #expect(answer(engine, other) == #"{"data":{"login":{"ok":true}}}"#)
        #expect(answer(engine, Self.operation(login, name: "Login", variables: #"{"email":"bob@example.test","password":"x"}"#)) == nil)
    }

    @Test("an ignored body path under variables is left out; a secret inside an array leaves the operation alone")
    func ignoredAndArraySecrets() throws {
        let folder = try TemporaryFolder()
        let track = "query Track($id: ID!, $ts: Int) { order(id: $id) { state } }"
        let (engine, rules, _) = try record([(Self.operation(track, name: "Track", variables: #"{"id":"o1","ts":100}"#), nil)], in: folder) {
            $0.ignored = [.body(["variables", "ts"])]
        }
        #expect(rules.contains(#""variables": { "id": "o1" }"#), "\(rules)")
        #expect(answer(engine, Self.operation(track, name: "Track", variables: #"{"id":"o1","ts":999}"#)) != nil)
        let sync = "mutation Sync($items: [In!]!) { sync(items: $items) }"
        let (_, arrayRules, _) = try record([(Self.operation(sync, name: "Sync", variables: #"{"items":[{"token":"sekret-array-77"}]}"#), nil)], in: try TemporaryFolder())
        #expect(!arrayRules.contains("sekret-array-77") && !arrayRules.contains("variables"), "\(arrayRules)")
        #expect(arrayRules.contains(#""operationName": "Sync""#))
    }

    @Test("an anonymous operation keeps the body match; GET and application/graphql requests are matched by operation")
    func anonymousGetAndGraphQLBody() throws {
        let folder = try TemporaryFolder()
        let anonymous = Self.post(#"{"query":"{ restaurants { id } }"}"#)
        var get = URLComponents(url: Self.endpoint, resolvingAgainstBaseURL: false)!
        get.queryItems = [URLQueryItem(name: "query", value: "query Search($term: String!) { search(term: $term) { __typename } }"),
                          URLQueryItem(name: "variables", value: #"{"term":"pizza"}"#), URLQueryItem(name: "lang", value: "en")]
        let getRequest = StubRequest(url: get.url!)
        let graphQLBody = Self.post("query RestaurantList { restaurants { id } }", contentType: "application/graphql")
        let (engine, rules, _) = try record([(anonymous, nil), (getRequest, nil), (graphQLBody, nil)], in: folder)
        #expect(rules.contains("requestBody"), "the anonymous operation goes by its document")
        #expect(rules.contains(#""operationName": "Search""#) && rules.contains(#""operationName": "RestaurantList""#))
        #expect(rules.contains(#""lang": "en""#) && !rules.contains("Search($term"), "the GET's GraphQL items are no query conditions: \(rules)")
        #expect(answer(engine, anonymous) == #"{"data":{"answer":0}}"#)
        get.queryItems = [URLQueryItem(name: "lang", value: "en"), URLQueryItem(name: "variables", value: #"{ "term": "pizza" }"#),
                          URLQueryItem(name: "query", value: "query Search($term: String!) {\n search(term: $term) { __typename }\n}")]
        #expect(answer(engine, StubRequest(url: get.url!)) == #"{"data":{"answer":1}}"#, "the GET's items are compared as GraphQL, not as text")
        #expect(answer(engine, Self.post("query RestaurantList {\n  restaurants { id }\n}", contentType: "application/graphql")) == #"{"data":{"answer":2}}"#)
    }

    @Test("a batch answered by an array of the same length becomes one rule per operation, each with its answer; any other answer stays one body match")
    func batch() throws {
        let folder = try TemporaryFolder()
        let batch = Self.post(#"[{"query":"query A { a }","operationName":"A"},{"query":"query B($n: Int) { b(n: $n) }","variables":{"n":2}}]"#)
        let (engine, rules, recorder) = try record([(batch, #"[{"data":{"a":1}},{"data":{"b":2}}]"#)], in: folder)
        #expect(recorder.writer.ruleCount == 2)
        #expect(recorder.summary.recorded == 1, "one exchange")
        #expect(!rules.contains("requestBody"))
        #expect(answer(engine, Self.post(#"{"query":"query A { a }"}"#)) == #"{"data":{"a":1}}"#)
        #expect(answer(engine, Self.post(#"{"query":"query B($n: Int) { b(n: $n) }","variables":{"n":2}}"#)) == #"{"data":{"b":2}}"#)
        let (_, failedRules, failed) = try record([(batch, #"{"errors":[{"message":"batching is off"}]}"#)], in: try TemporaryFolder())
        #expect(failed.writer.ruleCount == 1)
        #expect(failedRules.contains("requestBody") && !failedRules.contains(#""graphql""#))
    }
}
