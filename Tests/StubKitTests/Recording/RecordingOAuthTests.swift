import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import StubKit
import StubKitTestSupport

extension URLProtocolSuites {
/// An OAuth token endpoint (RFC 6749 §5.1) recorded from a loopback backend and replayed with the
/// network off: the tokens never reach the bundle, and what describes them (`token_type`, `expires_in`,
/// `scope`) replays as the server sent it, because apps check `token_type`.
@Suite(.serialized)
struct RecordingOAuthTests {
    static let secrets = ["sekret-access-2YotnFZFEjr1", "sekret-refresh-tGzv3JOkF0", "sekret-id-eyJhbGciOi", "sekret-pass-4242", "c2VrcmV0LWNsaWVudA"]
    static let tokenResponse = #"""
    {"access_token":"sekret-access-2YotnFZFEjr1","token_type":"Bearer","expires_in":3600,"refresh_token":"sekret-refresh-tGzv3JOkF0","id_token":"sekret-id-eyJhbGciOi","scope":"openid profile"}
    """#

    @Test("a token response keeps token_type, expires_in and scope, redacts the three tokens, and replays")
    func tokenResponse() async throws {
        let backend = try LoopbackServer { request in
            request.line.hasPrefix("POST /oauth/token ")
                ? (200, ["Content-Type": "application/json;charset=UTF-8", "Cache-Control": "no-store"], Data(Self.tokenResponse.utf8))
                : (404, ["Content-Type": "text/plain"], Data("no such endpoint".utf8))
        }
        let folder = try TemporaryFolder()
        let url = backend.baseURL.absoluteString + "/oauth/token"
        let form = "grant_type=password&username=ann&password=sekret-pass-4242"
        let headers = ["Content-Type": "application/x-www-form-urlencoded", "Authorization": "Basic c2VrcmV0LWNsaWVudA"]

        let recorder = try Recorder(configuration: RecorderConfiguration(template: "oauth", folder: folder.url))
        let recordingEngine = StubEngine(recorder: recorder)
        let recording = URLSession(configuration: .stubbed(by: recordingEngine, base: .ephemeral))
        let live = await recording.result("POST", url, body: form, headers: headers)
        withExtendedLifetime(recordingEngine) {}
        #expect(live.error == nil && live.status == 200, "\(live.error.map { "\($0)" } ?? "")")
        backend.stop()

        let bundle = folder.url.appendingPathComponent("oauth")
        var written = ""
        for name in try FileManager.default.contentsOfDirectory(atPath: bundle.path) {
            let text = String(decoding: try Data(contentsOf: bundle.appendingPathComponent(name)), as: UTF8.self)
            for secret in Self.secrets { #expect(!text.contains(secret), "\(secret) written to \(name): \(text)") }
            written += text
        }
        #expect(written.contains("Bearer"), "token_type's value is not in the bundle")

        let replay = StubEngine(killSwitch: true)
        try replay.activate(folder: bundle)
        let session = URLSession(configuration: .stubbed(by: replay, base: .ephemeral))
        let replayed = await session.result("POST", url, body: form, headers: headers)
        #expect(replayed.status == 200, "\(replayed.error.map { "\($0)" } ?? replayed.text ?? "")")
        let json = try #require(replayed.json, "\(replayed.text ?? "nil")")
        #expect(json["token_type"] as? String == "Bearer")
        #expect(json["expires_in"] as? Int == 3600)
        #expect(json["scope"] as? String == "openid profile")
        for name in ["access_token", "refresh_token", "id_token"] {
            #expect(json[name] as? String == Redactor.placeholder, "\(name)")
        }
    }
}
}
