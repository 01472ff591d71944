#if Tools
import Foundation
import Testing
import StubKitTestSupport

/// `stublint` run as a child process, against the broken-bundle fixtures and the example bundles.
struct StublintTests {
    @Test("stublint prints each fixture's exact golden output and exits 1 on errors, 0 otherwise", arguments: BrokenBundleTests.cases)
    func golden(_ name: String) throws {
        let folder = BrokenBundleTests.caseFolder(name)
        let out = try ChildProcess.run("stublint", arguments: ["lint", "."], currentDirectory: folder)
        try GoldenFile.expect(out.stdout, matches: folder.appendingPathComponent("stublint.txt"))
        let hasErrors = out.stdout.contains(": error: ")
        #expect(out.status == (hasErrors ? 1 : 0), "\(out.stderr)")
    }

    @Test("the example bundles are clean, and --strict fails on a warning")
    func examplesClean() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "StubBundles"])
        #expect(out.status == 0)
        #expect(out.stdout.hasPrefix("0 errors, 0 warnings, 0 notes in 8 bundles"))
        let shadowed = try ChildProcess.run("stublint", arguments: ["lint", "--strict", "Tests/Fixtures/broken/shadowed_rule"])
        #expect(shadowed.status == 1)
        let lax = try ChildProcess.run("stublint", arguments: ["lint", "Tests/Fixtures/broken/shadowed_rule"])
        #expect(lax.status == 0)
    }

    @Test("bad usage and missing paths exit 2 with a message")
    func badInput() throws {
        let missing = try ChildProcess.run("stublint", arguments: ["lint", "no/such/folder"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("no such file or folder 'no/such/folder'"))
        let file = try ChildProcess.run("stublint", arguments: ["lint", "Package.swift"])
        #expect(file.status == 2)
        let format = try ChildProcess.run("stublint", arguments: ["lint", "--format", "xml", "StubBundles"])
        #expect(format.status != 0)
    }

    @Test("--format json gives machine-readable diagnostics with positions")
    func jsonFormat() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "--format", "json", "Tests/Fixtures/broken/unknown_key"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])
        let first = try #require((object["diagnostics"] as? [[String: Any]])?.first)
        #expect(first["code"] as? String == "SK010")
        #expect(first["line"] as? Int == 2)
        #expect(first["column"] as? Int == 19)
        #expect(first["keyPath"] as? String == "[0].stauts")
        #expect(first["fix"] as? String == "did you mean 'status'?")
        #expect((object["summary"] as? [String: Int])?["errors"] == 1)
    }

    @Test("--format github writes workflow annotations")
    func githubFormat() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "--format", "github", "Tests/Fixtures/broken/negative_delay"])
        #expect(out.stdout.hasPrefix("::error file=Tests/Fixtures/broken/negative_delay/b/stubsRules.json,line=2,col=28,title=SK017::[0].delay: delay -1.5 is negative"))
    }

    @Test("--format junit writes a report with one failing case per broken bundle")
    func junitFormat() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "--format", "junit", "Tests/Fixtures/broken/case_colliding_templates", "StubBundles"])
        #expect(out.stdout.contains(#"<testsuites name="stublint" tests="10" failures="1">"#))
        #expect(out.stdout.contains(#"<testcase classname="stublint" name="menu">"#))
        #expect(out.stdout.contains(#"<testcase classname="stublint" name="offline"/>"#))
    }

    @Test("--quiet prints only the summary")
    func quiet() throws {
        let out = try ChildProcess.run("stublint", arguments: ["lint", "--quiet", "Tests/Fixtures/broken/unknown_key"])
        #expect(out.stdout == "1 error, 0 warnings, 0 notes in 1 bundle (0 rules)\n")
    }

    @Test("explain names the answering rule, or the closest rules and the field that differed")
    func explain() throws {
        let hit = try ChildProcess.run("stublint", arguments: ["explain", "StubBundles/restaurants_base", "StubBundles/restaurants_closed", "-m", "POST", "https://api.takeaway.example/orders"])
        #expect(hit.status == 0)
        #expect(hit.stdout.contains("answered by restaurants_closed: ordering refused"))
        #expect(hit.stdout.contains("StubBundles/restaurants_closed/stubsRules.plist:20:2"))
        #expect(hit.stdout.contains("status 409, response file order_refused.json"))

        let miss = try ChildProcess.run("stublint", arguments: ["explain", "StubBundles/restaurants_base", "https://api.takeaway.example/restaurants/1/menus"])
        #expect(miss.status == 1)
        #expect(miss.stdout.contains("no rule answers it (active bundles: restaurants_base)"))
        #expect(miss.stdout.contains("segment 3 is 'menus', expected 'menu'"))

        let header = try ChildProcess.run("stublint", arguments: ["explain", "StubBundles/restaurants_base", "-m", "DELETE", "https://other.example/basket"])
        #expect(header.stdout.contains("host: expected api.takeaway.example, got other.example"))

        let body = try ChildProcess.run("stublint", arguments: ["explain", "StubBundles/order_flow", "-m", "POST", "--data", #"{"restaurantId": 2}"#, "https://api.takeaway.example/orders"])
        #expect(body.status == 1)
        #expect(body.stdout.contains(#"body: expected JSON containing {"restaurantId":1}, got '{"restaurantId": 2}' (the JSON lacks some of the fields or values)"#), "\(body.stdout)")
        let answered = try ChildProcess.run("stublint", arguments: ["explain", "StubBundles/order_flow", "-m", "POST", "-d", #"{"restaurantId": 1, "items": [3]}"#, "https://api.takeaway.example/orders"])
        #expect(answered.stdout.contains("answered by order_flow: place order"))
    }

    @Test("--absolute-paths prints absolute file paths; --stamp is written on a pass and removed on a failure")
    func buildStepOptions() throws {
        let folder = try TemporaryFolder()
        let stamp = folder.url.appendingPathComponent("StubLint_App.swift")
        let broken = "Tests/Fixtures/broken/invalid_status"
        let failing = try ChildProcess.run("stublint", arguments: ["lint", "--absolute-paths", "--stamp", stamp.path, broken])
        #expect(failing.status == 1)
        #expect(failing.stdout.hasPrefix(PackagePaths.root.appendingPathComponent(broken).standardizedFileURL.path + "/b/stubsRules.json:2:29: error: "), "\(failing.stdout)")
        #expect(!FileManager.default.fileExists(atPath: stamp.path))

        let passing = try ChildProcess.run("stublint", arguments: ["lint", "--stamp", stamp.path, "StubBundles/offline"])
        #expect(passing.status == 0)
        let stampText = try String(contentsOf: stamp, encoding: .utf8)
        #expect(stampText.hasPrefix("// "), "the stamp is compiled as Swift: \(stampText)")
        // A passing lint of other bundles leaves the stamp as it was (same text, same file), so the target
        // that compiles it is not rebuilt each time a bundle changes.
        let written = try FileManager.default.attributesOfItem(atPath: stamp.path)[.systemFileNumber] as? Int
        let passingOther = try ChildProcess.run("stublint", arguments: ["lint", "--stamp", stamp.path, "StubBundles/restaurants_base"])
        #expect(passingOther.status == 0, "\(passingOther.stdout)")
        #expect(try String(contentsOf: stamp, encoding: .utf8) == stampText)
        #expect(try FileManager.default.attributesOfItem(atPath: stamp.path)[.systemFileNumber] as? Int == written,
                "the stamp was rewritten although its text did not change")
        let failingAgain = try ChildProcess.run("stublint", arguments: ["lint", "--stamp", stamp.path, broken])
        #expect(failingAgain.status == 1)
        #expect(!FileManager.default.fileExists(atPath: stamp.path), "a failed lint left the previous stamp, so the build step would look up to date")
        #expect(failingAgain.stdout.hasPrefix(broken + "/b/stubsRules.json:2:29: error: "), "relative by default: \(failingAgain.stdout)")
    }
}
#endif
