#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// GraphQL traffic imported from HAR, cassettes and WireMock becomes `graphql` conditions (by
/// operation), as recording writes them, not body matches.
@Suite("GraphQL import")
struct GraphQLImportTests {
    static let getMenu = "query GetMenu($id: ID!) { restaurant(id: $id) { id name } }"

    /// The engine's answer to a POST of `body` to the bundle's /graphql, or nil.
    func answer(_ bundle: URL, _ body: String) -> String? {
        let engine = StubEngine(killSwitch: true)
        engine.activate(BundleLoader().load(folder: bundle).bundle)
        let request = StubRequest(method: "POST", url: URL(string: "https://api.takeaway.test/graphql")!,
                                  headers: ["Content-Type": "application/json"], body: Data(body.utf8))
        guard case .answer(let match) = engine.decision(for: request) else { return nil }
        return String(decoding: bodyData(of: match.response), as: UTF8.self)
    }

    @Test("HAR entries of GraphQL POSTs become one rule per operation and variables, answering however the document is printed")
    func har() throws {
        let folder = try TemporaryFolder()
        func entry(_ variables: String, _ answer: String) -> [String: Any] {
            ["request": ["method": "POST", "url": "https://api.takeaway.test/graphql",
                         "headers": [["name": "Content-Type", "value": "application/json"]],
                         "postData": ["mimeType": "application/json",
                                      "text": #"{"operationName":"GetMenu","variables":\#(variables),"query":\#(GraphQLImportTests.quoted(Self.getMenu))}"#]],
             "response": ["status": 200, "headers": [["name": "Content-Type", "value": "application/json"]],
                          "content": ["size": answer.utf8.count, "mimeType": "application/json", "text": answer]]]
        }
        let har = try folder.file("app.har", data: harDocument([entry(#"{"id":"r1"}"#, #"{"data":{"n":1}}"#), entry(#"{"id":"r2"}"#, #"{"data":{"n":2}}"#)]))
        let bundle = folder.url.appendingPathComponent("b")
        _ = try importFiles([har], to: bundle)
        let rules = loadedRules(bundle)
        #expect(rules.count == 2)
        #expect(rules.allSatisfy { $0.request.graphQL?.operationName == "GetMenu" && $0.request.body.isEmpty })
        let reprinted = "query GetMenu($id: ID!) {\\n  restaurant(id: $id) {\\n    id\\n    name\\n  }\\n}"
        #expect(answer(bundle, #"{"query":"\#(reprinted)","variables":{"id":"r2"}}"#) == #"{"data":{"n":2}}"#)
        #expect(answer(bundle, #"{"query":"\#(reprinted)","variables":{"id":"r1"}}"#) == #"{"data":{"n":1}}"#)
    }

    @Test("a vcrpy cassette's GraphQL request becomes a graphql condition")
    func cassette() throws {
        let folder = try TemporaryFolder()
        let cassette = try folder.file("menu.yaml", data: Data("""
            interactions:
            - request:
                method: POST
                uri: https://api.takeaway.test/graphql
                body: '{"query": "query GetMenu($id: ID!) { restaurant(id: $id) { id name } }", "variables": {"id": "r1"}}'
                headers:
                  Content-Type: [application/json]
              response:
                status: {code: 200, message: OK}
                headers:
                  Content-Type: [application/json]
                body: {string: '{"data":{"n":1}}'}
            version: 1
            """.utf8))
        let bundle = folder.url.appendingPathComponent("b")
        _ = try importFiles([cassette], to: bundle)
        let rules = loadedRules(bundle)
        #expect(rules.first?.request.graphQL?.operationName == "GetMenu")
        #expect(answer(bundle, #"{"operationName":"GetMenu","query":"query GetMenu($id: ID!) {restaurant(id: $id) {id name}}","variables":{"id":"r1"}}"#) == #"{"data":{"n":1}}"#)
    }

    @Test("WireMock's graphql-body-matcher, in each version's parameters, and an equalToJson GraphQL body become graphql conditions")
    func wireMock() throws {
        let folder = try TemporaryFolder()
        let document = Self.quoted(Self.getMenu)
        let wm = try wireMockRoot(folder, mappings: [
            // 0.8.2 and later: query, variables, operationName.
            "current.json": #"{"request": {"method": "POST", "urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": {"query": \#(document), "variables": {"id": "r1"}}}}, "response": {"status": 200, "body": "current"}}"#,
            // 0.5.0 to 0.8.1: expectedJson, the request as JSON text.
            "expected-json.json": #"{"request": {"method": "POST", "urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": {"expectedJson": \#(Self.quoted(#"{"query": \#(document), "variables": {"id": "r2"}}"#))}}}, "response": {"status": 200, "body": "expectedJson"}}"#,
            // 0.4.0: expectedQuery, the same JSON text.
            "expected-query.json": #"{"request": {"method": "POST", "urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": {"expectedQuery": \#(Self.quoted(#"{"query": "query RestaurantList { restaurants { id } }"}"#))}}}, "response": {"status": 200, "body": "expectedQuery"}}"#,
            "body.json": #"{"request": {"method": "POST", "urlPath": "/graphql", "bodyPatterns": [{"equalToJson": {"query": "mutation PlaceOrder($cart: ID!) { placeOrder(cart: $cart) { id } }", "variables": {"cart": "c1"}}}]}, "response": {"status": 201, "body": "equalToJson"}}"#,
        ])
        let bundle = folder.url.appendingPathComponent("b")
        _ = try importFiles([wm], to: bundle)
        let rules = loadedRules(bundle)
        #expect(rules.count == 4)
        #expect(Set(rules.compactMap(\.request.graphQL?.operationName)) == ["GetMenu", "RestaurantList", "PlaceOrder"])
        #expect(rules.allSatisfy { $0.request.body.isEmpty })
        let reprinted = "query GetMenu($id: ID!) {\\n restaurant(id: $id) { id name }\\n}"
        #expect(answer(bundle, #"{"query":"\#(reprinted)","variables":{"id":"r1"}}"#) == "current")
        #expect(answer(bundle, #"{"query":"\#(reprinted)","variables":{"id":"r2"}}"#) == "expectedJson")
        #expect(answer(bundle, #"{"query":"\#(reprinted)","variables":{"id":"r3"}}"#) == nil)
        #expect(answer(bundle, #"{"query":"query RestaurantList {\n restaurants { id }\n}"}"#) == "expectedQuery")
        #expect(answer(bundle, #"{"operationName":"PlaceOrder","query":"mutation PlaceOrder($cart: ID!) {placeOrder(cart: $cart) {id}}","variables":{"cart":"c1"}}"#) == "equalToJson")
    }

    @Test("a graphql-body-matcher whose document names no one operation keeps its document as a body condition, so the rule does not answer every operation")
    func wireMockUnresolvedDocument() throws {
        let folder = try TemporaryFolder()
        let twoOperations = "query A { a } query B { b }"
        let wm = try wireMockRoot(folder, mappings: [
            "two.json": #"{"request": {"method": "POST", "urlPath": "/graphql", "customMatcher": {"name": "graphql-body-matcher", "parameters": {"query": \#(Self.quoted(twoOperations))}}}, "response": {"status": 200, "body": "two"}}"#,
        ])
        let bundle = folder.url.appendingPathComponent("b")
        let report = try importFiles([wm], to: bundle)
        #expect(report.notes.contains { $0.message.contains("matched by its text") }, "\(report.notes)")
        #expect(answer(bundle, #"{"query":"\#(twoOperations)"}"#) == "two")
        #expect(answer(bundle, #"{"query":"query GetMenu { restaurant(id: 1) { id } }"}"#) == nil)
    }

    @Test("a custom matcher of another name is noted, not carried over")
    func otherCustomMatcher() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["other.json": #"{"request": {"method": "POST", "urlPath": "/x", "customMatcher": {"name": "body-length", "parameters": {"max": 2048}}}, "response": {"status": 200}}"#])
        let report = try importFiles([wm], to: folder.url.appendingPathComponent("b"))
        #expect(report.notes.contains { $0.message.contains("customMatcher 'body-length'") }, "\(report.notes)")
    }

    @Test("real-world HAR files with GraphQL POSTs import as graphql conditions", .enabled(if: RealWorldGraphQL.files.isEmpty == false, "no HAR with GraphQL in ../shared/realworld"))
    func realWorld() throws {
        for file in RealWorldGraphQL.files {
            let folder = try TemporaryFolder()
            let bundle = folder.url.appendingPathComponent("b")
            _ = try importFiles([file], to: bundle)
            #expect(loadedRules(bundle).contains { $0.request.graphQL != nil }, "\(file.path)")
        }
    }

    static func quoted(_ text: String) -> String {
        String(decoding: try! JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed]), as: UTF8.self)
    }
}

/// HAR files in ../shared/realworld that hold a GraphQL POST (`"operationName"` in a request body).
enum RealWorldGraphQL {
    static let files: [URL] = {
        guard let root = PackagePaths.realworld?.appendingPathComponent("har"),
              let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { url in
            url.pathExtension.lowercased() == "har" && ((try? String(contentsOf: url, encoding: .utf8))?.contains(#"\"operationName\""#) ?? false)
        }
    }()
}
#endif
