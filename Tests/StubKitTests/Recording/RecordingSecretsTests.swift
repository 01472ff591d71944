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
        var status = 200
        var responseHeaders: [String: String] = [:]
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
        // URL-shaped values: their query items named like secrets (recursively for encoded URLs).
        Exchange(name: "Location of a redirect with an access_token", method: "GET", url: "https://api.test/authorize", status: 302,
                 responseHeaders: ["Location": "https://app.test/cb?state=1&access_token=sekret-loc-901"], secret: "sekret-loc-901"),
        Exchange(name: "relative Location with a token", method: "GET", url: "https://api.test/authorize", status: 302,
                 responseHeaders: ["Location": "/cb?token=sekret-loc-902"], secret: "sekret-loc-902"),
        Exchange(name: "Link header with an access_token", method: "GET", url: "https://api.test/items",
                 responseHeaders: ["Link": #"<https://api.test/items?page=2&access_token=sekret-link-903>; rel="next""#], secret: "sekret-link-903"),
        Exchange(name: "presigned S3 URL in a JSON string, signature", method: "GET", url: "https://api.test/files/1",
                 responseBody: #"{"download":"https://b.s3.amazonaws.com/k.jpg?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIASEKRET904%2F20260101%2Fus-east-1&X-Amz-Signature=sekret-sig-905"}"#,
                 secret: "sekret-sig-905"),
        Exchange(name: "presigned S3 URL in a JSON string, credential", method: "GET", url: "https://api.test/files/1",
                 responseBody: #"{"download":"https://b.s3.amazonaws.com/k.jpg?X-Amz-Credential=AKIASEKRET904%2F20260101%2Fus-east-1&X-Amz-Expires=60"}"#,
                 secret: "AKIASEKRET904"),
        Exchange(name: "query item holding an encoded URL with an access_token", method: "GET",
                 url: "https://api.test/open?redirect=https%3A%2F%2Fapp.test%2Fcb%3Fx%3D1%26access_token%3Dsekret-redir-906", secret: "sekret-redir-906"),
        Exchange(name: "URL twice encoded in a form value", requestHeaders: ["Content-Type": "application/x-www-form-urlencoded"],
                 requestBody: "next=https%3A%2F%2Fa.test%2Fgo%3Fto%3Dhttps%253A%252F%252Fb.test%252Fcb%253Fid_token%253Dsekret-redir-907", secret: "sekret-redir-907"),
        // A token learned from the body is scrubbed from the same response's headers.
        Exchange(name: "token from the body echoed in a header of the same response", url: "https://api.test/oauth/token",
                 responseBody: #"{"access_token":"sekret-order-908"}"#, responseHeaders: ["X-Trace": "t=sekret-order-908"], secret: "sekret-order-908"),
        // JSON-typed bodies that do not parse as one JSON value.
        Exchange(name: "anti-XSSI prefixed JSON", method: "GET", url: "https://api.test/me",
                 responseBody: ")]}'\n{\"user\":\"ann\",\"token\":\"sekret-xssi-909\"}", secret: "sekret-xssi-909"),
        Exchange(name: "NDJSON, one value per line", method: "GET", url: "https://api.test/stream", responseType: "application/x-ndjson",
                 responseBody: "{\"a\":1}\n{\"refresh_token\":\"sekret-nd-910\"}\n", secret: "sekret-nd-910"),
        Exchange(name: "XML element with CDATA", method: "GET", url: "https://api.test/session", responseType: "application/xml",
                 responseBody: "<login><user>ann</user><password><![CDATA[sekret-cdata-911]]></password></login>", secret: "sekret-cdata-911"),
    ]

    @Test("no secret reaches any file of the bundle, and the bundle lints clean", arguments: exchanges)
    func noSecretOnDisk(_ exchange: Exchange) throws {
        let folder = try TemporaryFolder()
        let recorder = try Recorder(configuration: RecorderConfiguration(template: "rec", folder: folder.url))
        let request = StubRequest(method: exchange.method, url: URL(string: exchange.url)!, headers: exchange.requestHeaders,
                                  body: exchange.requestBody.map { Data($0.utf8) })
        let capture = try #require(recorder.makeCapture())
        capture.append(Data(exchange.responseBody.utf8))
        var headers = exchange.responseType.isEmpty ? [:] : ["Content-Type": exchange.responseType]
        headers.merge(exchange.responseHeaders) { $1 }
        _ = try recorder.record(request, status: exchange.status, headers: headers, capture: capture).get()
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

    @Test("key, sig, auth, session, sid and otp are secrets as headers, query items and form fields, but data in JSON and XML")
    func parameterOnlyNames() throws {
        let redactor = Redactor()
        for name in ["key", "Sig", "auth", "session", "sid", "otp"] {
            #expect(redactor.isSecret(name), "\(name) as a query item")
            #expect(!redactor.isSecret(name, in: .document), "\(name) as a JSON field")
        }
        // Names that are secrets everywhere stay so in documents.
        #expect(redactor.isSecret("api_key", in: .document))
        #expect(redactor.isSecret("access_token", in: .document))
        // S3's object listing: <Key> is the object's name, not a credential.
        let listing = "<ListBucketResult><Contents><Key>photos/a.jpg</Key><Size>426</Size></Contents></ListBucketResult>"
        #expect(redactor.text(listing, contentType: "application/xml").text == listing)
        let json = redactor.json(try JSONSerialization.jsonObject(with: Data(#"{"key": "color", "value": "red", "token": "t0k"}"#.utf8)))
        let object = try #require(json.value as? [String: Any])
        #expect(object["key"] as? String == "color")
        #expect(object["token"] as? String == Redactor.placeholder)
        // A form field named key is still an API key.
        #expect(redactor.text("key=AIzaSyA&q=pizza", contentType: "application/x-www-form-urlencoded").text == "key=REDACTED&q=pizza")
        // A name the user adds is a secret everywhere.
        #expect(Redactor(redact: ["key"]).isSecret("key", in: .document))
    }
}
