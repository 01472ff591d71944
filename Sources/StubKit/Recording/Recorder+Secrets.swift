import Foundation

/// The secret values a recording run has seen, and their scrubbing from whatever is written later.
///
/// A secret is learnt from a header whose name the redactor holds secret and from every value the
/// redactor replaced; from then on the same value is replaced wherever it reappears (free text, another
/// header, a JSON field under an innocent name, a response file written before it was known).
extension Recorder {
    /// Remembers the values of the headers whose names are secret.
    func rememberSecrets(inHeaders headers: [String: String]) {
        for (name, value) in headers where redactor.isSecret(name) { remember(value) }
    }

    func remember(_ value: String) {
        let parts = Redactor.secretParts(of: value)
        seenSecrets.withLock { $0.formUnion(parts) }
    }

    /// `text` with every secret seen so far replaced, longest first; the count of replacements.
    func scrub(_ text: String) -> (String, Int) {
        Self.scrub(text, secrets: seenSecrets.withLock { $0 })
    }

    static func scrub(_ text: String, secrets: Set<String>) -> (String, Int) {
        // Longest first (a secret that contains another goes whole), then by text, so equal lengths
        // that overlap give the same output in every run whatever the set's order.
        let secrets = secrets.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        var result = text, count = 0
        for secret in secrets where result.contains(secret) {
            count += result.components(separatedBy: secret).count - 1
            result = result.replacingOccurrences(of: secret, with: Redactor.placeholder)
        }
        return (result, count)
    }

    /// `data` with the UTF-8 bytes of every secret seen so far replaced, longest first; the count of
    /// replacements. For payloads that are not text (a protobuf WebSocket message), where a token
    /// still sits as its bytes.
    func scrub(bytes data: Data) -> (Data, Int) {
        Self.scrub(bytes: data, secrets: seenSecrets.withLock { $0 })
    }

    static func scrub(bytes data: Data, secrets: Set<String>) -> (Data, Int) {
        let secrets = secrets.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        var result = data, count = 0
        for secret in secrets {
            let needle = Data(secret.utf8)
            guard !needle.isEmpty, result.range(of: needle) != nil else { continue }
            var out = Data(), start = result.startIndex
            while let found = result.range(of: needle, in: start..<result.endIndex) {
                out += result[start..<found.lowerBound]
                out += Data(Redactor.placeholder.utf8)
                start = found.upperBound
                count += 1
            }
            out += result[start...]
            result = out
        }
        return (result, count)
    }

    /// A JSON value with string values that hold a known secret replaced, their paths and count.
    func scrubbed(_ value: Any, path: [String]) -> (value: Any, paths: [[String]], count: Int) {
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:], paths: [[String]] = [], count = 0
            for (key, child) in object {
                let inner = scrubbed(child, path: path + [key])
                result[key] = inner.value
                paths += inner.paths
                count += inner.count
            }
            return (result, paths, count)
        }
        if let array = value as? [Any] {
            var paths: [[String]] = [], count = 0
            let result = array.map { child -> Any in
                let inner = scrubbed(child, path: path + ["[]"])
                paths += inner.paths
                count += inner.count
                return inner.value
            }
            return (result, paths, count)
        }
        if let text = value as? String {
            let (clean, count) = scrub(text)
            if count > 0 { return (clean, [path], count) }
        }
        return (value, [], 0)
    }
}
