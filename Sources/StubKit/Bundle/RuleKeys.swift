/// The keys a rules file may use, in one place for the decoder, the linter's suggestions and the schema test.
package enum RuleKeys {
    /// Keys that describe a response: allowed on a rule and on each item of its `responses`.
    package static let response: [String] = [
        "status", "response", "body", "json", "headers", "contentType", "delay", "throttle", "error",
    ]

    /// Keys of one rule: its request conditions and options, and the response keys.
    package static let rule: [String] = [
        "name", "method", "path", "urlRegex", "host", "scheme", "query", "requestHeaders", "requestBody",
        "priority", "responses", "afterLast", "scenario", "whenState", "setState", "template",
    ] + response

    /// Response keys, current and legacy, for the decoder's quick test.
    static let responseAndLegacy: Set<String> = Set(response + ["status_code", "json_file", "inline_response"])

    /// Keys of the older Just Eat-style format, still read, each with its current form.
    package static let legacy: [String: String] = [
        "matching_url": "urlRegex",
        "json_file": "response",
        "status_code": "status",
        "http_method": "method",
        "inline_response": "body",
    ]

    /// Keys of the top-level dictionary form.
    package static let topLevel: [String] = [
        "rules", "name", "description", "host", "headers", "requestHeaders", "delay", "recordedAt",
    ]

    /// Methods accepted in `method`.
    package static let httpMethods: [String] = [
        "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT",
    ]

    /// Names of rules files, in the order they are looked for.
    package static let rulesFileNames: [String] = [
        "stubsRules.json", "stubsRules.plist", "stubRules.json", "stubRules.plist",
    ]
}
