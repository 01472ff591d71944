import Foundation

/// JSON in the one form StubKit writes for machines to compare or read: compact, keys sorted, `/` not
/// escaped. Two equal values give the same bytes in every run (recorded body conditions, import
/// identities, redacted JSON lines, the server's admin answers, the demo's output lines).
package enum CanonicalJSON {
    /// The value's canonical JSON; any JSON value, fragments too. `nil` when it is not a JSON value.
    package static func data(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed])
    }

    /// ``data(_:)`` as text; "" when the value is not a JSON value.
    package static func string(_ value: Any) -> String {
        String(decoding: data(value) ?? Data(), as: UTF8.self)
    }
}
