#if Tools
import Foundation
import StubKit
import StubKitTestSupport
import Testing

/// `stublint traffic` on inputs that are cut off, huge, not UTF-8 or not traffic at all, and on bodies
/// the spec does not describe or describes recursively: a clear message, bounded work, never a crash.
struct TrafficBadInputTests {
    static let spec = TrafficCheckTests.spec
    static let api = TrafficCheckTests.api

    /// A fresh folder for one test's inputs.
    static func folder() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-traffic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    static func journalLine(id: Int, method: String = "GET", path: String, body: String? = nil, contentType: String? = nil) -> String {
        var object: [String: Any] = ["v": 1, "kind": "request", "id": id, "method": method, "url": "\(api)\(path)", "status": 200]
        if let body { object["requestBody"] = body }
        if let contentType { object["requestHeaders"] = ["Content-Type": contentType, "Idempotency-Key": "k"] }
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return String(decoding: data, as: UTF8.self)
    }

    @Test("a HAR cut off mid-way exits 2 naming the file, line and column; the other inputs are still checked")
    func cutOffHAR() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = try Data(contentsOf: TrafficCheckTests.folder.appendingPathComponent("browser.har"))
        let cut = dir.appendingPathComponent("cut.har")
        try whole.prefix(whole.count / 2).write(to: cut)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, cut.path, "Tests/Fixtures/openapi/traffic/stubkit-export.har"])
        #expect(out.status == 2)
        #expect(out.stderr.hasPrefix("stublint: error: \(cut.path):"), "\(out.stderr)")
        #expect(out.stderr.contains(try Regex(#"cut\.har:\d+:\d+: not a HAR file or a live journal: "#)), "\(out.stderr)")
        #expect(out.stdout.contains("stubkit-export.har:55:7: error:"), "the readable input was not checked: \(out.stdout)")
    }

    @Test("live journal lines that are not UTF-8, not JSON or over 16 MB are findings at their line, and the lines after them are read")
    func badJournalLines() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("app.jsonl")
        var data = Data((Self.journalLine(id: 1, path: "/restaurants") + "\n").utf8)
        data.append(contentsOf: [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D, 0x0A])  // {"\xFF\xFE"}
        data.append(Data(("{\"v\":1,\"kind\":\"request\",\"url\":\"" + String(repeating: "a", count: 17 << 20) + "\"}\n").utf8))
        data.append(Data((Self.journalLine(id: 2, path: "/restaurant") + "\n").utf8))
        try data.write(to: file)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, file.path])
        #expect(out.status == 1)
        #expect(out.stdout.contains("\(file.path):2:1: error: line 2 is not UTF-8 text; skipped [SK216]"), "\(out.stdout)")
        #expect(out.stdout.contains("\(file.path):3:1: error: line 3 is longer than 16 MB; skipped [SK216]"), "\(out.stdout)")
        #expect(out.stdout.contains("\(file.path):4:1: error: #2 GET \(Self.api)/restaurant: no path of the OpenAPI document matches"), "\(out.stdout)")
        #expect(out.stdout.hasSuffix("3 errors, 0 warnings, 0 notes in 1 input (2 entries)\n"), "\(out.stdout)")
    }

    @Test("a missing input, a file that is neither HAR nor journal, or an unreadable spec exit 2; no --openapi is a usage error (64)")
    func unreadable() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, "no/such.har"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("stublint: error: no/such.har: no such file or folder"), "\(missing.stderr)")
        let text = dir.appendingPathComponent("notes.txt")
        try Data("hello\n".utf8).write(to: text)
        let notTraffic = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, text.path])
        #expect(notTraffic.status == 2)
        #expect(notTraffic.stderr.contains("\(text.path):1:1: not a HAR file or a live journal"), "\(notTraffic.stderr)")
        let badSpec = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", "Tests/Fixtures/openapi/invalid.yaml", "Tests/Fixtures/openapi/traffic/app.jsonl"])
        #expect(badSpec.status == 2)
        #expect(badSpec.stderr.contains("[SK200]"), "\(badSpec.stderr)")
        let usage = try ChildProcess.run("stublint", arguments: ["traffic", "Tests/Fixtures/openapi/traffic/app.jsonl"])
        #expect(usage.status == 64, "\(usage.stderr)")
    }

    @Test("a recursive schema checks a nested body to its end, and notes rather than loops where nesting passes the validator's bound; a body the operation does not describe is a note")
    func recursiveAndUndescribed() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Notes, each answering the one before, the last with a number where text belongs.
        func order(depth: Int) -> String {
            var note = #"{"text": 7}"#
            for _ in 0..<(depth - 1) { note = #"{"text": "ok", "reply": \#(note)}"# }
            return #"{"restaurantId": 42, "items": [{"name": "Margherita", "quantity": 1}], "note": \#(note)}"#
        }
        let file = dir.appendingPathComponent("app.jsonl")
        let lines = [
            Self.journalLine(id: 1, method: "POST", path: "/orders", body: order(depth: 40), contentType: "application/json"),
            Self.journalLine(id: 2, method: "POST", path: "/orders", body: order(depth: 200), contentType: "application/json"),
            Self.journalLine(id: 3, method: "DELETE", path: "/orders/o-1", body: "raw bytes", contentType: "application/octet-stream"),
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, file.path])
        let pointer = "/note" + String(repeating: "/reply", count: 39) + "/text"
        #expect(out.stdout.contains("\(file.path):1:1: error: #1 POST \(Self.api)/orders: the request body does not fit the schema at \(pointer): expected string, got integer [SK212]"),
                "\(out.stdout.prefix(2000))")
        let deep = out.stdout.split(separator: "\n").filter { $0.hasPrefix("\(file.path):2:1:") }
        #expect(!deep.isEmpty && deep.allSatisfy { $0.contains(": note: ") && $0.hasSuffix("nest deeper than 256 levels; not checked further [SK215]") }, "\(deep.prefix(3))")
        #expect(out.stdout.contains("\(file.path):3:1: note: #3 DELETE \(Self.api)/orders/o-1: the request has a body (9 bytes), which DELETE /orders/{orderId} does not document; not checked [SK215]"),
                "\(out.stdout.suffix(2000))")
        #expect(out.status == 1)
    }

    @Test("query arrays are read in their style (repeated items when exploded, the default; comma-separated with explode: false); path segments are split before decoding")
    func parameterStyles() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("app.jsonl")
        let lines = [
            Self.journalLine(id: 1, path: "/restaurants?cuisine=pizza&cuisine=thai"),
            Self.journalLine(id: 2, path: "/restaurants?cuisine=pizza,thai"),
            Self.journalLine(id: 3, method: "DELETE", path: "/orders/o-1?reasons=late,changed-mind"),
            Self.journalLine(id: 4, method: "DELETE", path: "/orders/o-1?reasons=late,cold"),
            // An escaped '/' stays inside its segment: the {id} segment, not a path of its own.
            Self.journalLine(id: 5, path: "/restaurants/4%2F2"),
        ]
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let out = try ChildProcess.run("stublint", arguments: ["traffic", "--openapi", Self.spec, file.path])
        let findings = out.stdout.split(separator: "\n").filter { $0.contains(": error: ") }.map { String($0.drop { $0 != "#" }) }
        #expect(findings == [
            "#2 GET \(Self.api)/restaurants?cuisine=pizza,thai: query parameter 'cuisine' is 'pizza,thai', which does not fit its schema: /0: expected one of \"pizza\", \"sushi\", \"thai\", got \"pizza,thai\" [SK211]",
            "#4 DELETE \(Self.api)/orders/o-1?reasons=late,cold: query parameter 'reasons' is 'late,cold', which does not fit its schema: /1: expected one of \"late\", \"wrong\", \"changed-mind\", got \"cold\" [SK211]",
            "#5 GET \(Self.api)/restaurants/4%2F2: path parameter 'id' is '4/2', which does not fit its schema: expected integer, got string [SK211]",
        ], "\(out.stdout)")
    }
}
#endif
