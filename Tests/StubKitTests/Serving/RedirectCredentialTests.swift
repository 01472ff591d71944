import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// A stubbed redirect to a URL no rule answers: where it goes, and which credentials go with it. A
/// loopback server stands for the other host and shows what really arrived.
@Suite(.serialized)
struct RedirectCredentialTests {
    /// Credentials in the standard headers and in headers of an API's own (keys, tokens), plus one
    /// header that is no credential and follows the redirect.
    static let credentials = ["Authorization": "Bearer sekret-token", "Cookie": "session=sekret-cookie",
                              "Proxy-Authorization": "Basic c2VrcmV0", "X-Api-Key": "sekret-key", "X-Auth-Token": "sekret-auth",
                              "X-Amz-Security-Token": "sekret-amz", "X-Trace": "kept"]
    static var credentialNames: [String] { credentials.keys.filter { $0 != "X-Trace" }.sorted() }

    /// A bundle for `host` whose `/away` redirects to `location`.
    static func engine(host: String, location: String, killSwitch: Bool, folder: TemporaryFolder) throws -> StubEngine {
        let engine = StubEngine(killSwitch: killSwitch)
        try folder.activate(engine, bundle: "redirects", rules: """
        { "host": "\(host)", "rules": [
          { "path": "/away", "status": 302, "headers": { "Location": "\(location)" }, "body": "moved" }
        ] }
        """)
        return engine
    }

    static func get(_ url: String, engine: StubEngine) async -> TaskResult {
        let session = URLSession(configuration: .stubbed(by: engine, base: .ephemeral))
        defer { session.finishTasksAndInvalidate() }
        return await session.result("GET", url, headers: credentials)
    }

    @Test("a redirect no rule answers reaches the network; credentials (Authorization, Cookie, API keys and tokens) go along only within the origin",
          arguments: ["another host", "the same origin"])
    func redirectToTheNetwork(_ target: String) async throws {
        let sameOrigin = target == "the same origin"
        let server = try LoopbackServer(responseBody: "the network")
        let folder = try TemporaryFolder()
        let engine = sameOrigin
            ? try Self.engine(host: "127.0.0.1", location: "/landing", killSwitch: false, folder: folder)
            : try Self.engine(host: "creds.test", location: "\(server.baseURL.absoluteString)/landing", killSwitch: false, folder: folder)
        let result = await Self.get(sameOrigin ? "\(server.baseURL.absoluteString)/away" : "https://creds.test/away", engine: engine)
        #expect(result.status == 200)
        #expect(result.text == "the network")
        let received = try #require(server.requests.first)
        #expect(received.line.hasPrefix("GET /landing "))
        for name in Self.credentialNames {
            #expect(received.headers[name.lowercased()] == (sameOrigin ? Self.credentials[name] : nil), "\(name)")
        }
        #expect(received.headers["x-trace"] == "kept")
    }

    @Test("with the kill switch on, a redirect no rule answers fails and nothing reaches the network")
    func killSwitchKeepsRedirectOffTheNetwork() async throws {
        let server = try LoopbackServer(responseBody: "must not be reached")
        let folder = try TemporaryFolder()
        let engine = try Self.engine(host: "creds.test", location: "\(server.baseURL.absoluteString)/landing", killSwitch: true, folder: folder)
        let result = await Self.get("https://creds.test/away", engine: engine)
        #expect(result.error?.code == .notConnectedToInternet)
        #expect(server.connectionCount == 0)
    }

    // Apple's loading system asks the delegate after `wasRedirectedTo`; one that declines must get the
    // 3xx as the answer, so the load sends it whole after the callback (the Apple path, run here with a
    // client standing in for the loading system).
    @Test("telling the loading system of a redirect: wasRedirectedTo, then the 3xx, its body and the end; no error")
    func toldRedirectSendsTheRedirectResponse() throws {
        let folder = try TemporaryFolder()
        let engine = try Self.engine(host: "creds.test", location: "https://elsewhere.test/landing", killSwitch: true, folder: folder)
        let client = RecordingProtocolClient()
        var request = URLRequest(url: URL(string: "https://creds.test/away")!)
        for (name, value) in Self.credentials { request.setValue(value, forHTTPHeaderField: name) }
        let instance = StubURLProtocol(request: request, cachedResponse: nil, client: client)
        let load = StubLoad(instance: instance, engine: engine, task: nil, redirectMode: .tellLoadingSystem)
        load.start(request)
        #expect(client.calls.withLock { $0 } == ["redirect", "response", "data", "finish"])
        #expect(client.status.withLock { $0 } == 302)
        #expect(client.body.withLock { $0 } == Data("moved".utf8))
        let next = try #require(client.redirectedTo.withLock { $0 })
        #expect(next.url?.absoluteString == "https://elsewhere.test/landing")
        for name in Self.credentialNames { #expect(next.value(forHTTPHeaderField: name) == nil, "\(name)") }
        #expect(next.value(forHTTPHeaderField: "X-Trace") == "kept")
        #expect(engine.journal.entries.map(\.status) == [302])
        withExtendedLifetime(instance) {}
    }

    struct OriginCase: CustomTestStringConvertible, Sendable {
        var from: String, to: String, same: Bool
        var testDescription: String { "\(from) → \(to): \(same ? "same origin" : "cross-origin")" }
    }

    @Test("same origin means same scheme, host and port (a missing port is the scheme's default)", arguments: [
        OriginCase(from: "https://a.test/x", to: "https://a.test/y?q=1", same: true),
        OriginCase(from: "https://a.test/x", to: "https://A.TEST:443/y", same: true),
        OriginCase(from: "http://a.test/x", to: "http://a.test:80/y", same: true),
        OriginCase(from: "https://a.test/x", to: "http://a.test/x", same: false),
        OriginCase(from: "https://a.test/x", to: "https://b.test/x", same: false),
        OriginCase(from: "https://a.test/x", to: "https://a.test:8443/x", same: false),
        OriginCase(from: "https://a.test/x", to: "https://api.a.test/x", same: false),
    ])
    func origins(_ origin: OriginCase) throws {
        var request = URLRequest(url: URL(string: origin.from)!)
        for (name, value) in Self.credentials { request.setValue(value, forHTTPHeaderField: name) }
        let next = try #require(RedirectFollower.nextRequest(after: request, status: 302, location: origin.to))
        for name in Self.credentialNames {
            #expect((next.value(forHTTPHeaderField: name) != nil) == origin.same, "\(name)")
        }
        #expect(next.value(forHTTPHeaderField: "X-Trace") == "kept")
    }
}
}
