#if Tools
import Foundation
import StubKit
import StubKitServer
import StubKitTestSupport
import Testing

/// WebSockets relayed to a `wss://` server (`Tests/ws_upstream.py --tls`, Python's `ssl`) whose certificate
/// a throwaway CA signs (`Tests/make_test_certificates.py`): trusted with the CA as an extra trust root,
/// refused without it or when the certificate names another host.
@Suite("Local server: WebSockets relayed to a wss:// server", .timeLimit(.minutes(2)),
       .enabled(if: WebSocketPythonTests.runs, "python3 cannot import websockets (python3 -m pip install websockets; .ci/test-deps does)"),
       .enabled(if: TestCertificates.runs, "neither python3's cryptography package nor the openssl command is available to make test certificates (.ci/test-deps installs cryptography)"))
struct WebSocketTLSRelayTests {
    /// The Python upstream serving wss:// with the certificate `name` (`server` or `other`).
    static func upstream(_ certificates: TestCertificates, certificate name: String = "server") throws -> PythonServer {
        try PythonServer(script: "Tests/ws_upstream.py", arguments: ["--tls", certificates.path("\(name).pem"), certificates.path("\(name)-key.pem")])
    }

    /// A forwarding server whose routed hosts stand for https (so WebSockets go to wss).
    static func server(upstream: PythonServer, host: String = "localhost", trusting ca: String?, active: [String] = [],
                       recorder: Recorder? = nil, folder: TemporaryFolder? = nil,
                       onMiss: StubServerConfiguration.MissPolicy = .forward) async throws -> ServerFixture {
        try await ServerFixture(bundles: [:], active: active, recorder: recorder, folder: folder) {
            $0.onMiss = onMiss
            $0.upstreamScheme = "https"
            $0.upstreamCertificateAuthorities = ca
            $0.extraHosts = ["\(host):\(upstream.port)"]
        }
    }

    @Test("trusting the CA, a wss:// conversation is relayed both ways and recorded, then replays from the bundle")
    func relaysAndRecords() async throws {
        let certificates = try TestCertificates()
        var upstream: PythonServer? = try Self.upstream(certificates)
        let port = try #require(upstream).port
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "captured", folder: folder.url))
        let recording = try await Self.server(upstream: try #require(upstream), trusting: certificates.ca, recorder: recorder, folder: folder)
        let live = try await WebSocketRelayTests.converse(server: recording, upstreamPort: port, upstreamHost: "localhost")
        #expect(live["subprotocol"] as? String == "chat.v1", "\(live)\nthe upstream said: \(upstream?.errors ?? "")")
        #expect(live["hello"] as? String == "echo:hello")
        #expect(live["binary"] as? String == "binary:AwIB")
        #expect(live["big"] as? Int == 200_000)
        #expect(live["closeCode"] as? Int == 4001)
        let entry = try await WebSocketRelayTests.relayedEntry(recording, host: "localhost")
        #expect(entry.passedThrough && entry.status == 101, "\(entry.summary)")
        #expect(entry.request.url.absoluteString == "https://localhost:\(port)/echo")
        #expect(entry.recordedAs == "(webSocket)", "\(entry.summary)")
        await recording.stop()
        upstream = nil

        let replay = try await ServerFixture(bundles: [:], active: ["captured"], folder: folder) {
            $0.onMiss = .refuse
            $0.upstreamScheme = "https"
            $0.extraHosts = ["localhost:\(port)"]
        }
        let replayed = try await WebSocketRelayTests.converse(server: replay, upstreamPort: port, upstreamHost: "localhost")
        #expect(replayed["hello"] as? String == "echo:hello")
        #expect(replayed["big"] as? Int == 200_000)
        #expect(replayed["closeCode"] as? Int == 4001)
        let served = try await WebSocketRelayTests.relayedEntry(replay, host: "localhost")
        #expect(!served.passedThrough && served.rule != nil, "\(served.summary)")
        await replay.stop()
    }

    @Test("without the CA the real server's certificate is not trusted: the app gets a 502 that says so")
    func untrustedCertificate() async throws {
        let certificates = try TestCertificates()
        let upstream = try Self.upstream(certificates)
        let server = try await Self.server(upstream: upstream, trusting: nil)
        let refused = try await WebSocketRelayTests.refusal(server: server, target: "/localhost:\(upstream.port)/echo")
        #expect(refused.status == 502)
        #expect(refused.body.contains("the certificate of the real server at wss://localhost:\(upstream.port)/echo is not trusted (certificate verification failed"), "\(refused.body)")
        #expect(refused.body.contains("--upstream-ca"), "the fix is named: \(refused.body)")
        await server.stop()
    }

    @Test("a certificate the CA signs for another host name fails verification, by name and by address")
    func wrongHostName() async throws {
        let certificates = try TestCertificates()
        let upstream = try Self.upstream(certificates, certificate: "other")
        for host in ["localhost", "127.0.0.1"] {
            let server = try await Self.server(upstream: upstream, host: host, trusting: certificates.ca)
            let refused = try await WebSocketRelayTests.refusal(server: server, target: "/\(host):\(upstream.port)/echo")
            #expect(refused.status == 502, "\(host)")
            #expect(refused.body.contains("the certificate of the real server at wss://\(host):\(upstream.port)/echo does not name the host '\(host)' (certificate verification failed: host name mismatch)"),
                    "\(refused.body)")
            await server.stop()
        }
    }
}

/// A throwaway CA, a certificate it signs for localhost and 127.0.0.1 (`server`), and one for other.test
/// only (`other`), made by `Tests/make_test_certificates.py` in a temporary folder.
struct TestCertificates {
    /// Whether they can be made here; in CI they must be.
    static var runs: Bool {
        PythonServer.canImport("cryptography") || ChildProcess.onPath("openssl") != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        _ = try ChildProcessRunner.python(["Tests/make_test_certificates.py", folder.url.path])
    }

    func path(_ name: String) -> String { folder.url.appendingPathComponent(name).path }
    var ca: String { path("ca.pem") }
}
#endif
