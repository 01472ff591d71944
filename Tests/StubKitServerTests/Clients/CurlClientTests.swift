#if Tools
import Foundation
import StubKitTestSupport
import Testing

/// `stubkit serve` driven by a real `curl`, as a shell script in a test pipeline would.
@Suite("stubkit serve with curl", .timeLimit(.minutes(2)))
struct CurlClientTests {
    @Test("a host as the first path component is answered by that host's rule")
    func stubAnswerForHostInPath() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let reply = try Curl.request("\(server.baseURL)/api.takeaway.example/restaurants")
            #expect(reply.status == 200)
            #expect(reply.headers["cache-control"] == "no-store")
            let restaurants = reply.json["restaurants"] as? [[String: Any]]
            #expect(restaurants?.map { $0["name"] as? String } == ["Pizzeria Napoli", "Sushi Kaito", "Curry Corner"])
            // The same path without the host is a request to the server itself, which no rule answers.
            #expect(try Curl.request("\(server.baseURL)/restaurants").status == 502)
        }
    }

    @Test("a request no rule answers gets 502, the X-StubKit-Miss header and the near-miss report")
    func missAnswers502WithNearMisses() throws {
        try withServer([stubBundles, "--template", "restaurants_base", "--kill-network"]) { server in
            let reply = try Curl.request("\(server.baseURL)/api.takeaway.example/restaurant", ["--request", "DELETE"])
            #expect(reply.status == 502)
            #expect(reply.headers["x-stubkit-miss"] == "no-rule")
            #expect(reply.text.contains("DELETE https://api.takeaway.example/restaurant"), "\(reply.text)")
            // The near-miss report names the closest rule.
            #expect(reply.text.contains("list restaurants"), "\(reply.text)")
        }
    }

    @Test("admin status lists templates; templates are activated and deactivated over HTTP")
    func adminTemplates() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            let admin = "\(server.baseURL)/__stubkit"
            let status = try Curl.request("\(admin)/status").json
            #expect(status["active"] as? [String] == ["restaurants_base"])
            #expect((status["available"] as? [String])?.contains("restaurants_closed") == true)
            #expect(status["killSwitch"] as? Bool == true)

            let restaurants = "\(server.baseURL)/api.takeaway.example/restaurants"
            func firstIsOpen() throws -> Bool? {
                ((try Curl.request(restaurants).json["restaurants"] as? [[String: Any]])?.first?["isOpen"]) as? Bool
            }
            #expect(try firstIsOpen() == true)

            let activated = try Curl.request("\(admin)/templates/restaurants_closed", ["--request", "POST"])
            #expect(activated.status == 200)
            #expect(activated.json["active"] as? [String] == ["restaurants_base", "restaurants_closed"])
            #expect(try firstIsOpen() == false)

            let deactivated = try Curl.request("\(admin)/templates/restaurants_closed", ["--request", "DELETE"])
            #expect(deactivated.status == 200)
            #expect(deactivated.json["active"] as? [String] == ["restaurants_base"])
            #expect(try firstIsOpen() == true)

            let unknown = try Curl.request("\(admin)/templates/no_such_template", ["--request", "POST"])
            #expect(unknown.status == 404)
            #expect(unknown.text.contains("no_such_template"))
            let inactive = try Curl.request("\(admin)/templates/restaurants_closed", ["--request", "DELETE"])
            #expect(inactive.status == 404)
        }
    }

    @Test("the kill switch keeps misses off the network until it is turned off over HTTP")
    func killSwitch() throws {
        let upstream = try LoopbackServer(responseBody: "from the loopback upstream")
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            // curl uses the stub server as a plain-HTTP proxy for the loopback upstream.
            let proxied = ["--proxy", server.baseURL.absoluteString]
            let refused = try Curl.request("\(upstream.baseURL)/hello", proxied)
            #expect(refused.status == 502)
            #expect(refused.headers["x-stubkit-miss"] == "no-rule")
            #expect(upstream.connectionCount == 0)

            let off = try Curl.request("\(server.baseURL)/__stubkit/kill-switch?on=false", ["--request", "POST"])
            #expect(off.status == 200)
            #expect(off.json["killSwitch"] as? Bool == false)
            #expect(try Curl.request("\(server.baseURL)/__stubkit/status").json["killSwitch"] as? Bool == false)

            let forwarded = try Curl.request("\(upstream.baseURL)/hello", proxied)
            #expect(forwarded.status == 200)
            #expect(forwarded.text == "from the loopback upstream")
            #expect(upstream.requestLines == ["GET /hello HTTP/1.1"])

            #expect(try Curl.request("\(server.baseURL)/__stubkit/kill-switch?on=true", ["--request", "POST"]).status == 200)
            #expect(try Curl.request("\(upstream.baseURL)/hello", proxied).status == 502)
            #expect(upstream.connectionCount == 1)
        }
    }

    @Test("the journal downloads as HAR with every request, answered or not")
    func harDownload() throws {
        try withServer([stubBundles, "--template", "restaurants_base"]) { server in
            _ = try Curl.request("\(server.baseURL)/api.takeaway.example/restaurants/2")
            _ = try Curl.request("\(server.baseURL)/api.takeaway.example/nothing-here")
            let har = try Curl.request("\(server.baseURL)/__stubkit/journal.har")
            #expect(har.status == 200)
            let entries = (har.json["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
            let requests = entries.compactMap { ($0["request"] as? [String: Any])?["url"] as? String }
            let statuses = entries.compactMap { ($0["response"] as? [String: Any])?["status"] as? Int }
            #expect(requests == ["https://api.takeaway.example/restaurants/2", "https://api.takeaway.example/nothing-here"])
            #expect(statuses == [200, 502])
        }
    }
}
#endif
