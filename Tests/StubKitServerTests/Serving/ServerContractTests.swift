#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stubkit serve --openapi`: each request (and answer) checked against the contract, the findings
/// journalled (HAR `_stubkit.contract`) and printed, and, when asked, non-conforming requests refused.
@Suite("stubkit serve --openapi", .timeLimit(.minutes(3)))
struct ServerContractTests {
    static let spec = PackagePaths.fixtures.appendingPathComponent("openapi/traffic/takeaway-traffic.yaml").path
    static let order = #"{"id": "5b8f3c1e-2a4d-4c6b-9e7f-1a2b3c4d5e6f", "state": "placed", "placedAt": "2026-01-01T12:00:00Z", "payment": {"kind": "cash"}}"#

    /// A bundle for the spec's host: conforming answers, a sequence, and one answer the spec forbids.
    static func bundle() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try folder.bundle("takeaway", ["stubsRules.json": """
            { "host": "api.takeaway.example",
              "rules": [
                { "name": "restaurants", "method": "GET", "path": "/v1/restaurants", "status": 200, "json": { "restaurants": [] } },
                { "name": "place order", "method": "POST", "path": "/v1/orders",
                  "responses": [ { "status": 201, "json": \(order) }, { "status": 201, "json": \(order) } ], "afterLast": "fail" },
                { "name": "broken order", "method": "GET", "path": "/v1/orders/{id}", "status": 200, "json": { "id": "not a uuid", "state": "lost" } },
                { "name": "cancel order", "method": "DELETE", "path": "/v1/orders/{id}", "status": 200 }
              ] }
            """])
        return folder
    }

    static let goodOrder = #"{"restaurantId": 7, "items": [{"name": "Margherita", "quantity": 1}]}"#
    static let badOrder = #"{"restaurantId": 7, "items": [{"name": "Margherita", "quantity": 0}]}"#

    static func post(_ server: ServerProcess, body: String, idempotencyKey: Bool = true) throws -> HTTPReply {
        try Curl.request("\(server.baseURL)/api.takeaway.example/v1/orders",
                         ["--request", "POST", "--header", "Content-Type: application/json", "--data-binary", body]
                            + (idempotencyKey ? ["--header", "Idempotency-Key: k1"] : []))
    }

    /// The journal's entries as the admin API exports them: each URL with its `_stubkit` fields.
    static func journal(_ server: ServerProcess) throws -> [(url: String, status: Int, stubkit: [String: Any])] {
        let har = try Curl.request("\(server.baseURL)/__stubkit/journal.har").json
        let entries = ((har["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        return entries.map { entry in
            let request = entry["request"] as? [String: Any], response = entry["response"] as? [String: Any]
            return ((request?["method"] as? String ?? "") + " " + (request?["url"] as? String ?? ""), response?["status"] as? Int ?? 0,
                    entry["_stubkit"] as? [String: Any] ?? [:])
        }
    }

    static func findings(_ stubkit: [String: Any]) -> [[String: Any]] { stubkit["contract"] as? [[String: Any]] ?? [] }

    @Test("conforming requests have no finding; a bad query, a missing header and a bad body are answered by the stubs and journalled")
    func requestFindingsJournalled() throws {
        let folder = try Self.bundle()
        let server = try ServerProcess([folder.url.path, "--template", "takeaway", "--openapi", Self.spec])
        #expect(try Curl.request("\(server.baseURL)/api.takeaway.example/v1/restaurants?limit=5").status == 200)
        #expect(try Self.post(server, body: Self.goodOrder).status == 201)
        #expect(try Curl.request("\(server.baseURL)/api.takeaway.example/v1/restaurants?limit=0").status == 200)
        #expect(try Self.post(server, body: Self.badOrder, idempotencyKey: false).status == 201)

        let journal = try Self.journal(server)
        try #require(journal.count == 4, "\(journal)")
        #expect(Self.findings(journal[0].stubkit).isEmpty, "\(journal[0])")
        #expect(Self.findings(journal[1].stubkit).isEmpty, "\(journal[1])")
        let query = Self.findings(journal[2].stubkit)
        #expect(query.map { $0["code"] as? String } == ["SK211"], "\(query)")
        #expect(query.first?["parameter"] as? String == "limit")
        #expect(query.first?["subject"] as? String == "request")
        let order = Self.findings(journal[3].stubkit)
        #expect(Set(order.compactMap { $0["code"] as? String }) == ["SK211", "SK212"], "\(order)")
        #expect(order.contains { $0["parameter"] as? String == "Idempotency-Key" && ($0["message"] as? String)?.contains("missing") == true }, "\(order)")
        #expect(order.contains { $0["pointer"] as? String == "/items/0/quantity" }, "\(order)")
        // The stubs answered as they say: the rule is named in the journal.
        #expect(journal[3].stubkit["rule"] as? String == "place order")

        let exit = server.terminate(SIGTERM)
        expectCleanExit(exit)
        #expect(exit.stderr.contains("stubkit: warning: GET https://api.takeaway.example/v1/restaurants: the request violates the spec: query parameter 'limit' is '0'"), "\(exit.stderr)")
        #expect(exit.stderr.contains("stubkit: warning: POST https://api.takeaway.example/v1/orders: the request violates the spec: required header parameter 'Idempotency-Key' is missing [SK211]"), "\(exit.stderr)")
        #expect(exit.stderr.contains("/items/0/quantity") && exit.stderr.contains("[SK212]"), "\(exit.stderr)")
        #expect(!exit.stderr.contains("?limit=5") && exit.stderr.components(separatedBy: "warning:").count == 4, "one line per finding: \(exit.stderr)")
    }

    @Test("--reject-invalid-requests: 400 application/problem+json listing each finding, and the stubs are never asked")
    func rejectInvalidRequests() throws {
        let folder = try Self.bundle()
        try withServer([folder.url.path, "--template", "takeaway", "--openapi", Self.spec, "--reject-invalid-requests"]) { server in
            let rejected = try Self.post(server, body: Self.badOrder, idempotencyKey: false)
            #expect(rejected.status == 400)
            #expect(rejected.headers["content-type"] == "application/problem+json")
            #expect(rejected.headers["x-stubkit-contract"] == "request-rejected")
            let problem = rejected.json
            #expect(problem["type"] as? String == "about:blank")
            #expect(problem["title"] as? String == "Bad Request")
            #expect(problem["status"] as? Int == 400)
            #expect((problem["detail"] as? String)?.contains("POST /v1/orders") == true, "\(problem)")
            let errors = problem["errors"] as? [[String: Any]] ?? []
            #expect(Set(errors.compactMap { $0["code"] as? String }) == ["SK211", "SK212"], "\(errors)")
            #expect(errors.contains { $0["pointer"] as? String == "/items/0/quantity" && ($0["message"] as? String)?.isEmpty == false }, "\(errors)")
            #expect(errors.contains { $0["parameter"] as? String == "Idempotency-Key" }, "\(errors)")

            // The sequence did not move: the next conforming order gets its first answer, the one after its second, then none.
            #expect(try Self.post(server, body: Self.goodOrder).status == 201)
            #expect(try Self.post(server, body: Self.goodOrder).status == 201)
            #expect(try Self.post(server, body: Self.goodOrder).status == 502)
            let journal = try Self.journal(server)
            try #require(journal.count == 4, "\(journal)")
            #expect(journal[0].status == 400 && journal[0].stubkit["answered"] as? Bool == false && journal[0].stubkit["rule"] == nil, "\(journal[0])")
            #expect(Self.findings(journal[0].stubkit).count == 2)
            #expect(journal[1].stubkit["rule"] as? String == "place order")
        }
    }

    @Test("an app pointed at the server's own address (no host in the path) is checked by path, and refused when asked; no secret reaches the 400 or stderr")
    func requestsToTheServersOwnAddress() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("local", ["stubsRules.json": """
            { "rules": [ { "name": "place order", "method": "POST", "path": "/v1/orders", "status": 201, "json": \(Self.order) } ] }
            """])
        let secretOrder = #"{"restaurantId": "LEAKED-SECRET-1", "items": [{"name": "Margherita", "quantity": 1}], "password": "LEAKED-SECRET-2"}"#
        do {
            let server = try ServerProcess([folder.url.path, "--template", "local", "--openapi", Self.spec, "--reject-invalid-requests"])
            let rejected = try Curl.request("\(server.baseURL)/v1/orders?api_key=LEAKED-SECRET-3",
                                            ["--request", "POST", "--header", "Content-Type: application/json", "--header", "Idempotency-Key: k1",
                                             "--header", "Authorization: Bearer LEAKED-SECRET-4", "--data-binary", secretOrder])
            #expect(rejected.status == 400, "\(rejected)")
            let errors = rejected.json["errors"] as? [[String: Any]] ?? []
            #expect(errors.map { $0["code"] as? String } == ["SK212"], "\(errors)")
            #expect(errors.first?["pointer"] as? String == "/restaurantId")
            #expect(!rejected.text.contains("LEAKED"), "\(rejected.text)")
            let good = try Curl.request("\(server.baseURL)/v1/orders", ["--request", "POST", "--header", "Content-Type: application/json",
                                                                        "--header", "Idempotency-Key: k2", "--data-binary", Self.goodOrder])
            #expect(good.status == 201)
            let exit = server.terminate(SIGTERM)
            expectCleanExit(exit)
            #expect(exit.stderr.contains("[SK212]"), "\(exit.stderr)")
            #expect(!exit.stderr.contains("LEAKED") && !exit.stderr.contains("not a server"), "\(exit.stderr)")
        }
    }

    @Test("a secret path segment is not printed on stderr, and the journalled message does not repeat the request")
    func secretPathSegmentsOnStderr() throws {
        let folder = try TemporaryFolder()
        try folder.bundle("reset", ["stubsRules.json": """
            { "rules": [ { "name": "reset", "method": "GET", "path": "/reset/{token}", "status": 200, "json": {} } ] }
            """])
        let spec = try folder.file("reset.yaml", data: Data("""
            openapi: 3.0.3
            info: { title: Reset, version: 1.0.0 }
            servers: [ { url: 'https://api.reset.example' } ]
            paths:
              /reset/{reset_token}:
                get:
                  parameters:
                    - { name: reset_token, in: path, required: true, schema: { type: string } }
                    - { name: lang, in: query, required: true, schema: { type: string } }
                  responses: { '200': { description: ok, content: { application/json: { schema: { type: object } } } } }
            """.utf8))
        let server = try ServerProcess([folder.url.path, "--template", "reset", "--openapi", spec.path])
        #expect(try Curl.request("\(server.baseURL)/reset/LEAKED-TOKEN").status == 200)
        let journal = try Self.journal(server)
        let findings = Self.findings(journal.first?.stubkit ?? [:])
        #expect(findings.map { $0["message"] as? String } == ["required query parameter 'lang' is missing"], "\(findings)")
        let exit = server.terminate(SIGTERM)
        expectCleanExit(exit)
        #expect(exit.stderr.contains("stubkit: warning: GET http://127.0.0.1:\(server.baseURL.port ?? 0)/reset/REDACTED: the request violates the spec: required query parameter 'lang' is missing [SK211]"), "\(exit.stderr)")
        #expect(!exit.stderr.contains("LEAKED"), "\(exit.stderr)")
    }

    @Test("--validate responses: a stub's answer the spec forbids is warned about as the stub's fault; requests are not checked")
    func stubResponseViolations() throws {
        let folder = try Self.bundle()
        let server = try ServerProcess([folder.url.path, "--template", "takeaway", "--openapi", Self.spec, "--validate", "responses"])
        let broken = try Curl.request("\(server.baseURL)/api.takeaway.example/v1/orders/5b8f3c1e-2a4d-4c6b-9e7f-1a2b3c4d5e6f")
        #expect(broken.status == 200 && broken.json["state"] as? String == "lost", "the stub's answer is sent as it is")
        #expect(try Self.post(server, body: Self.goodOrder, idempotencyKey: false).status == 201)
        #expect(try Curl.request("\(server.baseURL)/api.takeaway.example/v1/orders/9", ["--request", "DELETE"]).status == 200)

        let journal = try Self.journal(server)
        try #require(journal.count == 3, "\(journal)")
        let status = Self.findings(journal[2].stubkit)
        #expect(status.map { $0["code"] as? String } == ["SK213"], "\(status)")
        #expect((status.first?["message"] as? String)?.hasPrefix("the stub answered 200, which DELETE /orders/{orderId} does not document") == true, "\(status)")
        let findings = Self.findings(journal[0].stubkit)
        #expect(!findings.isEmpty && findings.allSatisfy { $0["code"] as? String == "SK214" && $0["subject"] as? String == "stubResponse" && $0["severity"] as? String == "warning" },
                "\(findings)")
        #expect(findings.contains { $0["pointer"] as? String == "/state" }, "\(findings)")
        // The conforming answer has no finding, and its request (without the required header) is not checked.
        #expect(Self.findings(journal[1].stubkit).isEmpty, "\(journal[1])")

        let exit = server.terminate(SIGTERM)
        expectCleanExit(exit)
        #expect(exit.stderr.contains("stubkit: warning: GET https://api.takeaway.example/v1/orders/5b8f3c1e-2a4d-4c6b-9e7f-1a2b3c4d5e6f: the stub's response violates the spec: the 200 response body does not fit the schema at /state"),
                "\(exit.stderr)")
        #expect(!exit.stderr.contains("Idempotency-Key"), "\(exit.stderr)")
    }

    struct Usage: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var status: Int32
        var named: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let usages = [
        Usage(arguments: ["--validate", "both"], status: 64, named: "--validate needs --openapi"),
        Usage(arguments: ["--reject-invalid-requests"], status: 64, named: "--reject-invalid-requests needs --openapi"),
        Usage(arguments: ["--openapi", spec, "--validate", "responses", "--reject-invalid-requests"], status: 64, named: "--validate requests or both"),
        Usage(arguments: ["--openapi", "no-such-spec.yaml"], status: 2, named: "no-such-spec.yaml"),
    ]

    @Test("--validate or --reject-invalid-requests without --openapi is a usage error; a spec that cannot be read exits 2 naming it", arguments: usages)
    func usageErrors(_ usage: Usage) throws {
        let exit = try ServerProcess.failingToStart([stubBundles, "--template", "restaurants_base"] + usage.arguments)
        #expect(exit.exited && exit.status == usage.status, "status \(exit.status): \(exit.stderr)")
        #expect(exit.stderr.contains(usage.named), "\(exit.stderr)")
    }
}
#endif
