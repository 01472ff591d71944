import Foundation
import Testing
@testable import StubKit
import StubKitTestSupport

/// Secrets wherever a request or a response carries them (form, multipart, XML, GraphQL, text/plain
/// JSON, a known secret echoed in a path or query value): none may reach any file of the bundle.
struct RecordingSecretsTests {
    struct Exchange: Sendable, CustomTestStringConvertible {
        var name: String
        var method = "POST"
        var url = "https://api.test/login"
        var requestHeaders: [String: String] = [:]
        var requestBody: String? = nil
        var responseType = "application/json"
        var responseBody = #"{"ok":true}"#
        /// Appears somewhere in the exchange; must appear nowhere in the bundle.
        var secret: String
        var testDescription: String { name }
    }

    static let exchanges: [Exchange] = [
        Exchange(name: "form request body", requestHeaders: ["Content-Type": "application/x-www-form-urlencoded"],
                 requestBody: "user=ann&password=sekret-form-111", secret: "sekret-form-111"),
        Exchange(name: "form request body sent as text/plain", requestHeaders: ["Content-Type": "text/plain"],
                 requestBody: "user=ann&passwd=sekret-form-112", secret: "sekret-form-112"),
        Exchange(name: "multipart request body", requestHeaders: ["Content-Type": "multipart/form-data; boundary=XyZ"],
                 requestBody: "--XyZ\r\nContent-Disposition: form-data; name=\"user\"\r\n\r\nann\r\n--XyZ\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nsekret-multi-222\r\n--XyZ--\r\n",
                 secret: "sekret-multi-222"),
        Exchange(name: "XML request body, element", requestHeaders: ["Content-Type": "application/xml"],
                 requestBody: "<login><user>ann</user><password>sekret-xml-333</password></login>", secret: "sekret-xml-333"),
        Exchange(name: "XML request body, attribute", requestHeaders: ["Content-Type": "text/xml"],
                 requestBody: #"<login user="ann" api-key="sekret-xml-334"/>"#, secret: "sekret-xml-334"),
        Exchange(name: "GraphQL variables", url: "https://api.test/graphql", requestHeaders: ["Content-Type": "application/json"],
                 requestBody: #"{"query":"mutation($p: String!) { login(password: $p) { ok } }","variables":{"input":{"clientSecret":"sekret-gql-444"}}}"#,
                 secret: "sekret-gql-444"),
        Exchange(name: "GraphQL inline argument", url: "https://api.test/graphql", requestHeaders: ["Content-Type": "application/json"],
                 requestBody: #"{"query":"mutation { login(user: \"ann\", password: \"sekret-gql-445\") { ok } }"}"#, secret: "sekret-gql-445"),
        Exchange(name: "GraphQL over GET, variables in the query", method: "GET",
                 url: "https://api.test/graphql?query=q&variables=%7B%22token%22%3A%22sekret-gql-446%22%7D", secret: "sekret-gql-446"),
        Exchange(name: "text/plain JSON request body", requestHeaders: ["Content-Type": "text/plain"],
                 requestBody: #"{"user":"ann","refresh_token":"sekret-plain-555"}"#, secret: "sekret-plain-555"),
        Exchange(name: "known secret in a path segment", method: "GET", url: "https://api.test/keys/sekret-path-666/usage",
                 requestHeaders: ["Authorization": "Bearer sekret-path-666"], secret: "sekret-path-666"),
        Exchange(name: "known secret in a query value under an innocent name", method: "GET", url: "https://api.test/check?value=sekret-query-777",
                 requestHeaders: ["X-Api-Key": "sekret-query-777"], secret: "sekret-query-777"),
        Exchange(name: "known secret in a JSON field under an innocent name", requestHeaders: ["Authorization": "Bearer sekret-json-778", "Content-Type": "application/json"],
                 requestBody: #"{"note":"sekret-json-778"}"#, secret: "sekret-json-778"),
        Exchange(name: "text/plain JSON response", method: "GET", url: "https://api.test/me", responseType: "text/plain",
                 responseBody: #"{"user":"ann","token":"sekret-resp-888"}"#, secret: "sekret-resp-888"),
        Exchange(name: "form response under text/plain", url: "https://api.test/oauth/token", responseType: "text/plain",
                 responseBody: "access_token=sekret-resp-889&scope=repo", secret: "sekret-resp-889"),
        Exchange(name: "XML response", method: "GET", url: "https://api.test/session", responseType: "application/xml",
                 responseBody: "<session><id>1</id><sessionToken>sekret-resp-890</sessionToken></session>", secret: "sekret-resp-890"),
        Exchange(name: "JSON response without a content type", method: "GET", url: "https://api.test/me", responseType: "",
                 responseBody: #"{"api_key":"sekret-resp-891"}"#, secret: "sekret-resp-891"),
    ]

    @Test("no secret reaches any file of the bundle, and the bundle lints clean", arguments: exchanges)
    func noSecretOnDisk(_ exchange: Exchange) throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecordConfiguration(template: "rec", folder: folder.url))
        let request = StubRequest(method: exchange.method, url: URL(string: exchange.url)!, headers: exchange.requestHeaders,
                                  body: exchange.requestBody.map { Data($0.utf8) })
        let capture = try #require(recorder.makeCapture())
        capture.append(Data(exchange.responseBody.utf8))
        let headers = exchange.responseType.isEmpty ? [:] : ["Content-Type": exchange.responseType]
        _ = try recorder.record(request, status: 200, headers: headers, capture: capture).get()
        for name in try FileManager.default.contentsOfDirectory(atPath: recorder.writer.folder.path) {
            let data = try Data(contentsOf: recorder.writer.folder.appendingPathComponent(name))
            #expect(data.range(of: Data(exchange.secret.utf8)) == nil, "\(name): \(String(decoding: data, as: UTF8.self))")
            #expect(!name.contains(exchange.secret), "file name \(name)")
        }
        #expect(recorder.summary.redacted > 0)
        let result = BundleLoader(options: .lint).load(folder: recorder.writer.folder)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        // The recorded rule still answers the request it was recorded from.
        let engine = StubEngine(killSwitch: true)
        engine.activate(result.bundle)
        if case .answer = engine.decision(for: request) {} else { Issue.record("the recorded rule does not answer its own request") }
    }

    struct NameCase: Sendable, CustomTestStringConvertible {
        var name: String
        var secret: Bool
        var testDescription: String { "\(name) → \(secret)" }
    }

    static let defaultNames: [NameCase] = [
        "key", "apikey", "api-key", "X-API-Key", "sig", "signature", "X-Hub-Signature-256", "session", "sessionid", "sessionId",
        "auth", "client_secret", "refresh_token", "id_token", "private_token", "PRIVATE-TOKEN", "csrf", "_csrf", "X-CSRF-Token",
        "xsrf", "X-XSRF-TOKEN", "passwd", "credentials", "private_key", "jwt", "JSESSIONID", "PHPSESSID", "X-Amz-Security-Token",
    ].map { NameCase(name: $0, secret: true) } + [
        "author", "keyword", "monkey", "sessions_count", "email", "name", "Content-Type", "page", "design",
    ].map { NameCase(name: $0, secret: false) }

    @Test("the default secret names, compared case-insensitively, and ordinary names that only look alike", arguments: defaultNames)
    func defaultSecretNames(_ c: NameCase) {
        #expect(Redactor().isSecret(c.name) == c.secret)
    }

    @Test("additions and opt-outs still work on the new defaults, in any case and spelling")
    func additionsAndOptOuts() {
        #expect(!Redactor(keep: ["Key"]).isSecret("key"))
        #expect(!Redactor(keep: ["x-api-key"]).isSecret("X_API_KEY"))
        #expect(Redactor(keep: ["x-api-key"]).isSecret("api_key"))
        #expect(Redactor(redact: ["Order-Ref"]).isSecret("order_ref"))
    }
}
