import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// The HTML report rendered in a real headless browser, and the journal handed across processes.
@Suite(.serialized)
struct JournalReportTests {
    @Test("the HTML report, rendered by a headless browser, shows hits per rule, unused rules and misses with their reasons",
          .enabled(if: HeadlessBrowser.executable != nil || HeadlessBrowser.isRequired, "no headless browser (install chromium-headless-shell; CI requires it)"))
    func htmlReportInBrowser() async throws {
        let engine = StubEngine(killSwitch: true)
        try engine.activate(folder: PackagePaths.stubBundles.appendingPathComponent("restaurants_base"))
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        _ = await session.result("GET", "https://api.takeaway.example/restaurants")
        _ = await session.result("GET", "https://api.takeaway.example/restaurants")
        _ = await session.result("GET", "https://api.takeaway.example/restaurants/1/menu")
        _ = await session.result("GET", "https://api.takeaway.example/restaurants/1/menus")

        let folder = try TemporaryFolder()
        let file = folder.url.appendingPathComponent("report.html")
        try JournalReport(engine: engine).write(to: file)
        let dom = try HeadlessBrowser.renderedDOM(of: file)

        // Written by the page's own script, so only a browser that ran it shows this line.
        #expect(dom.contains(#"<p id="coverage">Rule coverage: 2 of 8 rules used (25%).</p>"#), "\(dom.prefix(600))")
        #expect(dom.contains("4 requests, 3 answered by a rule, 1 unanswered."))
        #expect(dom.contains(#"<tr data-hits="2"><td>restaurants_base</td><td>list restaurants</td>"#))
        #expect(dom.contains(#"<table id="unused">"#))
        #expect(dom.contains("<td>restaurants_base</td><td>place order</td>"))
        #expect(dom.contains("segment 3 is 'menus', expected 'menu'"))

        let png = folder.url.appendingPathComponent("report.png")
        try HeadlessBrowser.screenshot(of: file, to: png)
        let size = (try FileManager.default.attributesOfItem(atPath: png.path)[.size] as? NSNumber)?.intValue ?? 0
        #expect(size > 1000, "the browser rendered a real page")
    }

    @Test("stubdemo writes its journal as HAR when it exits, for the test runner in the other process")
    func journalAcrossProcesses() throws {
        let folder = try TemporaryFolder()
        let har = folder.url.appendingPathComponent("journal.har")
        let api = "https://api.takeaway.example"
        let out = try ChildProcess.run("stubdemo", arguments: [
            "STUB_API_CALLS_order_flow", "STUB_KILL_NETWORK", "STUB_NOW=2024-05-01T19:30:00Z",
            "POST", "\(api)/orders", "--data", #"{"restaurantId": 1, "items": [11]}"#, "--header", "Content-Type: application/json",
            "GET", "\(api)/orders/9001",
            "GET", "\(api)/basket",
        ], environment: ["STUB_JOURNAL_HAR": har.path])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.jsonLines.first?["status"] as? Int == 201)

        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any])
        let entries = try #require((object["log"] as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(entries.count == 3)
        let requests = entries.compactMap { $0["request"] as? [String: Any] }
        #expect(requests.map { $0["method"] as? String } == ["POST", "GET", "GET"])
        #expect((requests[0]["postData"] as? [String: Any])?["text"] as? String == #"{"restaurantId": 1, "items": [11]}"#)
        #expect((requests[0]["headers"] as? [[String: String]])?.contains { $0["name"] == "content-type" && $0["value"] == "application/json" } == true)
        let stubkit = entries.compactMap { $0["_stubkit"] as? [String: Any] }
        #expect(stubkit.map { $0["rule"] as? String } == ["place order", "order status, polled", nil])
        #expect((stubkit[2]["nearMisses"] as? [[String: Any]])?.isEmpty == false)
    }

    @Test("STUB_NOW and STUB_SEED come from launch arguments and environment; bad values are clear errors")
    func launchSettings() throws {
        let c = StubLaunchSettings(arguments: ["/app", "STUB_NOW=2024-05-01T19:30:00Z", "-STUB_SEED=7"], environment: [:])
        #expect(c.now == ISO8601DateFormatter().date(from: "2024-05-01T19:30:00Z"))
        #expect(c.seed == 7)
        let e = StubLaunchSettings(arguments: ["/app"], environment: ["STUB_NOW": "2024-05-01T19:30:00.250Z", "STUB_SEED": "9"])
        #expect(e.seed == 9)
        #expect(e.now != nil)
        let bad = StubLaunchSettings(arguments: ["/app", "STUB_API_CALLS_offline", "STUB_NOW=yesterday"], environment: [:])
        do {
            _ = try StubActivation.prepare(bad, locator: BundleLocator(searchFolders: [PackagePaths.stubBundles]))
            Issue.record("accepted STUB_NOW=yesterday")
        } catch {
            #expect(error.description.contains("STUB_NOW=yesterday: not an ISO 8601 date-time"))
        }
    }
}
}
