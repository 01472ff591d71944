#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// Server-Sent Events from `stubkit serve` read by real clients: curl without buffering, a Python
/// line-reading client that parses the stream as the WHATWG standard says, and Chromium's `EventSource`
/// on another origin.
@Suite("stubkit serve's event streams with real clients", .timeLimit(.minutes(2)))
struct EventStreamClientTests {
    static let python = ChildProcess.onPath("python3")
    static var pythonRuns: Bool { python != nil || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The order's progress in the example bundle order_tracking, as sent for order 5 (after the first
    /// event, whose `at` is the time it was sent).
    static let progressTail = """
        event: status
        id: 2
        data: {"order":"5","status":"preparing"}

        event: status
        id: 3
        data: {"order":"5","status":"on_its_way","eta":"12 min"}

        event: status
        id: 4
        data: {"order":"5","status":"delivered"}


        """

    @Test("curl -N reads the order's progress: chunked text/event-stream without Content-Length, every event in order, CORS headers with --cors")
    func curlReadsStream() throws {
        try withServer([stubBundles, "--template", "order_tracking", "--cors"]) { server in
            let reply = try Curl.request("\(server.baseURL)/api.takeaway.example/orders/5/events", ["-N", "-H", "Origin: http://app.test"])
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"] == "text/event-stream")
            #expect(reply.headers["transfer-encoding"] == "chunked")
            #expect(reply.headers["content-length"] == nil)
            #expect(reply.headers["cache-control"] == "no-cache")
            #expect(reply.headers["access-control-allow-origin"] == "http://app.test")
            let text = reply.text
            #expect(text.hasPrefix(": order 5 tracking\nevent: status\nid: 1\nretry: 3000\ndata: {\"order\":\"5\",\"status\":\"placed\",\"at\":\""), "\(text)")
            #expect(text.hasSuffix(Self.progressTail), "\(text)")
        }
    }

    /// A WHATWG event-stream parser over `http.client`, reading line by line; each event is stamped
    /// with the time its blank line arrived.
    static let sseClient = """
        import http.client, json, sys, time
        PORT = int(sys.argv[1])
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=60)
        started = time.monotonic()
        connection.request("GET", "/feed.test/progress", headers={"Accept": "text/event-stream"})
        response = connection.getresponse()
        events, kind, data, last_id, retry = [], "", [], "", None
        while True:
            raw = response.readline()
            if not raw:
                break
            line = raw.decode("utf-8")
            line = line[:-2] if line.endswith("\\r\\n") else line.rstrip("\\r\\n")
            if line == "":
                if data:
                    events.append({"type": kind or "message", "data": "\\n".join(data), "lastEventId": last_id,
                                   "at": time.monotonic() - started})
                kind, data = "", []
                continue
            if line.startswith(":"):
                continue
            name, colon, value = line.partition(":")
            if value.startswith(" "):
                value = value[1:]
            if name == "event":
                kind = value
            elif name == "data":
                data.append(value)
            elif name == "id" and "\\0" not in value:
                last_id = value
            elif name == "retry" and value.isdigit():
                retry = int(value)
        print(json.dumps({"status": response.status, "type": response.getheader("Content-Type"), "retry": retry, "events": events}))
        """

    @Test("a Python line-reading client gets each event when it is sent, not all at the end: event 1 arrives well before event 2's delay has passed",
          .enabled(if: pythonRuns, "python3 is not on PATH"))
    func pythonReadsEachEventOnTime() throws {
        let delay = 1.0
        let folder = try TemporaryFolder()
        try folder.bundle("sse", ["stubsRules.json": #"""
            { "host": "feed.test", "rules": [ {"method": "GET", "path": "/progress", "events": [
              {"comment": "hello"},
              {"event": "status", "id": "a1", "retry": 2500, "data": {"step": 1}},
              {"data": "line one\nline two", "delay": \#(delay)},
              {"event": "status", "data": "done", "delay": 0.05}
            ]} ] }
            """#])
        try withServer([folder.url.path, "--template", "sse"]) { server in
            let output = try ChildProcess.run(executableURL: try #require(Self.python), arguments: ["-c", Self.sseClient, String(server.port)])
            #expect(output.status == 0, "\(output.stderr)")
            let result = try #require(try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
            #expect(result["status"] as? Int == 200)
            #expect(result["type"] as? String == "text/event-stream")
            #expect(result["retry"] as? Int == 2500)
            let events = try #require(result["events"] as? [[String: Any]])
            try #require(events.count == 3, "\(events)")
            #expect(events.map { $0["type"] as? String } == ["status", "message", "status"])
            #expect(events.map { $0["data"] as? String } == [#"{"step":1}"#, "line one\nline two", "done"])
            // The id stays until another one comes (WHATWG: the last event ID buffer).
            #expect(events.map { $0["lastEventId"] as? String } == ["a1", "a1", "a1"])
            let first = events[0]["at"] as? Double ?? .infinity, second = events[1]["at"] as? Double ?? 0
            // Buffered until the end, both would arrive together, after the delay.
            #expect(first < second - 0.5 * delay, "event 1 at \(first) s, event 2 at \(second) s")
        }
    }

    /// A page on another origin (a second loopback server) opens an `EventSource` on the server and
    /// writes the `status` events it got (status and last event id), or the error, into the page.
    static func eventSourcePage(_ url: String) throws -> LoopbackServer {
        let html = """
        <!doctype html><html><body><pre id="result">pending</pre><script>
        const result = document.getElementById("result");
        const got = [];
        const source = new EventSource("\(url)");
        source.addEventListener("status", e => {
          got.push(JSON.parse(e.data).status + "#" + e.lastEventId + "@" + e.origin);
          if (got.length === 4) { source.close(); result.textContent = got.join(" "); }
        });
        source.onerror = () => { if (got.length < 4) { source.close(); result.textContent = "error after " + got.length; } };
        </script></body></html>
        """
        return try LoopbackServer(status: 200, headers: ["Content-Type": "text/html; charset=utf-8"], body: Data(html.utf8))
    }

    static func eventSourceResult(serverArguments: [String]) throws -> String {
        try withServer([stubBundles, "--template", "order_tracking"] + serverArguments) { server in
            let origin = try eventSourcePage("\(server.baseURL)/api.takeaway.example/orders/5/events")
            let dom = try HeadlessBrowser.renderedDOM(of: origin.baseURL.appendingPathComponent("index.html"), virtualTimeBudget: 20_000)
            let start = try #require(dom.range(of: "<pre id=\"result\">")), end = try #require(dom.range(of: "</pre>"))
            return String(dom[start.upperBound..<end.lowerBound]).replacingOccurrences(of: server.baseURL.absoluteString, with: "SERVER")
        }
    }

    @Test("Chromium's EventSource on another origin gets every status event and its id through --cors",
          .enabled(if: BrowserClientTests.browserRuns, "no headless Chromium (install chromium-headless-shell or set STUBKIT_BROWSER)"))
    func browserEventSource() throws {
        let result = try Self.eventSourceResult(serverArguments: ["--cors"])
        #expect(result == "placed#1@SERVER preparing#2@SERVER on_its_way#3@SERVER delivered#4@SERVER")
    }

    @Test("without --cors Chromium's EventSource refuses the cross-origin stream",
          .enabled(if: BrowserClientTests.browserRuns, "no headless Chromium (install chromium-headless-shell or set STUBKIT_BROWSER)"))
    func browserWithoutCors() throws {
        let result = try Self.eventSourceResult(serverArguments: [])
        #expect(result == "error after 0", "\(result)")
    }
}
#endif
