#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// A web front end on its own origin calling `stubkit serve` from a real headless Chromium: a `fetch`
/// with a custom header, so the browser sends a CORS preflight first.
@Suite("stubkit serve with a headless browser", .timeLimit(.minutes(2)))
struct BrowserClientTests {
    static var browserRuns: Bool {
        HeadlessBrowser.executable != nil || HeadlessBrowser.isRequired || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// The page's origin is a second loopback server (another port, so another origin). The script
    /// writes what it got, or why it failed, into the page.
    static func page(fetching url: String) throws -> LoopbackServer {
        let html = """
        <!doctype html><html><body><pre id="result">pending</pre><script>
        const result = document.getElementById("result");
        fetch("\(url)", { headers: { "X-Test-Client": "chromium" } })
          .then(r => r.json().then(j => {
            result.textContent = "status " + r.status + ": " + j.restaurants.map(x => x.name).join(", ") + "; cache " + r.headers.get("cache-control");
          }))
          .catch(e => { result.textContent = "failed: " + e; });
        </script></body></html>
        """
        return try LoopbackServer(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
    }

    static func fetchResult(serverArguments: [String]) throws -> String {
        try withServer([stubBundles, "--template", "restaurants_base"] + serverArguments) { server in
            let origin = try page(fetching: "\(server.baseURL)/api.takeaway.example/restaurants")
            let dom = try HeadlessBrowser.renderedDOM(of: origin.baseURL.appendingPathComponent("index.html"), virtualTimeBudget: 20_000)
            let start = try #require(dom.range(of: "<pre id=\"result\">")), end = try #require(dom.range(of: "</pre>"))
            return String(dom[start.upperBound..<end.lowerBound])
        }
    }

    @Test("a page on another origin fetches stubbed data with a custom header through a CORS preflight (--cors)",
          .enabled(if: browserRuns, "no headless Chromium (install chromium-headless-shell or set STUBKIT_BROWSER)"))
    func corsFetch() throws {
        let result = try Self.fetchResult(serverArguments: ["--cors"])
        #expect(result == "status 200: Pizzeria Napoli, Sushi Kaito, Curry Corner; cache no-store")
    }

    @Test("without --cors the browser refuses the cross-origin answer",
          .enabled(if: browserRuns, "no headless Chromium (install chromium-headless-shell or set STUBKIT_BROWSER)"))
    func noCorsRefused() throws {
        let result = try Self.fetchResult(serverArguments: [])
        #expect(result.hasPrefix("failed: TypeError"), "\(result)")
    }
}
#endif
