#if Tools
import Foundation
import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

@Suite("WireMock import")
struct WireMockImportTests {
    @Test("WireMock's lowest-number-wins priority is kept: the priority-1 stub answers, not the later default one")
    func priorityOrder() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: [
            "a-specific.json": #"{"priority": 1, "request": {"method": "GET", "urlPathPattern": "/users/[0-9]+"}, "response": {"status": 200, "body": "digits"}}"#,
            "b-generic.json": #"{"request": {"method": "GET", "urlPathPattern": "/users/.*"}, "response": {"status": 200, "body": "anything"}}"#,
            "c-low.json": #"{"priority": 9, "request": {"method": "GET", "urlPath": "/users/42"}, "response": {"status": 200, "body": "literal"}}"#,
        ])
        let bundle = folder.url.appendingPathComponent("out/imported")
        _ = try importFiles([wm], to: bundle)
        let rules = loadedRules(bundle)
        #expect(Dictionary(uniqueKeysWithValues: rules.map { ($0.displayName, $0.priority) }) == ["a-specific": 4, "b-generic": 0, "c-low": -4])
        try Replay.check([
            ExpectedExchange(source: "42", method: "GET", url: "http://localhost/users/42", status: 200, responseBody: Data("digits".utf8)),
            ExpectedExchange(source: "ab", method: "GET", url: "http://localhost/users/ab?x=1", status: 200, responseBody: Data("anything".utf8)),
        ], bundle: bundle)
    }

    @Test("query, header and body matchers, templates, delay, fault and scenarios become the same rule keys")
    func conditionsCarriedOver() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["all.json": #"""
            {"mappings": [
              {"scenarioName": "cart", "requiredScenarioState": "Started", "newScenarioState": "full",
               "request": {"method": "POST", "urlPathTemplate": "/carts/{cartId}/items",
                           "queryParameters": {"dry": {"absent": true}, "v": {"matches": "[0-9]+"}},
                           "headers": {"X-Client": {"equalTo": "ios"}, "Accept": {"contains": "json"}},
                           "bodyPatterns": [{"equalToJson": {"sku": 7}, "ignoreExtraElements": true}, {"contains": "sku"}]},
               "response": {"status": 201, "fixedDelayMilliseconds": 250, "transformers": ["response-template"],
                            "headers": {"Content-Type": "application/json", "X-Echo": "{{request.headers.X-Client}}"},
                            "jsonBody": {"cart": "{{request.path.cartId}}"}}},
              {"request": {"method": "GET", "url": "/flaky"}, "response": {"fault": "CONNECTION_RESET_BY_PEER"}},
              {"request": {"method": "GET", "url": "/xml"}, "response": {"status": 200, "body": "<a/>"},
               "postServeActions": [{"name": "webhook"}]}
            ]}
            """#])
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        let rules = loadedRules(bundle)
        try #require(rules.count == 3)
        let cart = try #require(rules.first { $0.request.methods == ["POST"] })
        #expect(cart.request.path?.description == "/carts/{cartId}/items")
        #expect(cart.request.query["dry"] == .absent)
        #expect(cart.request.query["v"].map { "\($0)" } == "a value matching /^(?:[0-9]+)$/")
        #expect(cart.request.headers.keys.sorted() == ["Accept", "X-Client"])
        #expect(cart.request.body.count == 2)
        #expect(cart.request.scenarioState?.scenario == "cart" && cart.request.scenarioState?.state == "Started")
        #expect(cart.newState == "full")
        #expect(cart.response.delay == 0.25)
        // {{request.path.cartId}} of a urlPathTemplate is our {{path.cartId}}.
        #expect(cart.response.template != nil)
        #expect(cart.response.headers.contains { $0.name == "X-Echo" && $0.value == "{{header.X-Client}}" })
        #expect(String(decoding: bodyData(of: cart.response), as: UTF8.self).contains("{{path.cartId}}"))
        let flaky = try #require(rules.first { $0.request.path?.description == "/flaky" })
        #expect(flaky.response.error == .networkConnectionLost)
        #expect(report.notes.map(\.message).contains { $0.contains("postServeActions") })
        #expect(report.notes.count == 1, "\(report.notes)")
        #expect(report.exitCode == 1)
    }

    @Test("a header echo template is translated and served per request")
    func templateTranslated() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["echo.json": #"""
            {"request": {"method": "GET", "urlPath": "/echo"},
             "response": {"status": 200, "transformers": ["response-template"], "headers": {"Content-Type": "text/plain"},
                          "body": "hello {{request.query.name}}"}}
            """#])
        let bundle = folder.url.appendingPathComponent("out/imported")
        let report = try importFiles([wm], to: bundle)
        #expect(report.exitCode == 0, "\(report.notes)")
        try Replay.check([ExpectedExchange(source: "echo", method: "GET", url: "http://localhost/echo?name=ann", status: 200,
                                           responseBody: Data("hello ann".utf8), contentType: "text/plain")], bundle: bundle)
    }

    @Test("mappings that differ only in a header condition stay two rules, each answering its own requests")
    func differingOnlyInHeaders() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["two.json": #"""
            {"mappings": [
              {"request": {"method": "GET", "url": "/me", "headers": {"X-Tier": {"equalTo": "gold"}}}, "response": {"status": 200, "body": "gold"}},
              {"request": {"method": "GET", "url": "/me", "headers": {"X-Tier": {"equalTo": "basic"}}}, "response": {"status": 200, "body": "basic"}}
            ]}
            """#])
        let bundle = folder.url.appendingPathComponent("out/imported")
        _ = try importFiles([wm], to: bundle)
        #expect(loadedRules(bundle).count == 2, "not one rule with a sequence of two responses")
        try Replay.check([
            ExpectedExchange(source: "basic", method: "GET", url: "http://localhost/me", headers: [("X-Tier", "basic")], status: 200, responseBody: Data("basic".utf8)),
            ExpectedExchange(source: "gold", method: "GET", url: "http://localhost/me", headers: [("X-Tier", "gold")], status: 200, responseBody: Data("gold".utf8)),
        ], bundle: bundle)
    }

    @Test("mappings whose url differs only in a + against a %2B stay two rules, each answering its own request")
    func plusAgainstEscapedPlus() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["two.json": #"""
            {"mappings": [
              {"request": {"method": "GET", "url": "/find?q=a+b&r=%7c"}, "response": {"status": 200, "body": "plain"}},
              {"request": {"method": "GET", "url": "/find?q=a%2Bb&r=%7c"}, "response": {"status": 200, "body": "escaped"}}
            ]}
            """#])
        let bundle = folder.url.appendingPathComponent("out/imported")
        _ = try importFiles([wm], to: bundle)
        #expect(loadedRules(bundle).count == 2, "not one rule with a sequence of two responses")
        try Replay.check([
            ExpectedExchange(source: "plain", method: "GET", url: "http://localhost/find?r=%7C&q=a+b", status: 200, responseBody: Data("plain".utf8)),
            ExpectedExchange(source: "escaped", method: "GET", url: "http://localhost/find?q=a%2bb&r=%7c", status: 200, responseBody: Data("escaped".utf8)),
        ], bundle: bundle)
    }

    @Test("a bodyFileName that is not in __files is reported and the mapping left out")
    func missingBodyFile() throws {
        let folder = try TemporaryFolder()
        let wm = try wireMockRoot(folder, mappings: ["gone.json": #"{"request": {"url": "/gone"}, "response": {"bodyFileName": "nowhere.json"}}"#])
        let report = try importFiles([wm], to: folder.url.appendingPathComponent("out/imported"))
        #expect(report.notes.map(\.message).contains { $0.contains("nowhere.json") && $0.contains("not imported") })
        #expect(report.rules == 0)
    }
}

@Suite("format detection")
struct FormatDetectionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var fileName: String
        var content: String
        var expected: ImportFormat?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "HAR", fileName: "x.json", content: #"{"log": {"version": "1.2", "entries": []}}"#, expected: .har),
        Case(name: "WireMock single stub", fileName: "m.json", content: #"{"request": {"url": "/"}, "response": {"status": 200}}"#, expected: .wiremock),
        Case(name: "WireMock mappings list", fileName: "m.json", content: #"{"mappings": []}"#, expected: .wiremock),
        Case(name: "vcrpy JSON", fileName: "c.json", content: #"{"version": 1, "interactions": []}"#, expected: .vcr),
        Case(name: "Ruby VCR", fileName: "c.json", content: #"{"http_interactions": [], "recorded_with": "VCR 6"}"#, expected: .vcr),
        Case(name: "Vinyl", fileName: "v.json", content: #"[{"request": {"url": "http://a"}, "response": {"status": 200}}]"#, expected: .vcr),
        Case(name: "vcrpy YAML", fileName: "c.yaml", content: "interactions:\n- request: {method: GET, uri: 'http://a/'}\n  response: {status: {code: 200}}\n", expected: .vcr),
        Case(name: "Mocktail without extension", fileName: "login", content: "GET|POST\n.*/login\n200\napplication/json\n\n{}", expected: .mocktail),
        Case(name: "a rules file is no import format", fileName: "stubsRules.json", content: #"[{"path": "/a", "status": 200}]"#, expected: nil),
    ]

    @Test("the format is detected from the content", arguments: cases)
    func detects(_ testCase: Case) throws {
        let folder = try TemporaryFolder()
        let file = try folder.file(testCase.fileName, data: Data(testCase.content.utf8))
        let (batches, errors) = BundleImporter().read([file])
        if let expected = testCase.expected {
            #expect(errors.isEmpty, "\(errors)")
            #expect(batches.first?.format == expected)
        } else {
            #expect(errors.first?.description.contains("not a format stubkit imports") == true)
        }
    }
}
#endif
