import Foundation
import Testing
@testable import StubKit

/// Which names hold secrets: secret words count as words of the name (split at every character that
/// is no letter or digit, between letters and digits, and at camelCase), never as any substring, and never when the next word says the name only describes one.
struct RedactorNameTests {
    struct NameCase: Sendable, CustomTestStringConvertible {
        var name: String
        var place: Redactor.Place = .parameter
        var secret: Bool
        var testDescription: String { "\(name)\(place == .document ? " (document)" : "") → \(secret ? "secret" : "kept")" }
    }

    static let secretNames: [NameCase] = [
        // RFC 6749 §5.1 and OpenID Connect: the tokens themselves.
        "access_token", "refresh_token", "id_token", "accessToken", "RefreshToken", "ID-Token", "accesstoken", "ACCESS_TOKEN",
        "token", "tokens", "X-Auth-Token", "X-CSRF-Token", "X-Amz-Security-Token", "sessionToken", "auth_token", "bearerToken",
        "password", "Password", "new_password", "password_confirmation", "passwordHash", "passwd", "user.password",
        "client_secret", "clientSecret", "secret", "secrets", "webhook_secret_key", "token_type_secret",
        "api_key", "apiKey", "APIKey", "X-Api-Key", "xapikey", "X-Goog-Api-Key", "apikeys",
        "authorization", "Authorization", "Proxy-Authorization", "cookie", "Cookie", "Set-Cookie", "set_cookie",
        "credentials", "X-Amz-Credential", "X-Amz-Signature", "X-Hub-Signature-256", "sha256Signature", "private_key", "privateKey",
        // Rails/PHP form names, Django's numbered form fields, and digits glued to the secret word.
        "user[password]", "session[password]", "credentials[password]", "auth[token]", "user[password_confirmation]",
        "password1", "password2", "new_password1", "new_password2", "PASSWORD1", "token2", "api_key1", "2fa_token", "secret:key",
        // One word: a secret word glued to a word that names the secret's value or id.
        "secretkey", "tokenid", "passwordhash", "tokenvalue",
        "x-amz-security-token", "jwt", "otp", "pin", "session_id", "sessionToken", "jwt_token", "passphrase", "passcode",
        // One-time codes and proofs of OAuth (PKCE, client assertions), MFA and SAML; Express's session cookie.
        "auth_code", "mfa_code", "otp_code", "verification_code", "code_verifier", "client_assertion", "SAMLResponse", "SAMLRequest", "connect.sid",
        "assertion", "id_token_hint",
        // API keys in headers of their own: Cloudflare, Azure API Management and Functions, Parse; session headers.
        "X-Auth-Key", "Ocp-Apim-Subscription-Key", "X-Functions-Key", "X-Master-Key", "X-Parse-Master-Key", "X-Access-Key",
        "access_key", "DD-APPLICATION-KEY", "X-Session", "X-Session-Id", "pincode", "pin_code",
    ].map { NameCase(name: $0, secret: true) }
        + (["access_token", "id_token", "refreshToken", "client_secret", "password", "apiKey", "authorization"]
        + ["user[password]", "password1", "new_password2", "token2", "secretkey", "tokenid", "jwt", "session_id", "sessionToken", "code_verifier"])
        .map { NameCase(name: $0, place: .document, secret: true) }

    static let keptNames: [NameCase] = [
        // RFC 6749 §5.1 and RFC 7009: what describes the tokens.
        "token_type", "tokenType", "TOKEN_TYPE", "expires_in", "scope", "token_type_hint", "refresh_token_expires_in",
        "tokenExpiresIn", "token_endpoint", "password_policy", "passwordExpiry", "tokens_count",
        // Names that merely contain a secret word.
        "tokenizer", "tokenizers", "tokenized", "keyboard", "author", "authorName", "keyword", "monkey", "secretary",
        "passwordless", "Content-Type", "email", "name", "grant_type", "user[email]", "user[token_type]", "token_type1",
        "tokenizer2", "pinned", "spin", "pinterest", "opinion",
        // Counts and cursors named after tokens: language-model usage, pagination.
        "max_tokens", "prompt_tokens", "completion_tokens", "total_tokens", "input_tokens", "tokens_used", "maxTokens",
        "pageToken", "nextPageToken", "page_token", "next_page_token", "syncToken",
        // Keys that are no credentials.
        "Idempotency-Key", "Sec-WebSocket-Key", "keyId", "key_id", "primary_key", "sort_key",
    ].map { NameCase(name: $0, secret: false) }
        + ["token_type", "expires_in", "scope", "tokenizer", "keyboard", "author", "key", "session", "pin", "code", "nonce",
           "pincode", "pinCode", "assertion", "max_tokens", "usage"]
        .map { NameCase(name: $0, place: .document, secret: false) }

    @Test("names that hold secrets are redacted, in any spelling", arguments: secretNames)
    func secretName(_ c: NameCase) {
        #expect(Redactor().isSecret(c.name, in: c.place))
    }

    @Test("names that describe a secret or only contain a secret word are kept", arguments: keptNames)
    func keptName(_ c: NameCase) {
        #expect(!Redactor().isSecret(c.name, in: c.place))
    }

    @Test("the words of a name", arguments: [
        ("access_token", ["access", "token"]), ("X-API-Key", ["x", "api", "key"]), ("APIKey", ["api", "key"]),
        ("refreshTokenExpiresIn", ["refresh", "token", "expires", "in"]), ("sha256Signature", ["sha", "256", "signature"]),
        ("user.password", ["user", "password"]), ("tokenizer", ["tokenizer"]), ("__x__", ["x"]),
        ("user[password]", ["user", "password"]), ("new_password2", ["new", "password", "2"]), ("PASSWORD1", ["password", "1"]),
        ("2fa_token", ["2", "fa", "token"]), ("secret:key", ["secret", "key"]), ("X-Hub-Signature-256", ["x", "hub", "signature", "256"]),
    ])
    func words(_ name: String, _ expected: [String]) {
        #expect(Redactor.words(of: name) == expected)
    }

    @Test("a token response body keeps token_type and redacts every token")
    func tokenResponseBody() throws {
        let body = #"{"access_token":"a-111111","token_type":"Bearer","expires_in":3600,"refresh_token":"r-222222","id_token":"i-333333","scope":"openid"}"#
        let result = Redactor().json(try JSONSerialization.jsonObject(with: Data(body.utf8)))
        let object = try #require(result.value as? [String: Any])
        #expect(object["token_type"] as? String == "Bearer")
        #expect(object["expires_in"] as? Int == 3600)
        #expect(object["scope"] as? String == "openid")
        for name in ["access_token", "refresh_token", "id_token"] { #expect(object[name] as? String == Redactor.placeholder, "\(name)") }
        #expect(result.redacted == 3)
        // The same response as a form body (GitHub's default).
        let form = Redactor().formEncoded("access_token=a-111111&token_type=bearer&scope=repo").text
        #expect(form == "access_token=REDACTED&token_type=bearer&scope=repo")
    }

    @Test("a form body's Rails and Django password fields are all redacted, other fields kept")
    func railsAndDjangoForm() {
        let body = "user%5Bemail%5D=a%40b.test&user%5Bpassword%5D=hunter2hunter2&password1=s3cret-one&new_password2=s3cret-two&user%5Btoken_type%5D=bearer"
        let result = Redactor().formEncoded(body)
        #expect(result.text == "user%5Bemail%5D=a%40b.test&user%5Bpassword%5D=REDACTED&password1=REDACTED&new_password2=REDACTED&user%5Btoken_type%5D=bearer")
        #expect(result.redacted == 3)
        for secret in ["hunter2hunter2", "s3cret-one", "s3cret-two"] { #expect(!result.text.contains(secret), "\(secret)") }
    }
}
