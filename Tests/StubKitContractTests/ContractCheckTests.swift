#if Tools
import Foundation
import StubKit
import StubKitContract
import StubKitTesting
import StubKitTestSupport
import Testing

/// `ContractCheck` as a UI test uses it: the real `stubdemo` app sends requests with a live journal,
/// and the runner checks the journal against the takeaway spec (`openapi/traffic/takeaway-traffic.yaml`).
struct ContractCheckTests {
    static let spec = PackagePaths.fixtures.appendingPathComponent("openapi/traffic/takeaway-traffic.yaml")
    static let api = "https://api.takeaway.example/v1"
    static let conforming = [
        "GET", "\(api)/restaurants?limit=5&cuisine=pizza&cuisine=sushi",
        "POST", "\(api)/orders", "--header", "Idempotency-Key: k1", "--header", "Content-Type: application/json",
        "--data", #"{"restaurantId":42,"items":[{"name":"Margherita","quantity":1}]}"#,
    ]
    static let nonConforming = [
        "GET", "\(api)/restaurants?limit=zero&cuisine=burger",
        "POST", "\(api)/orders", "--header", "Content-Type: application/json", "--data", #"{"restaurantId":"42","items":[{"name":"Margherita"}]}"#,
        "GET", "\(api)/restaurant",
        "GET", "\(api)/restaurants/pizza-roma",
        "POST", "\(api)/orders", "--header", "Idempotency-Key: k2",
    ]

    /// Runs stubdemo with the takeaway stubs and the kill switch, sending `requests`, and returns its live journal.
    static func journal(of requests: [String], in folder: TemporaryFolder) throws -> URL {
        let journal = folder.url.appendingPathComponent("app.jsonl")
        let app = try ChildProcess.run("stubdemo", arguments: ["STUB_API_CALLS_clean", "STUB_KILL_NETWORK"] + requests, environment: [
            "STUB_BUNDLES_PATH": PackagePaths.fixtures.appendingPathComponent("openapi/bundles").path, "STUB_JOURNAL_LIVE": journal.path,
        ])
        try #require(app.status == 0, "\(app.stderr)")
        return journal
    }

    /// stublint's text output without its summary line and without notes (each with its spec line).
    static func failures(inStublintOutput text: String) -> [String] {
        var lines = text.split(separator: "\n").map(String.init).dropLast()[...]
        var out: [String] = []
        while let line = lines.popFirst() {
            if line.contains(": note: ") && line.hasSuffix("[SK215]") {
                if lines.first?.contains(": note: ") == true && lines.first?.hasSuffix("]") == false { lines.removeFirst() }
                continue
            }
            out.append(line)
        }
        return out
    }

    @Test("stubdemo's live journal: the same findings as stublint traffic on that journal, each with its request, code, pointer and spec line")
    func sameFindingsAsStublint() throws {
        let folder = try TemporaryFolder()
        let journal = try Self.journal(of: Self.conforming + Self.nonConforming, in: folder)
        let report = try ContractCheck(openAPI: Self.spec).check(journal: journal)
        let stublint = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec.path, journal.path])
        #expect(stublint.status == 1, "\(stublint.stderr)")

        let listed = report.description.split(separator: "\n").dropFirst().map(String.init)
        #expect(listed == Self.failures(inStublintOutput: stublint.stdout), "\(report)\n---\n\(stublint.stdout)")
        #expect(report.findings.count == 8)
        #expect(report.requestCount == 7)
        #expect(!report.isConforming)
        #expect(report.description.hasPrefix("\(journal.path): 5 of 7 requests do not conform to \(Self.spec.path) (8 findings)\n"), "\(report)")

        // The requests, in the journal's order, with their findings' codes.
        #expect(report.nonConformingRequests.map(\.entry) == [
            "#3 GET \(Self.api)/restaurants?limit=zero&cuisine=burger", "#4 POST \(Self.api)/orders", "#5 GET \(Self.api)/restaurant",
            "#6 GET \(Self.api)/restaurants/pizza-roma", "#7 POST \(Self.api)/orders",
        ])
        #expect(report.nonConformingRequests.map { $0.findings.map(\.code.rawValue) } == [
            ["SK211", "SK211"], ["SK211", "SK212", "SK212"], ["SK210"], ["SK211"], ["SK212"],
        ])
        let order = report.nonConformingRequests[1]
        #expect(order.findings.compactMap(\.pointer) == ["/restaurantId", "/items/0"])
        let body = try #require(order.findings.first { $0.pointer == "/restaurantId" })
        #expect(body.entry == "#4 POST \(Self.api)/orders")
        #expect(body.message == "the request body does not fit the schema at /restaurantId: expected integer, got string")
        #expect(body.journalLine == order.journalLine && order.journalLine != nil)
        #expect(body.specLine == 81)
        #expect(body.specKeyPath == "paths./orders.post.requestBody.content.application/json.schema")
        #expect(body.severity == .error)
    }

    @Test("a journal of conforming requests passes, and its assertion records nothing")
    func conformingJournalPasses() throws {
        let folder = try TemporaryFolder()
        let journal = try Self.journal(of: Self.conforming, in: folder)
        let report = try ContractCheck(openAPI: Self.spec).check(journal: journal)
        #expect(report.isConforming, "\(report)")
        #expect(report.requestCount == 2)
        #expect(report.findings.isEmpty && report.nonConformingRequests.isEmpty)
        #expect(report.description == "\(journal.path): all 2 requests conform to \(Self.spec.path)")
        expectConforms(report)
    }

    @Test("the runner's LiveJournal is checked from its file, and a non-conforming one fails the test with the listing")
    func assertionFailsWithTheListing() throws {
        let folder = try TemporaryFolder()
        let journalURL = folder.url.appendingPathComponent("app.jsonl")
        let journal = try LiveJournal(url: journalURL)
        defer { journal.stop() }
        _ = try Self.journal(of: Self.nonConforming, in: folder)
        let report = try ContractCheck(openAPI: Self.spec).check(journal)
        withKnownIssue {
            expectConforms(report, "checkout")
        } matching: { issue in
            let text = issue.comments.map(\.rawValue).joined()
            return text.hasPrefix("checkout: \(journalURL.path): 5 of 5 requests do not conform")
                && text.contains("\(journalURL.path):3:1: error: #2 POST \(Self.api)/orders: the request body does not fit the schema at /restaurantId: expected integer, got string [SK212]")
                && text.contains("\(Self.spec.path):81:15: note: paths./orders.post.requestBody.content.application/json.schema")
                && issue.sourceLocation?.fileName == "ContractCheckTests.swift"
        }
    }

    @Test("a line the app's crash cut off fails the check at its line; the other requests are still checked")
    func unreadableLineFails() throws {
        let folder = try TemporaryFolder()
        let journal = try Self.journal(of: Self.conforming, in: folder)
        let handle = try FileHandle(forWritingTo: journal)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"id":3,"kind":"request","method":"GET","url":"https://api.tak"#.utf8))
        try handle.close()
        let report = try ContractCheck(openAPI: Self.spec).check(journal: journal)
        #expect(!report.isConforming)
        #expect(report.requestCount == 2)
        #expect(report.unreadableLines.map(\.code.rawValue) == ["SK216"])
        #expect(report.unreadableLines.first?.entry == nil)
        #expect(report.description.contains("1 line cannot be read"), "\(report)")
    }

    @Test("a spec that cannot be read: a clear error naming the file and line, nothing checked")
    func unreadableSpec() throws {
        let folder = try TemporaryFolder()
        let missing = folder.url.appendingPathComponent("nope.yaml")
        let notFound = #expect(throws: ContractCheckError.self) { try ContractCheck(openAPI: missing) }
        #expect(notFound?.file == missing.path)
        #expect(notFound?.description.hasPrefix("\(missing.path): cannot be read") == true, "\(String(describing: notFound))")
        #expect(notFound?.description.hasSuffix("[SK200]") == true)

        let broken = try folder.file("api.yaml", data: Data("openapi: 3.0.3\ninfo:\n  title: x\n  version: '1'\npaths:\n  /a: [\n".utf8))
        let syntax = #expect(throws: ContractCheckError.self) { try ContractCheck(openAPI: broken) }
        #expect(syntax?.file == broken.path)
        #expect(syntax?.line != nil && syntax?.description.hasPrefix("\(broken.path):\(syntax?.line ?? 0):") == true, "\(String(describing: syntax))")

        let swagger = try folder.file("swagger.json", data: Data(#"{"swagger": "2.0"}"#.utf8))
        let old = #expect(throws: ContractCheckError.self) { try ContractCheck(openAPI: swagger) }
        #expect(old?.description.contains("Swagger 2.0 is not read") == true, "\(String(describing: old))")
    }

    @Test("a journal that does not exist: an error naming it")
    func missingJournal() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-no-journal-\(UUID().uuidString).jsonl")
        let contract = try ContractCheck(openAPI: Self.spec)
        let error = #expect(throws: ContractCheckError.self) { try contract.check(journal: missing) }
        #expect(error?.description == "\(missing.path): no such file or folder")
        #expect(error?.file == missing.path)
    }

    @Test("a secret path parameter's value is in no part of the report: the request's label, the findings, the description")
    func secretPathSegmentsConcealed() throws {
        let folder = try TemporaryFolder()
        let spec = folder.url.appendingPathComponent("reset.yaml")
        try Data("""
        openapi: 3.0.3
        info: { title: Reset, version: 1.0.0 }
        servers: [ { url: 'https://api.reset.example' } ]
        paths:
          /reset/{reset_token}:
            get:
              parameters:
                - { name: reset_token, in: path, required: true, schema: { type: string } }
                - { name: lang, in: query, required: true, schema: { type: string } }
              responses: { '200': { description: ok } }
        """.utf8).write(to: spec)
        let journal = folder.url.appendingPathComponent("app.jsonl")
        try Data(#"{"v":1,"kind":"request","id":1,"method":"GET","url":"https://api.reset.example/reset/LEAKED-TOKEN","status":200}"#.utf8 + Data("\n".utf8)).write(to: journal)
        let report = try ContractCheck(openAPI: spec).check(journal: journal)
        let request = try #require(report.nonConformingRequests.first)
        #expect(request.entry == "#1 GET https://api.reset.example/reset/REDACTED")
        #expect(request.findings.map(\.message) == ["required query parameter 'lang' is missing"])
        #expect(request.findings.allSatisfy { $0.entry == request.entry })
        #expect(!report.description.contains("LEAKED"), "\(report)")
    }
}
#endif
