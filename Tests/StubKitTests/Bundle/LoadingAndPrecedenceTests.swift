import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

struct LoadingAndPrecedenceTests {
    /// The same two rules in JSON, in an XML plist, and in the legacy keys.
    static let json = """
    [
      { "method": "POST", "urlRegex": ".*/sign_up", "status": 201, "response": "signup.json" },
      { "method": "GET", "urlRegex": ".*/medications", "status": 200, "response": "meds.json" }
    ]
    """
    static let plist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0">
    <array>
      <dict><key>method</key><string>POST</string><key>urlRegex</key><string>.*/sign_up</string><key>status</key><integer>201</integer><key>response</key><string>signup.json</string></dict>
      <dict><key>method</key><string>GET</string><key>urlRegex</key><string>.*/medications</string><key>status</key><integer>200</integer><key>response</key><string>meds.json</string></dict>
    </array>
    </plist>
    """
    static let legacy = """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0">
    <array>
      <dict><key>matching_url</key><string>.*/sign_up</string><key>json_file</key><string>signup</string><key>status_code</key><string>201</string><key>http_method</key><string>POST</string><key>inline_response</key><string></string></dict>
      <dict><key>matching_url</key><string>.*/medications</string><key>json_file</key><string>meds</string><key>status_code</key><string>200</string><key>http_method</key><string>GET</string><key>inline_response</key><string></string></dict>
    </array>
    </plist>
    """

    /// What a rule means, as a comparable string.
    static func summary(_ bundle: StubBundle) -> [String] {
        bundle.rules.map { rule in
            var body = ""
            if case .file(let url) = rule.response.body { body = url.lastPathComponent }
            return "\(rule.request.methodsDescription) \(rule.request.pathDescription) host=\(rule.request.host ?? "*") -> \(rule.response.status) \(body) \(rule.response.effectiveContentType ?? "")"
        }
    }

    @Test("JSON, plist and the legacy keys load the same rules")
    func formatsAgree() throws {
        let folder = try TemporaryFolder()
        let files = ["signup.json": "{}", "meds.json": "[]"]
        let loader = BundleLoader()
        var summaries: [[String]] = []
        for (name, rulesFile, text) in [("json", "stubsRules.json", Self.json), ("plist", "stubsRules.plist", Self.plist), ("legacy", "stubRules.plist", Self.legacy)] {
            let bundle = try folder.bundle(name, files.merging([rulesFile: text]) { a, _ in a })
            let result = loader.load(folder: bundle)
            #expect(!result.diagnostics.hasErrors, "\(name): \(result.diagnostics)")
            summaries.append(Self.summary(result.bundle))
        }
        #expect(summaries[0].count == 2)
        #expect(summaries[0] == summaries[1])
        #expect(summaries[0] == summaries[2])
    }

    @Test("the real-world Just Eat-style bundles load and answer their requests",
          .enabled(if: PackagePaths.realworldTestsEnabled, "../shared/realworld is absent (CI requires it)"))
    func realWorldLegacyBundles() throws {
        let realworld = try #require(PackagePaths.realworld, "../shared/realworld is required in CI")
        let root = realworld.appendingPathComponent("stubrules/michaelhayman+OHHTTPStubsExtensions/Example/OHHTTPStubsExtensions")
        let engine = StubEngine(mode: .strict)
        try engine.activate(folder: root.appendingPathComponent("http_success_stubs.bundle"))
        let signUp = try #require(engine.match(StubRequest(method: "POST", url: URL(string: "https://api.example.com/v1/sign_up")!)))
        #expect(signUp.rule.response.status == 200)
        guard case .file(let url) = signUp.rule.response.body else { Issue.record("no file"); return }
        #expect(url.lastPathComponent == "POST_SignUp_200.json")
        #expect(signUp.rule.response.effectiveContentType == "application/json")
        #expect(engine.match(StubRequest(method: "GET", url: URL(string: "https://api.example.com/v1/sign_up")!)) == nil)

        // Layer the failure bundle over the success bundle: the later one answers.
        try engine.activate(folder: root.appendingPathComponent("http_failure_stubs.bundle"))
        #expect(engine.match(StubRequest(method: "GET", url: URL(string: "https://x/medications")!))?.rule.response.status == 422)
    }

    @Test("precedence: higher priority, then the later bundle, then file order")
    func precedence() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "base", rules: """
        [
          { "name": "base-first", "path": "/a/{id}", "body": "1" },
          { "name": "base-second", "path": "/a/{id}", "body": "2" },
          { "name": "base-priority", "path": "/p/**", "priority": 5, "body": "3" },
          { "name": "base-only", "path": "/only", "body": "4" }
        ]
        """)
        #expect(engine.match(StubRequest(url: URL(string: "https://h/a/1")!))?.rule.name == "base-first")
        try folder.activate(engine, bundle: "scenario", rules: """
        [
          { "name": "scenario-a", "path": "/a/**", "body": "5" },
          { "name": "scenario-p", "path": "/p/x", "body": "6" }
        ]
        """)
        #expect(engine.match(StubRequest(url: URL(string: "https://h/a/1")!))?.rule.name == "scenario-a")
        #expect(engine.match(StubRequest(url: URL(string: "https://h/p/x")!))?.rule.name == "base-priority")
        #expect(engine.match(StubRequest(url: URL(string: "https://h/only")!))?.rule.name == "base-only")
        #expect(engine.match(StubRequest(url: URL(string: "https://h/a/1")!))?.bundle == "scenario")
    }

    @Test("the answer never depends on the order files are written or listed")
    func independentOfListingOrder() throws {
        let rules = """
        [ { "name": "one", "path": "/x/**" }, { "name": "two", "path": "/x/{id}" }, { "name": "three", "path": "/**" } ]
        """
        var answers: Set<String> = []
        for order in [["a.json", "b.json", "stubsRules.json"], ["stubsRules.json", "b.json", "a.json"]] {
            let folder = try TemporaryFolder()
            let bundle = folder.url.appendingPathComponent("t")
            try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
            for name in order {
                try Data((name == "stubsRules.json" ? rules : "{}").utf8).write(to: bundle.appendingPathComponent(name))
            }
            let engine = StubEngine()
            try engine.activate(folder: bundle)
            answers.insert(engine.match(StubRequest(url: URL(string: "https://h/x/1")!))?.rule.name ?? "none")
        }
        #expect(answers == ["one"])
    }

    @Test("host, query, headers and method all have to match")
    func conditions() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine()
        try folder.activate(engine, bundle: "c", rules: """
        { "host": "API.example.com", "rules": [
          { "name": "q", "method": ["get", "HEAD"], "path": "/s", "query": { "q": "pizza" }, "requestHeaders": { "Accept-Language": "en" } }
        ] }
        """)
        func answer(_ method: String, _ url: String, _ headers: [String: String] = ["accept-language": "en"]) -> String? {
            engine.match(StubRequest(method: method, url: URL(string: url)!, headers: headers))?.rule.name
        }
        #expect(answer("GET", "https://api.example.com/s?q=pizza&page=2") == "q")
        #expect(answer("head", "https://API.EXAMPLE.com/s?q=pizza") == "q")
        #expect(answer("POST", "https://api.example.com/s?q=pizza") == nil)
        #expect(answer("GET", "https://other.example.com/s?q=pizza") == nil)
        #expect(answer("GET", "https://api.example.com/s?q=sushi") == nil)
        #expect(answer("GET", "https://api.example.com/s") == nil)
        #expect(answer("GET", "https://api.example.com/s?q=pizza", [:]) == nil)
    }

    @Test("a miss under the kill switch names the closest rules and what differed")
    func nearMissReport() throws {
        let folder = try TemporaryFolder()
        let engine = StubEngine(killSwitch: true)
        try folder.activate(engine, bundle: "n", rules: """
        [ { "name": "menu", "method": "GET", "path": "/restaurants/{id}/menu" }, { "name": "other", "method": "POST", "path": "/orders" } ]
        """)
        guard case .refuse(let report) = engine.decision(for: StubRequest(method: "POST", url: URL(string: "https://h/restaurants/1/menu")!)) else {
            Issue.record("not refused")
            return
        }
        #expect(report.nearMisses.first?.rule.name == "menu")
        #expect(report.nearMisses.first?.mismatches.map(\.field) == ["method"])
        #expect(report.description.contains("POST https://h/restaurants/1/menu"))
        #expect(report.description.contains("active bundles: n"))
    }

    @Test("concurrent lookups while bundles change always see a whole snapshot")
    func concurrentLookups() async throws {
        let folder = try TemporaryFolder()
        let a = try folder.bundle("a", ["stubsRules.json": #"[ { "name": "a", "path": "/x" } ]"#])
        let b = try folder.bundle("b", ["stubsRules.json": #"[ { "name": "b", "path": "/x" } ]"#])
        let engine = StubEngine()
        try engine.activate(folder: a)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<50 {
                    _ = try? engine.activate(folder: b)
                    engine.reset()
                    _ = try? engine.activate(folder: a)
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<500 {
                        let name = engine.match(StubRequest(url: URL(string: "https://h/x")!))?.rule.name
                        #expect(name == nil || name == "a" || name == "b")
                    }
                }
            }
        }
    }
}
