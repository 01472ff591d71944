#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// The admin API from Swift: templates switched while serving, and waits that end on the event.
@Suite("Local server: admin API", .timeLimit(.minutes(2)))
struct ServerAdminTests {
    static let bundles = [
        "base": ["stubsRules.json": #"{ "host": "api.one.example", "rules": [ { "path": "/menu", "json": { "from": "base" } } ] }"#],
        "extra": ["stubsRules.json": #"{ "host": "api.two.example", "rules": [ { "path": "/menu", "json": { "from": "extra" } } ] }"#],
    ]

    @Test("a template activated through the admin API answers at once, its host routable; deactivated, it is gone")
    func templates() async throws {
        let server = try await ServerFixture(bundles: Self.bundles, active: ["base"])
        #expect(await server.get("/api.two.example/menu").status == 502)
        let activated = await server.get("/__stubkit/templates/extra", method: "POST")
        #expect(activated.status == 200)
        #expect(activated.json?["active"] as? [String] == ["base", "extra"])
        #expect(await server.get("/api.two.example/menu").json?["from"] as? String == "extra")
        #expect(await server.get("/__stubkit/templates/extra", method: "DELETE").status == 200)
        #expect(await server.get("/api.two.example/menu").status == 502)
        #expect(await server.get("/api.one.example/menu").status == 200)
        // Activated again (each test's set-up): moved on top, never stacked; one DELETE takes it off.
        _ = await server.get("/__stubkit/templates/extra", method: "POST")
        let again = await server.get("/__stubkit/templates/base", method: "POST")
        #expect(again.json?["active"] as? [String] == ["extra", "base"])
        #expect(await server.get("/__stubkit/templates/base", method: "DELETE").json?["active"] as? [String] == ["extra"])
        #expect(await server.get("/api.one.example/menu").status == 502)
        let missing = await server.get("/__stubkit/templates/nothing", method: "POST")
        #expect(missing.status == 404)
        #expect((missing.json?["error"] as? String)?.contains("available: base, extra") == true)
        await server.stop()
    }

    @Test("a wait returns as soon as the awaited requests arrive, and a timed-out wait says what did arrive")
    func waits() async throws {
        let server = try await ServerFixture(bundles: Self.bundles, active: ["base"])
        // Waiting for two requests with a long time-out: only their arrival can end it quickly.
        async let waited = server.get("/__stubkit/wait?path=/menu&host=api.one.example&count=2&timeout=120", timeout: 200)
        #expect(await Eventually.becomesTrue(within: 10) { server.engine.journal.waiterCount == 1 })
        _ = await server.get("/api.one.example/menu")
        _ = await server.get("/api.one.example/menu")
        let result = await waited
        #expect(result.status == 200)
        // 200 with both arrivals, not the 408 of a time-out: the arrivals ended the wait. (A bound on the
        // wall time here measured the machine: under the full suite on two cores it passed 60 s once.)
        #expect(result.json?["arrived"] as? Int == 2)

        let none = await server.get("/__stubkit/wait?method=DELETE&path=/menu&timeout=0.2")
        #expect(none.status == 408)
        #expect((none.json?["error"] as? String)?.contains("GET https://api.one.example/menu") == true, "names what did arrive")
        #expect(await server.get("/__stubkit/absent?path=/other&within=0.2").status == 200)
        #expect(await server.get("/__stubkit/absent?path=/menu&within=0.2").status == 409)
        await server.stop()
    }

    @Test("bad admin parameters are 400s naming the parameter")
    func badParameters() async throws {
        let server = try await ServerFixture(bundles: Self.bundles, active: ["base"])
        for (path, name) in [("/__stubkit/kill-switch?on=maybe", "on"), ("/__stubkit/wait?timeout=abc", "timeout"),
                             ("/__stubkit/wait?path=%7Bx&timeout=1", "path"), ("/__stubkit/wait?timeout=1&count=0", "count"),
                             ("/__stubkit/wait?timeout=99999", "timeout")] {
            let result = await server.get(path, method: path.contains("kill-switch") ? "PUT" : "GET")
            #expect(result.status == 400, "\(path)")
            #expect((result.json?["error"] as? String)?.contains("'\(name)'") == true, "\(path): \(result.text ?? "")")
        }
        #expect(await server.get("/api.one.example/menu").status == 200)
        await server.stop()
    }
}
#endif
