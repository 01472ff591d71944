#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stubkit serve` driven from Python (`urllib`, `http.client`), as a test runner in another language
/// would drive it: requests, then the admin long polls instead of sleeps.
@Suite("stubkit serve with Python", .timeLimit(.minutes(2)))
struct PythonClientTests {
    static let python = ChildProcess.onPath("python3")

    /// Runs `script` with `python3 -c`, the server's port as `PORT`, and returns the JSON it prints.
    static func run(_ script: String, port: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let prelude = """
        import http.client, json, sys, time, urllib.error, urllib.request
        PORT = int(sys.argv[1])
        BASE = "http://127.0.0.1:%d" % PORT
        def get(path, method="GET", body=None, headers={}):
            request = urllib.request.Request(BASE + path, data=body, method=method, headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=90) as r:
                    return {"status": r.status, "headers": dict(r.headers), "body": r.read().decode()}
            except urllib.error.HTTPError as e:
                return {"status": e.code, "headers": dict(e.headers), "body": e.read().decode()}
        def start(path):
            connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=90)
            connection.request("GET", path)
            return connection, time.monotonic()
        def finish(poll):
            connection, started = poll
            r = connection.getresponse()
            return {"status": r.status, "body": json.loads(r.read()), "seconds": time.monotonic() - started}

        """
        let output = try ChildProcess.run(executableURL: try #require(python), arguments: ["-c", prelude + script, String(port)])
        #expect(output.status == 0, "python3 failed: \(output.stderr)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
        return try #require(object as? [String: Any], sourceLocation: sourceLocation)
    }

    @Test("requests from urllib get stubs; a POST's Location points back at the server",
          .enabled(if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true", "python3 is not on PATH"))
    func requests() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let result = try Self.run("""
            menu = get("/api.takeaway.example/restaurants/1/menu")
            order = get("/api.takeaway.example/orders", "POST", b'{"restaurantId": 1}', {"Content-Type": "application/json"})
            print(json.dumps({"menu": menu, "order": order}))
            """, port: server.port)
            let menu = try #require(result["menu"] as? [String: Any])
            let order = try #require(result["order"] as? [String: Any])
            #expect(menu["status"] as? Int == 200)
            #expect((menu["body"] as? String)?.contains("\"items\"") == true)
            #expect(order["status"] as? Int == 201)
            let location = (order["headers"] as? [String: String])?["Location"]
            #expect(location == "\(server.baseURL)/api.takeaway.example/orders/9001")
        }
    }

    @Test("an admin wait returns 200 as soon as the awaited request arrives, long before its time-out",
          .enabled(if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true", "python3 is not on PATH"))
    func waitReturnsOnArrival() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let result = try Self.run("""
            poll = start("/__stubkit/wait?method=GET&host=api.takeaway.example&path=/restaurants/%7Bid%7D&count=2&timeout=60")
            first = get("/api.takeaway.example/restaurants/3")
            second = get("/api.takeaway.example/restaurants/4")
            print(json.dumps({"wait": finish(poll), "first": first["status"], "second": second["status"]}))
            """, port: server.port)
            let wait = try #require(result["wait"] as? [String: Any])
            let seconds = wait["seconds"] as? Double ?? .infinity
            // 408 would mean the poll ran its 60 seconds out instead of waking on the second request.
            #expect(wait["status"] as? Int == 200, "\(wait)")
            #expect((wait["body"] as? [String: Any])?["arrived"] as? Int == 2)
            #expect(seconds < 60, "the poll took \(seconds) s")
            #expect(result["first"] as? Int == 200 && result["second"] as? Int == 200)
        }
    }

    @Test("absent answers 200 when nothing matching came within the period and 409 as soon as one comes",
          .enabled(if: python != nil || ProcessInfo.processInfo.environment["CI"] == "true", "python3 is not on PATH"))
    func absent() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let result = try Self.run("""
            quiet = finish(start("/__stubkit/absent?method=DELETE&path=/basket&within=0.2"))
            during = start("/__stubkit/absent?method=POST&path=/orders&within=60")
            order = get("/api.takeaway.example/orders", "POST", b'{}', {"Content-Type": "application/json"})
            after = finish(start("/__stubkit/absent?method=POST&path=/orders&within=60"))
            print(json.dumps({"quiet": quiet, "during": finish(during), "after": after, "order": order["status"]}))
            """, port: server.port)
            #expect((result["quiet"] as? [String: Any])?["status"] as? Int == 200, "\(result)")
            #expect(result["order"] as? Int == 201)
            let during = try #require(result["during"] as? [String: Any])
            #expect(during["status"] as? Int == 409, "\(during)")
            #expect(((during["body"] as? [String: Any])?["error"] as? String)?.contains("POST") == true, "\(during)")
            #expect((during["seconds"] as? Double ?? .infinity) < 60)
            #expect((result["after"] as? [String: Any])?["status"] as? Int == 409, "\(result)")
        }
    }
}
#endif
