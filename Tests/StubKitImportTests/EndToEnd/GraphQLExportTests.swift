#if Tools
import Foundation
@testable import StubKit
import StubKitImport
import StubKitTestSupport
import Testing

/// `stubkit export` writes a GraphQL rule as a request it answers: a POST whose body names the
/// operation, carries a document of its type and its variables (or only a persisted query's hash).
@Suite("GraphQL rules exported as HAR")
struct GraphQLExportTests {
    @Test("each exported request of graphql_menu is answered by the rule it was exported from")
    func exportedRequestsAreAnsweredByTheirRules() throws {
        let folder = PackagePaths.stubBundles.appendingPathComponent("graphql_menu")
        let exported = try HARExporter().export([folder])
        let har = try JSONDecoder().decode(HAR.self, from: exported.data)
        let engine = StubEngine(killSwitch: true)
        try engine.activate(folder: folder)
        let names = ["restaurants near EC1A", "no restaurants elsewhere", "menu of Pizza Palace", "unknown restaurant", "order placed",
                     "persisted query not known yet"]
        #expect(har.log.entries.count == names.count)
        for (entry, name) in zip(har.log.entries, names) {
            let exportedRequest = try #require(entry.request)
            #expect(exportedRequest.method == "POST")
            let body = try #require(exportedRequest.postData?.text)
            let request = StubRequest(method: exportedRequest.method ?? "", url: URL(string: exportedRequest.url ?? "")!,
                                      headers: ["Content-Type": "application/json"], body: Data(body.utf8))
            guard case .answer(let match) = engine.decision(for: request) else {
                Issue.record("the exported request for '\(name)' is not answered: \(body)")
                continue
            }
            #expect(match.rule.name == name, "\(body)")
        }
    }

    @Test("a GraphQL rule for GET is exported with its fields in the URL, not a body, and answered by its rule")
    func getIsExportedInTheURL() throws {
        let folder = try TemporaryFolder()
        let bundle = try folder.bundle("g", ["stubsRules.json": #"""
        [{ "name": "menu over GET", "method": "GET", "path": "/graphql", "host": "api.test",
           "graphql": { "operationName": "GetMenu", "variables": { "id": "r 1+2" } }, "body": "menu" }]
        """#])
        let har = try JSONDecoder().decode(HAR.self, from: try HARExporter().export([bundle]).data)
        let exported = try #require(har.log.entries.first?.request)
        #expect(exported.method == "GET")
        #expect(exported.postData == nil)
        let engine = StubEngine(killSwitch: true)
        try engine.activate(folder: bundle)
        guard case .answer(let match) = engine.decision(for: StubRequest(method: "GET", url: URL(string: exported.url ?? "")!)) else {
            Issue.record("the exported GET \(exported.url ?? "") is not answered")
            return
        }
        #expect(match.rule.name == "menu over GET")
    }
}
#endif
