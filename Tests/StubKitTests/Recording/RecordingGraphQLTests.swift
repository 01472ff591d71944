import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// GraphQL traffic recorded from a loopback backend through the app's session, then replayed with
/// the network off by a client that prints its documents differently.
@Suite(.serialized)
struct RecordingGraphQLTests {
    /// Answers each operation with its name and variables; a persisted query's hash alone with
    /// Apollo's `PersistedQueryNotFound`.
    static func backend() throws -> LoopbackServer {
        try LoopbackServer { request in
            let json = ["Content-Type": "application/json"]
            guard let body = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
                return (400, json, Data(#"{"errors":[{"message":"not GraphQL"}]}"#.utf8))
            }
            guard body["query"] is String else {
                return (200, json, Data(#"{"errors":[{"message":"PersistedQueryNotFound","extensions":{"code":"PERSISTED_QUERY_NOT_FOUND"}}]}"#.utf8))
            }
            let variables = body["variables"].map { String(decoding: try! JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) } ?? "null"
            return (200, json, Data(#"{"data":{"operation":"\#(body["operationName"] as? String ?? "?")","variables":\#(variables)}}"#.utf8))
        }
    }

    static let hash = String(repeating: "5e", count: 32)
    static let getMenu = #"query GetMenu($id: ID!) { restaurant(id: $id) { id name } }"#

    /// The app's calls; `printed` picks how the client prints the document (a replay prints it otherwise).
    static func calls(printed: Bool) -> [String] {
        let document = printed ? #"query GetMenu($id: ID!) {\n  restaurant(id: $id) {\n    id\n    name\n  }\n}"# : getMenu
        let persisted = #""extensions":{"persistedQuery":{"version":1,"sha256Hash":"\#(hash)"}}"#
        return [
            #"{"operationName":"GetMenu","variables":{"id":"r1"},"query":"\#(document)"}"#,
            #"{"operationName":"GetMenu","variables":{"id":"r2"},"query":"\#(document)"}"#,
            #"{"operationName":"GetMenu","variables":{"id":"r3"},\#(persisted)}"#,
            #"{"operationName":"GetMenu","variables":{"id":"r3"},\#(persisted),"query":"\#(document)"}"#,
            #"{"operationName":"Login","variables":{"email":"ann@example.test","password":"\#(printed ? "other-pass" : "sekret-pass-000")"},"query":"mutation Login($email: String!, $password: String!) { login(email: $email, password: $password) { ok } }"}"#,
        ]
    }

    func perform(_ calls: [String], engine: StubEngine, base: URL) async -> [TaskResult] {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        var results: [TaskResult] = []
        for body in calls {
            results.append(await session.result("POST", base.appendingPathComponent("graphql").absoluteString, body: body, headers: ["Content-Type": "application/json"]))
        }
        return results
    }

    @Test("record GraphQL calls from a backend, replay them printed differently with the kill switch on: each operation and its variables get their own answer")
    func recordThenReplay() async throws {
        let backend = try Self.backend()
        let folder = try TemporaryFolder()
        let recording = StubEngine(recorder: try Recorder(configuration: RecorderConfiguration(template: "gql", folder: folder.url)))
        let recorded = await perform(Self.calls(printed: false), engine: recording, base: backend.baseURL)
        #expect(recorded.allSatisfy { $0.status == 200 }, "\(recorded.map(\.status))")
        #expect(recorded[2].text?.contains("PersistedQueryNotFound") == true)
        backend.stop()
        let rules = try String(contentsOf: folder.url.appendingPathComponent("gql/stubsRules.json"), encoding: .utf8)
        #expect(!rules.contains("requestBody") && !rules.contains("sekret-pass-000"), "\(rules)")

        let replay = StubEngine(killSwitch: true)
        try replay.activate(folder: folder.url.appendingPathComponent("gql"))
        let replayed = await perform(Self.calls(printed: true), engine: replay, base: backend.baseURL)
        for (i, (first, second)) in zip(recorded, replayed).enumerated() {
            #expect(second.status == first.status, "call \(i): \(second.error.map { "\($0)" } ?? "")")
            if i == 4 {
                // The backend echoed the password: stored redacted, and answered for another password.
                let data = second.json?["data"] as? [String: Any]
                #expect(data?["operation"] as? String == "Login" && second.text?.contains("sekret-pass-000") == false, "\(second.text ?? "nil")")
                continue
            }
            #expect(second.data == first.data, "call \(i): \(second.text ?? "nil") vs \(first.text ?? "nil")")
        }
    }
}
}
