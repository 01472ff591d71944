#if Tools
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// Misses forwarded to a real (loopback) upstream, recorded through the bundle writer, replayed.
@Suite("Local server: forwarding and recording", .timeLimit(.minutes(2)))
struct ServerForwardingTests {
    static let stubs = """
    { "host": "127.0.0.1", "rules": [ { "name": "stubbed", "path": "/v2/stubbed", "json": { "from": "stub" } } ] }
    """

    static func upstream() throws -> LoopbackServer {
        try LoopbackServer { request in
            if request.line.hasPrefix("GET /v2/moved") {
                return (302, ["Location": "http://127.0.0.1/v2/items"], Data())
            }
            let echo = String(decoding: request.body, as: UTF8.self)
            return (200, ["Content-Type": "application/json", "X-Upstream": "yes"],
                    Data(#"{"line":"\#(request.line)","body":"\#(echo)"}"#.utf8))
        }
    }

    @Test("a miss goes to the real host with its method, headers and body; the answer is relayed as it came")
    func forwardsMisses() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let authority = "127.0.0.1:\(upstream.port)"
        let server = try await ServerFixture(bundles: ["stubs": ["stubsRules.json": Self.stubs]], active: ["stubs"]) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        let forwarded = await server.get("/\(authority)/v2/items?page=2", method: "POST", body: "hello", headers: ["X-Trace": "t1"])
        #expect(forwarded.status == 200, "\(forwarded.text ?? "")")
        #expect(forwarded.response?.value(forHTTPHeaderField: "X-Upstream") == "yes")
        #expect(forwarded.json?["line"] as? String == "POST /v2/items?page=2 HTTP/1.1")
        #expect(forwarded.json?["body"] as? String == "hello")
        let seen = try #require(upstream.requests.last)
        #expect(seen.headers["x-trace"] == "t1")
        #expect(seen.headers["host"] == authority, "the upstream sees its own host, not the local server's")
        // The upstream's redirect reaches the client as a 3xx (not followed by the server), its
        // Location (a stubbed host) pointing back at the server.
        _ = await server.get("/\(authority)/v2/moved")
        let redirect = try #require(server.engine.journal.entries.first { $0.status == 302 })
        #expect(redirect.responseHeaders["Location"] == "\(server.base)/127.0.0.1/v2/items")
        #expect(upstream.requests.filter { $0.line.hasPrefix("GET /v2/moved") }.count == 1)
        let entry = try #require(server.engine.journal.entries.first)
        #expect(entry.passedThrough)
        await server.stop()
    }

    @Test("with the kill switch a miss never reaches the upstream")
    func killSwitchKeepsTheNetworkOut() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let authority = "127.0.0.1:\(upstream.port)"
        let server = try await ServerFixture(bundles: ["stubs": ["stubsRules.json": Self.stubs]], active: ["stubs"]) {
            $0.onMiss = .refuse
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        #expect(await server.get("/\(authority)/v2/items").status == 502)
        #expect(upstream.connectionCount == 0)
        await server.stop()
    }

    @Test("a recorded redirect keeps the upstream's Location, not this server's address (gone by the replay)")
    func recordedLocation() async throws {
        let upstream = try Self.upstream()
        defer { upstream.stop() }
        let authority = "127.0.0.1:\(upstream.port)"
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "captured", folder: folder.url))
        // The stubs make 127.0.0.1 a stubbed host, so the client's copy of the Location is rewritten.
        let server = try await ServerFixture(bundles: ["stubs": ["stubsRules.json": Self.stubs]], active: ["stubs"],
                                             recorder: recorder, folder: folder) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        _ = await server.get("/\(authority)/v2/moved")
        let entry = try #require(server.engine.journal.entries.first { $0.status == 302 })
        #expect(entry.responseHeaders["Location"] == "\(server.base)/127.0.0.1/v2/items", "the client is pointed back here")
        #expect(entry.recordedAs != nil, "\(entry.summary)")
        let rules = try String(contentsOf: folder.url.appendingPathComponent("captured/stubsRules.json"), encoding: .utf8)
        #expect(rules.contains("http://127.0.0.1/v2/items") || rules.contains(#"http:\/\/127.0.0.1\/v2\/items"#), "\(rules)")
        #expect(!rules.contains(":\(server.port)"), "\(rules)")
        await server.stop()
    }

    @Test("recorded while forwarding, then replayed with the upstream gone: the same answer")
    func recordThenReplay() async throws {
        let upstream = try Self.upstream()
        let authority = "127.0.0.1:\(upstream.port)"
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "captured", folder: folder.url))
        let recording = try await ServerFixture(bundles: [:], active: [], recorder: recorder, folder: folder) {
            $0.onMiss = .forward
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        let live = await recording.get("/\(authority)/v2/items?page=2")
        #expect(live.status == 200)
        #expect(recording.engine.journal.entries.last?.recordedAs != nil, "\(recording.engine.journal.entries.map(\.summary))")
        await recording.stop()
        upstream.stop()

        let replay = try await ServerFixture(bundles: [:], active: ["captured"], folder: folder) {
            $0.onMiss = .refuse
            $0.upstreamScheme = "http"
            $0.extraHosts = [authority]
        }
        let replayed = await replay.get("/\(authority)/v2/items?page=2")
        #expect(replayed.status == 200)
        #expect(replayed.data == live.data)
        #expect(replayed.response?.value(forHTTPHeaderField: "X-Upstream") == "yes")
        #expect(replay.engine.journal.entries.last?.rule != nil, "answered by the recorded rule")
        await replay.stop()
    }
}
#endif
