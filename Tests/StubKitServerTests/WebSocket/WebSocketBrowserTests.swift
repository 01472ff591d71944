#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// A page on another origin opens a WebSocket to the server in a real headless Chromium.
@Suite("Local server: WebSockets from a headless browser", .timeLimit(.minutes(2)))
struct WebSocketBrowserTests {
    @Test("a page on another origin talks to a WebSocket stub: onConnect, a templated reply, the close code and reason",
          .enabled(if: BrowserClientTests.browserRuns, "no headless Chromium (install chromium-headless-shell or set STUBKIT_BROWSER)"))
    func crossOrigin() async throws {
        let server = try await WebSocketFixture.server()
        let html = """
        <!doctype html><html><body><pre id="result">pending</pre><script>
        const result = document.getElementById("result");
        const log = [];
        const ws = new WebSocket("ws://127.0.0.1:\(server.port)/api.chat.example/chat/browser", ["chat.v1"]);
        ws.onopen = () => log.push("open " + ws.protocol);
        ws.onmessage = e => {
          if (e.data === "tick") return;
          if (e.data instanceof Blob) { log.push("binary " + e.data.size); ws.send(JSON.stringify({type: "order", item: "ramen"})); return; }
          log.push(e.data);
          if (e.data.startsWith("{")) ws.send("bye");
        };
        let closed = false;
        ws.onclose = e => { closed = true; log.push("close " + e.code + " " + e.reason); result.textContent = log.join(" | "); };
        ws.onerror = () => log.push("error");
        // Virtual time stops while a request is pending, not while a WebSocket is open: requests hold it until the close.
        (async () => { while (!closed) await fetch("http://127.0.0.1:\(server.port)/api.chat.example/status", { mode: "no-cors" }); })();
        </script></body></html>
        """
        let origin = try LoopbackServer(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
        let page = origin.baseURL.appendingPathComponent("index.html")
        let dom = try await WebSocketFixture.offPool { try HeadlessBrowser.renderedDOM(of: page, virtualTimeBudget: 20_000) }
        let start = try #require(dom.range(of: "<pre id=\"result\">")), end = try #require(dom.range(of: "</pre>"))
        #expect(String(dom[start.upperBound..<end.lowerBound])
                == #"open chat.v1 | welcome to browser | binary 3 | {"got":"ramen"} | see you | close 4000 chat ended"#)
        let entry = try await WebSocketFixture.entry(server, path: "/chat/browser")
        #expect(entry.request.header("Origin") == origin.baseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")))
        await server.stop()
    }
}
#endif
