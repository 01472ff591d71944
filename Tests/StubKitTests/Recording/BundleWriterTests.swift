import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// The bundle writer on its own, no network: what it writes loads, lints clean and answers the
/// requests it was written from.
struct BundleWriterTests {
    typealias Conditions = BundleWriter.RequestConditions

    func text(_ body: String, status: Int = 200) -> BundleWriter.Response {
        .init(status: status, headers: ["Content-Type": "text/plain", "Content-Length": "3", "Date": "today"], body: .data(Data(body.utf8)), fileExtension: "txt")
    }

    func answer(_ engine: StubEngine, _ url: String, method: String = "GET", body: String? = nil) -> String? {
        guard case .answer(let match)? = Optional(engine.decision(for: StubRequest(method: method, url: URL(string: url)!, body: body.map { Data($0.utf8) }))),
              case .file(let file)? = Optional(match.response.body) else { return nil }
        return try? String(contentsOf: file, encoding: .utf8)
    }

    @Test("a rule without a query recorded before one with it does not shadow it; both answer their own request")
    func specificFirst() throws {
        let folder = try TemporaryFolder()
        let writer = try BundleWriter(folder: folder.url.appendingPathComponent("b"))
        try writer.append(Conditions(method: "GET", host: "h.example", path: "/items"), text("all"))
        try writer.append(Conditions(method: "GET", host: "h.example", path: "/other"), text("other"))
        try writer.append(Conditions(method: "GET", host: "h.example", path: "/items", query: ["page": .equals("2")]), text("page 2"))
        try writer.append(Conditions(method: "POST", host: "h.example", path: "/items", body: .equalsJSON(#"{"a":1}"#)), text("made"))
        let result = BundleLoader(options: .lint).load(folder: writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        #expect(result.bundle.rules.map(\.displayName) == ["GET /items", "GET /items", "GET /other", "POST /items"])
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        #expect(answer(engine, "https://h.example/items?page=2") == "page 2")
        #expect(answer(engine, "https://h.example/items") == "all")
        #expect(answer(engine, "https://h.example/items", method: "POST", body: #"{ "a" : 1 }"#) == "made")
        let rules = try String(contentsOf: writer.rulesFile, encoding: .utf8)
        #expect(!rules.contains("Content-Length") && !rules.contains("Date"))
    }

    @Test("path segments with braces or stars are written as literals that match only themselves")
    func literalPaths() throws {
        let folder = try TemporaryFolder()
        let writer = try BundleWriter(folder: folder.url.appendingPathComponent("b"))
        let file = try writer.append(Conditions(method: "GET", host: nil, path: "/files/{id}/*"), text("odd"))
        #expect(file == "GET_files_id.txt")
        let result = BundleLoader(options: .lint).load(folder: writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        #expect(answer(engine, "https://x.example/files/%7Bid%7D/%2A") == "odd")
        #expect(answer(engine, "https://x.example/files/7/abc") == nil)
    }

    @Test("JSON bodies are stored byte-exact by default, pretty with sorted keys on request, and re-serialized when redacted", arguments: [false, true])
    func jsonBodies(pretty: Bool) throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "b", folder: folder.url, prettyJSON: pretty))
        func store(_ path: String, _ json: String) throws -> String {
            let capture = try #require(recorder.makeCapture())
            capture.append(Data(json.utf8))
            let request = StubRequest(url: URL(string: "https://h.example\(path)")!)
            let file = try recorder.record(request, status: 200, headers: ["Content-Type": "application/json"], capture: capture).get()
            return try String(contentsOf: recorder.writer.folder.appendingPathComponent(file), encoding: .utf8)
        }
        let plain = try store("/plain", #"{"b":1,  "a":[1,2]}"#)
        let redacted = try store("/token", #"{"token":"abc","a":1}"#)
        if pretty {
            #expect(plain.contains("\n") && plain.firstRange(of: "\"a\"")!.lowerBound < plain.firstRange(of: "\"b\"")!.lowerBound)
        } else {
            #expect(plain == #"{"b":1,  "a":[1,2]}"#)
        }
        #expect(redacted.contains(Redactor.placeholder) && !redacted.contains("abc"))
        #expect(recorder.summary.redacted == 1)
    }

    @Test("a kill at any step of an append leaves a bundle that lints clean, and reopening it goes on cleanly", arguments: BundleWriter.WriteStep.allCases)
    func killedAtEveryStep(_ step: BundleWriter.WriteStep) throws {
        let folder = try TemporaryFolder()
        let live = folder.url.appendingPathComponent("b"), snapshot = folder.url.appendingPathComponent("killed")
        let armed = Locked(false)
        let writer = try BundleWriter(folder: live, stepObserver: { reached in
            // What a kill right now would leave on disk.
            guard reached == step, armed.withLock({ $0 }) else { return }
            try? FileManager.default.copyItem(at: live, to: snapshot)
        })
        try writer.append(Conditions(method: "GET", host: nil, path: "/first"), text("first"))
        armed.withLock { $0 = true }
        try writer.append(Conditions(method: "GET", host: nil, path: "/second"), text("second"))
        let killed = BundleLoader(options: .lint).load(folder: snapshot)
        #expect(killed.diagnostics.isEmpty, "\(killed.diagnostics.map(\.description))")
        #expect(killed.bundle.rules.first?.displayName == "GET /first")

        let reopened = try BundleWriter(folder: snapshot)
        try reopened.append(Conditions(method: "GET", host: nil, path: "/third"), text("third"))
        let after = BundleLoader(options: .lint).load(folder: snapshot)
        #expect(after.diagnostics.isEmpty, "\(after.diagnostics.map(\.description))")
        #expect(after.bundle.rules.last?.displayName == "GET /third")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: snapshot.path).filter { $0.hasPrefix(".") }
        #expect(hidden.isEmpty, "leftovers of the killed append: \(hidden)")
    }

    @Test("eight threads appending at once lose nothing and interleave no files")
    func concurrentAppends() throws {
        let folder = try TemporaryFolder()
        let writer = try BundleWriter(folder: folder.url.appendingPathComponent("b"))
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for i in 0..<25 {
                _ = try? writer.append(Conditions(method: "GET", host: nil, path: "/t\(thread)", query: ["i": .equals("\(i % 5)")]),
                                       text(String(repeating: "\(thread)-\(i) ", count: 200)))
            }
        }
        let result = BundleLoader(options: .lint).load(folder: writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        #expect(result.bundle.rules.count == 40)
        #expect(result.bundle.rules.allSatisfy { $0.sequence?.responses.count == 5 })
        // Every file holds exactly one body, whole.
        let files = try FileManager.default.contentsOfDirectory(atPath: writer.folder.path).filter { $0.hasSuffix(".txt") }
        #expect(files.count == 200)
        for name in files {
            let body = try String(contentsOf: writer.folder.appendingPathComponent(name), encoding: .utf8)
            let words = Set(body.split(separator: " "))
            #expect(words.count == 1, "\(name) mixes bodies")
        }
    }
}
