#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The server answers as the in-process library does, over real loopback HTTP to a real URLSession.
@Suite("Local server: serving", .timeLimit(.minutes(2)))
struct ServerServingTests {
    static let api = """
    { "host": "api.shop.example", "rules": [
      { "name": "menu", "path": "/v1/menu", "json": { "items": ["soup"], "next": "https://api.shop.example/v1/menu?page=2",
        "help": "https://www.nhs.uk/?ref=https%3A%2F%2Fapi.shop.example", "login": "https://login.example.org/start?return=https://www.nhs.uk/x",
        "map": "https://www.openstreetmap.example/?from=https://api.shop.example/v1/menu" } },
      { "name": "escaped", "path": "/v1/escaped", "headers": { "Content-Type": "application/json" },
        "body": "{\\"self\\":\\"https:\\\\/\\\\/api.shop.example\\\\/v1\\\\/escaped\\",\\"port\\":\\"https://api.shop.example:8443/x\\"}" },
      { "name": "image", "path": "/v1/logo.png", "headers": { "Content-Type": "image/png" }, "body": "https://api.shop.example/raw" },
      { "name": "moved", "path": "/v1/old", "status": 301, "headers": { "Location": "https://api.shop.example/v1/menu" } },
      { "name": "poll", "path": "/v1/poll", "responses": [ { "json": { "n": 1 } }, { "json": { "n": 2 } } ], "afterLast": "fail" },
      { "name": "lost", "path": "/v1/lost", "error": "networkConnectionLost" },
      { "name": "offline", "path": "/v1/offline", "error": "notConnectedToInternet" },
      { "name": "slow", "path": "/v1/slow", "error": "timedOut" },
      { "name": "gone", "path": "/v1/unavailable", "error": "resourceUnavailable" },
      { "name": "late", "path": "/v1/late", "delay": 0.3, "json": { "late": true } },
      { "name": "order", "method": "POST", "path": "/v1/orders", "requestBody": { "containsJSON": { "item": "soup" } },
        "status": 201, "template": true, "json": { "item": "{{body.item}}" } }
    ] }
    """
    static let local = """
    { "rules": [ { "name": "hostless", "path": "/health", "json": { "ok": true } } ] }
    """

    func fixture(_ configure: (inout StubServerConfiguration) -> Void = { _ in }) async throws -> ServerFixture {
        try await ServerFixture(bundles: ["api": ["stubsRules.json": Self.api], "local": ["stubsRules.json": Self.local]],
                                active: ["api", "local"], configure: configure)
    }

    @Test("a host first in the path is matched as that host; a path without one only by rules without a host")
    func hostInPath() async throws {
        let server = try await fixture()
        let menu = await server.get("/api.shop.example/v1/menu")
        #expect(menu.status == 200)
        #expect((menu.json?["items"] as? [String]) == ["soup"])
        // The rule has a host: without it in the path, no rule answers.
        let hostless = await server.get("/v1/menu")
        #expect(hostless.status == 502)
        #expect(hostless.response?.value(forHTTPHeaderField: "X-StubKit-Miss") == "no-rule")
        #expect(hostless.text?.contains("no stub answers GET http://127.0.0.1:\(server.port)/v1/menu") == true)
        #expect(await server.get("/health").status == 200)
        // A Host header naming a stubbed host: the server as a plain-HTTP proxy.
        let proxied = await server.get("/v1/menu", headers: ["Host": "api.shop.example"])
        #expect(proxied.status == 200)
        await server.stop()
    }

    @Test("absolute URLs of stubbed hosts point back at the server; other URLs stay; Content-Length fits the new body")
    func rewriting() async throws {
        let server = try await fixture()
        let menu = await server.get("/api.shop.example/v1/menu")
        let json = try #require(menu.json)
        #expect(json["next"] as? String == "\(server.base)/api.shop.example/v1/menu?page=2")
        #expect(json["help"] as? String == "https://www.nhs.uk/?ref=https%3A%2F%2Fapi.shop.example")
        #expect(json["login"] as? String == "https://login.example.org/start?return=https://www.nhs.uk/x")
        #expect(json["map"] as? String == "https://www.openstreetmap.example/?from=https://api.shop.example/v1/menu",
                "a stubbed URL in a foreign link's query is that link's data")
        #expect(menu.response?.value(forHTTPHeaderField: "Content-Length") == String(menu.data?.count ?? -1))

        let escaped = await server.get("/api.shop.example/v1/escaped")
        let object = try #require(escaped.json)
        #expect(object["self"] as? String == "\(server.base)/api.shop.example/v1/escaped")
        #expect(object["port"] as? String == "https://api.shop.example:8443/x", "a URL with another port is another service")
        #expect(escaped.response?.value(forHTTPHeaderField: "Content-Length") == String(escaped.data?.count ?? -1))
        // Binary bodies are never touched.
        #expect(await server.get("/api.shop.example/v1/logo.png").text == "https://api.shop.example/raw")
        await server.stop()
    }

    @Test("a stubbed redirect is a real 3xx whose Location points back at the server")
    func redirects() async throws {
        let server = try await fixture()
        // URLSession follows it: to the server, not to the real host.
        let followed = await server.get("/api.shop.example/v1/old")
        #expect(followed.status == 200)
        #expect(followed.response?.url?.absoluteString == "\(server.base)/api.shop.example/v1/menu")
        let entries = server.engine.journal.entries
        #expect(entries.map(\.status) == [301, 200])
        #expect(entries.first?.responseHeaders["Location"] == "\(server.base)/api.shop.example/v1/menu")
        await server.stop()
    }

    @Test("sequences, templates with the request body, delays, and a used-up sequence as a 502")
    func statefulAnswers() async throws {
        let server = try await fixture()
        #expect(await server.get("/api.shop.example/v1/poll").json?["n"] as? Int == 1)
        #expect(await server.get("/api.shop.example/v1/poll").json?["n"] as? Int == 2)
        let used = await server.get("/api.shop.example/v1/poll")
        #expect(used.status == 502)
        #expect(used.response?.value(forHTTPHeaderField: "X-StubKit-Miss") == "sequence-used-up")
        let order = await server.get("/api.shop.example/v1/orders", method: "POST", body: #"{"item":"soup"}"#,
                                     headers: ["Content-Type": "application/json"])
        #expect(order.status == 201)
        #expect(order.json?["item"] as? String == "soup")
        let started = DispatchTime.now()
        #expect(await server.get("/api.shop.example/v1/late").json?["late"] as? Bool == true)
        #expect(Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9 >= 0.3)
        await server.stop()
    }

    @Test("simulated network errors are what a client of a real server sees")
    func simulatedErrors() async throws {
        let server = try await fixture { $0.timedOutHold = 30 }
        let lost = await server.get("/api.shop.example/v1/lost")
        #expect(lost.response == nil)
        // A reset before the status line: Apple's loader calls it a lost connection, FoundationNetworking
        // a bad server response; never a time-out, a cancel or an answer.
        #expect([.networkConnectionLost, .badServerResponse].contains(lost.error?.code), "\(String(describing: lost.error))")
        let offline = await server.get("/api.shop.example/v1/offline")
        #expect(offline.response == nil)
        #expect(offline.error?.code == .networkConnectionLost, "\(String(describing: offline.error))")
        // Held with no answer: the client's own time-out ends it.
        let impatient = URLSessionConfiguration.ephemeral
        impatient.timeoutIntervalForRequest = 1
        let slow = await URLSession(configuration: impatient).result("GET", server.base + "/api.shop.example/v1/slow")
        #expect(slow.error?.code == .timedOut)
        #expect(await server.get("/api.shop.example/v1/unavailable").status == 503)
        // Each ended only its own exchange: the server still answers.
        #expect(await server.get("/api.shop.example/v1/menu").status == 200)
        let errors = server.engine.journal.entries.compactMap(\.error?.code)
        #expect(errors.contains(URLError.Code.networkConnectionLost.rawValue))
        #expect(errors.contains(URLError.Code.timedOut.rawValue))
        await server.stop()
    }

    @Test("HEAD gets the headers and Content-Length without a body")
    func head() async throws {
        let server = try await fixture()
        let full = await server.get("/api.shop.example/v1/menu")
        let head = await server.get("/api.shop.example/v1/menu", method: "HEAD")
        #expect(head.status == 200)
        #expect(head.data?.isEmpty ?? true)
        #expect(head.response?.value(forHTTPHeaderField: "Content-Length") == String(full.data?.count ?? -1))
        await server.stop()
    }
}
#endif
