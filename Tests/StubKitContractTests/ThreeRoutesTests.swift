#if Tools
import Foundation
import StubKit
import StubKitContract
import StubKitTestSupport
import Testing

/// The issue's bar: the stand-in app's conforming and non-conforming requests, checked by each of the
/// three routes (`stublint traffic` on its journal, `stubkit serve --openapi` as it sends them, and
/// `ContractCheck` from the runner), give the same findings request by request.
@Suite(.timeLimit(.minutes(3)))
struct ThreeRoutesTests {
    /// A finding as every route can state it: the request's number, the code and the message without
    /// the request's label (whose URL differs between an in-process app and one talking to a server).
    struct Finding: Hashable, CustomStringConvertible {
        var request: Int
        var code: String
        var message: String
        var description: String { "#\(request) \(code) \(message)" }
    }

    static func withoutLabel(_ message: String) -> String {
        guard message.hasPrefix("#"), let end = message.range(of: ": ") else { return message }
        return String(message[end.upperBound...])
    }

    static func number(_ label: String) -> Int { Int(label.dropFirst().prefix { $0.isNumber }) ?? 0 }

    @Test("stubdemo's requests give the same findings from stublint traffic, stubkit serve --openapi and ContractCheck")
    func sameFindingsByEveryRoute() throws {
        let requests = ContractCheckTests.conforming + ContractCheckTests.nonConforming
        let folder = try TemporaryFolder()

        // Routes 1 and 3: the app stubbed in process, its live journal checked by stublint and by the runner.
        let journal = try ContractCheckTests.journal(of: requests, in: folder)
        let stublint = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", ContractCheckTests.spec.path, "--format", "json", journal.path])
        #expect(stublint.status == 1, "\(stublint.stderr)")
        let diagnostics = try #require((try JSONSerialization.jsonObject(with: Data(stublint.stdout.utf8)) as? [String: Any])?["diagnostics"] as? [[String: Any]])
        let byStublint = diagnostics.filter { $0["severity"] as? String != "note" }.map { item in
            let message = item["message"] as? String ?? ""
            return Finding(request: Self.number(message), code: item["code"] as? String ?? "", message: Self.withoutLabel(message))
        }
        let report = try ContractCheck(openAPI: ContractCheckTests.spec).check(journal: journal)
        let byRunner = report.nonConformingRequests.flatMap { request in
            request.findings.map { Finding(request: Self.number(request.entry), code: $0.code.rawValue, message: $0.message) }
        }

        // Route 2: the same app with no stubs of its own, sending the same requests to the local server.
        let server = try ServerProcess([PackagePaths.fixtures.appendingPathComponent("openapi/bundles").path, "--template", "clean",
                                        "--openapi", ContractCheckTests.spec.path])
        let throughServer = requests.map { $0.replacingOccurrences(of: "https://api.takeaway.example", with: "\(server.baseURL.absoluteString)/api.takeaway.example") }
        let app = try ChildProcess.run("stubdemo", arguments: throughServer)
        #expect(app.status == 0, "\(app.stderr)")
        let fetched = try ChildProcess.run(executableURL: URL(fileURLWithPath: "/usr/bin/curl"), arguments: ["--silent", "--show-error", "\(server.baseURL.absoluteString)/__stubkit/journal.har"])
        let har = try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8)) as? [String: Any]
        let entries = ((har?["log"] as? [String: Any])?["entries"] as? [[String: Any]]) ?? []
        try #require(entries.count == 7, "\(entries.count) entries in the server's journal")
        let byServer: [Finding] = entries.enumerated().flatMap { index, entry -> [Finding] in
            (((entry["_stubkit"] as? [String: Any])?["contract"] as? [[String: Any]]) ?? [])
                .filter { $0["severity"] as? String != "note" }
                .map { Finding(request: index + 1, code: $0["code"] as? String ?? "", message: $0["message"] as? String ?? "") }
        }
        let exit = server.terminate(SIGTERM)
        #expect(exit.exited && exit.status == 0, "\(exit.stderr)")

        #expect(byStublint.count == 8, "\(byStublint)")
        #expect(byRunner == byStublint, "runner:\n\(byRunner.map(\.description).joined(separator: "\n"))\nstublint:\n\(byStublint.map(\.description).joined(separator: "\n"))")
        #expect(byServer == byStublint, "server:\n\(byServer.map(\.description).joined(separator: "\n"))\nstublint:\n\(byStublint.map(\.description).joined(separator: "\n"))")
        // Requests 1 and 2 conform; every other request has at least one finding, by every route.
        #expect(Set(byStublint.map { $0.request }) == [3, 4, 5, 6, 7])
    }
}
#endif
