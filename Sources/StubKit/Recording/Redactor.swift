import Foundation

/// Replaces secrets with a fixed placeholder before anything is written to a bundle.
///
/// On by default, because a recorded bundle is committed to a repository. A name is a secret when,
/// compared case-insensitively and by its letters and digits only, it is one of ``defaultNames``
/// (`Authorization`, `Cookie`, `Set-Cookie`, `key`, `X-API-Key`, `sig`, `session`, `auth`, `pin`, `csrf`, …), or
/// when one of its words ends in one of ``defaultFragments`` (`token`, `secret`, `password`, `apikey`,
/// `signature`, …: so `access_token`, `refreshToken`, `accesstoken`, `client_secret`, `X-Hub-Signature-256`)
/// and the next word is not one of ``metadataWords``, which make the name describe a secret rather than
/// hold one (`token_type`, `tokenExpiresIn`, `password_policy`). Words are split at every character that is
/// no letter or digit, between letters and digits, and at camelCase, so `user[password]`, `password1`,
/// `new_password2` and `api_key1` are secrets. A secret word glued to a word naming its value (`secretkey`,
/// `tokenid`) is a secret too; one that merely starts or sits inside a word (`tokenizer`, `keyboard`,
/// `author`, `secretary`) is not. ``RecorderConfiguration/redact`` adds names (matched whole);
/// ``RecorderConfiguration/keep`` exempts names, default or not. Bodies are redacted whatever their
/// declared type (see ``text(_:contentType:)``).
package struct Redactor: Sendable {
    /// What every redacted value becomes.
    package static let placeholder = "REDACTED"
    /// Names redacted wherever they appear, whole.
    package static let defaultNames: Set<String> = [
        "authorization", "proxy_authorization", "cookie", "set_cookie",
        "key", "api_key", "x_api_key", "sig", "signature", "auth", "jwt", "otp", "pin", "pin_code", "pwd",
        "session", "session_id", "x_session", "x_session_id", "sid", "jsessionid", "phpsessid", "connect_sid",
        // One-time codes and proofs of OAuth, OpenID Connect and SAML flows.
        "auth_code", "mfa_code", "otp_code", "verification_code", "code_verifier", "client_assertion", "assertion",
        "saml_response", "saml_request", "id_token_hint",
        "csrf", "xsrf", "x_csrf", "x_xsrf",
    ]
    /// Default names that are secrets as headers, query items and form fields (`?key=AIza…`, `sig=…`)
    /// but ordinary data as JSON fields and XML elements (`{"key": "color"}`, S3's `<Key>photos/a.jpg</Key>`,
    /// a map's `{"pin": {"lat": …}}`, India's postal `{"pincode": "560001"}`).
    package static let parameterOnlyNames: Set<String> = ["key", "sig", "auth", "session", "sid", "otp", "pin", "pin_code", "assertion"]
    /// Words that mark a secret when a word of the name ends in one (`access_token`, `accesstoken`), or in
    /// its plural (`credentials`), and no word of ``metadataWords`` follows.
    package static let defaultFragments = ["token", "secret", "password", "passwd", "api_key", "apikey", "credential", "private_key", "signature", "passphrase", "passcode"]
    /// Words that, glued to the end of a secret word in one word, name the secret's value, not something
    /// else (`secretkey`, `tokenid`, `passwordhash`); an unlisted ending is kept (`tokenizer`, `secretary`).
    static let compoundTails = ["key", "keys", "id", "ids", "value", "values", "hash", "str", "string", "data", "code", "header"]
    /// Words that, right after a secret word, make a name describe the secret instead of holding it:
    /// OAuth's `token_type` (`"Bearer"`, which apps check) and `token_type_hint`, `tokenExpiresIn`,
    /// `password_policy`. A secret word elsewhere in the name still counts (`token_type_secret`).
    package static let metadataWords: Set<String> = [
        "type", "types", "kind", "format", "hint", "expires", "expiry", "expiration", "ttl", "lifetime",
        "length", "count", "policy", "endpoint", "url", "uri", "required", "enabled", "used", "remaining", "limit", "usage",
    ]
    /// Words that, right before `token`/`tokens`, make it a count or a cursor rather than a credential:
    /// language-model usage (`max_tokens`, `prompt_tokens`) and pagination (`nextPageToken`, `cursor_token`).
    static let tokenQualifiers: Set<String> = [
        "max", "prompt", "completion", "total", "input", "output", "cached", "reasoning",
        "page", "cursor", "continuation", "sync",
    ]
    /// Words that, right before a last word `key`, make the name hold a key (`X-Auth-Key`,
    /// `Ocp-Apim-Subscription-Key`, `X-Master-Key`), where `Idempotency-Key` or `Sec-WebSocket-Key` hold none.
    static let keyQualifiers: Set<String> = [
        "auth", "access", "master", "subscription", "functions", "encryption", "signing", "license",
        "app", "application", "client", "consumer", "shared", "service", "account", "admin", "developer",
    ]

    private let names: Set<String>
    private let parameterOnly: Set<String>
    private let fragments: [String]
    private let kept: Set<String>

    /// Where a name was found: a header, query item or form field, or a field of a structured document.
    package enum Place: Sendable {
        case parameter
        case document
    }

    package init(redact: [String] = [], keep: [String] = []) {
        self.names = Set((Self.defaultNames.map { $0 } + redact).map(Self.squashed))
        // A name the user adds is a secret everywhere, even one of the parameter-only defaults.
        self.parameterOnly = Set(Self.parameterOnlyNames.map(Self.squashed)).subtracting(redact.map(Self.squashed))
        self.fragments = Self.defaultFragments.map(Self.squashed)
        self.kept = Set(keep.map(Self.squashed))
    }

    /// Lower-cased letters and digits only: `X-API-Key`, `x_api_key`, `xApiKey` and `x[api][key]` are one name.
    private static func squashed(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init))
    }

    /// Whether a header, query item or form field (`.parameter`), or a JSON field or XML element or
    /// attribute (`.document`), of this name holds a secret.
    package func isSecret(_ name: String, in place: Place = .parameter) -> Bool {
        let raw = name
        let name = Self.squashed(name)
        guard !name.isEmpty, !kept.contains(name) else { return false }
        if place == .document, parameterOnly.contains(name) { return false }
        return names.contains(name) || holdsSecretWord(Self.words(of: raw))
    }

    /// Whether a secret word ends one of `words` without a ``metadataWords`` word right after it.
    /// The words before are joined, so a fragment of two words (`api_key`) or one word glued to others
    /// (`xapikey`, `accesstoken`) is found; it must end where a word ends, so `tokenizer` is no `token`.
    /// A secret word glued to one of ``compoundTails`` counts too (`secretkey`, `tokenid`).
    private func holdsSecretWord(_ words: [String]) -> Bool {
        if words.count >= 2, ["key", "keys"].contains(words[words.count - 1]), Self.keyQualifiers.contains(words[words.count - 2]) {
            return true
        }
        var joined = ""
        for (index, word) in words.enumerated() {
            joined += word
            let endsInFragment = fragments.contains { fragment in
                joined.hasSuffix(fragment) || joined.hasSuffix(fragment + "s")
                    || Self.compoundTails.contains { joined.hasSuffix(fragment + $0) }
            }
            guard endsInFragment else { continue }
            if ["token", "tokens"].contains(word), index > 0, Self.tokenQualifiers.contains(words[index - 1]) { continue }
            if index + 1 == words.count || !Self.metadataWords.contains(words[index + 1]) { return true }
        }
        return false
    }

    /// The lower-cased words of a name, split at every character that is no letter or digit (`user[password]`,
    /// `secret:key`), between letters and digits (`password1` is `password`, `1`) and at camelCase
    /// (`APIKey` is `api`, `key`).
    static func words(of name: String) -> [String] {
        var words: [String] = []
        var current = ""
        let scalars = Array(name.unicodeScalars)
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { CharacterSet.decimalDigits.contains(scalar) }
        func isLetter(_ scalar: Unicode.Scalar) -> Bool { CharacterSet.letters.contains(scalar) }
        for (index, scalar) in scalars.enumerated() {
            guard isLetter(scalar) || isDigit(scalar) else {
                if !current.isEmpty { words.append(current) }
                current = ""
                continue
            }
            if let previous = current.unicodeScalars.last {
                let letterDigit = isDigit(previous) != isDigit(scalar)
                let afterLower = CharacterSet.uppercaseLetters.contains(scalar) && CharacterSet.lowercaseLetters.contains(previous)
                // The last capital of an acronym starts the next word: `APIKey` is `API`, `Key`.
                let endsAcronym = CharacterSet.uppercaseLetters.contains(scalar) && CharacterSet.uppercaseLetters.contains(previous)
                    && index + 1 < scalars.count && CharacterSet.lowercaseLetters.contains(scalars[index + 1])
                if letterDigit || afterLower || endsAcronym {
                    words.append(current)
                    current = ""
                }
            }
            current.unicodeScalars.append(scalar)
        }
        if !current.isEmpty { words.append(current) }
        return words.map { $0.lowercased() }
    }

    /// Headers with secret values replaced; the count of values replaced.
    package func headers(_ headers: [String: String]) -> (headers: [String: String], redacted: Int) {
        var count = 0
        var result = headers
        for (name, _) in headers where isSecret(name) {
            result[name] = Self.placeholder
            count += 1
        }
        return (result, count)
    }

    /// A JSON value with the values of secret fields replaced, at any depth; the count, and the key
    /// paths replaced (so matching can leave them out: a replay sends the real secret, not the placeholder).
    package func json(_ value: Any) -> (value: Any, redacted: Int, paths: [[String]], values: [String]) {
        var count = 0
        var paths: [[String]] = []
        var values: [String] = []
        func walk(_ value: Any, path: [String]) -> Any {
            if let object = value as? [String: Any] {
                var result: [String: Any] = [:]
                for (key, child) in object {
                    if isSecret(key, in: .document) {
                        result[key] = Self.placeholder
                        count += 1
                        paths.append(path + [key])
                        if let text = child as? String { values.append(text) }
                    } else {
                        result[key] = walk(child, path: path + [key])
                    }
                }
                return result
            }
            if let array = value as? [Any] {
                // Paths through arrays are not expressible as containsJSON conditions; the values are still redacted.
                return array.map { walk($0, path: path + ["[]"]) }
            }
            if let text = value as? String, let inner = embedded(text) {
                // JSON inside a string, or a GraphQL document with `password: "…"` arguments.
                count += inner.redacted
                paths.append(path)
                values += inner.values
                return inner.text
            }
            return value
        }
        let result = walk(value, path: [])
        return (result, count, paths, values)
    }

    /// The secret parts of a redacted value, to find them again elsewhere (a token echoed in a text
    /// body): the whole value, the credentials after `Bearer `/`Basic `, each cookie's value. Parts
    /// shorter than 6 characters are left out, as they would match ordinary text.
    package static func secretParts(of value: String) -> Set<String> {
        var parts: Set<String> = [value]
        for piece in value.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let part = piece.trimmingCharacters(in: .whitespaces)
            if let equals = part.firstIndex(of: "=") {
                // A cookie's value, never its attributes (Path=/api, Domain=example.com, Max-Age=…):
                // those are ordinary text, and taking them would redact bodies and headers at random.
                let name = part[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
                if cookieAttributes.contains(name) { continue }
                parts.insert(String(part[part.index(after: equals)...]))
            } else if let space = part.lastIndex(of: " ") {
                // `Bearer xyz`, `Basic xyz`: the credentials.
                parts.insert(String(part[part.index(after: space)...]))
            }
            // A bare word (HttpOnly, Secure, a piece of an Expires date) is no secret.
        }
        // Short or all-digit parts would match ordinary text and numbers in bodies.
        return parts.filter { $0.count >= 6 && $0 != placeholder && !$0.allSatisfy(\.isNumber) }
    }

    static let cookieAttributes: Set<String> = ["path", "domain", "expires", "max-age", "samesite", "secure", "httponly",
                                                "priority", "partitioned", "version", "comment"]

    /// `a=1&token=x` with secret values replaced (query strings and form bodies).
    package func formEncoded(_ text: String) -> (text: String, redacted: Int) {
        let result = form(text)
        return (result.text, result.redacted)
    }
}
