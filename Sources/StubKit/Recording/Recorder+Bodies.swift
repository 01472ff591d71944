import Foundation

/// Redaction of a recorded response body before it is written.
extension Recorder {
    /// Redacts a captured body in place: JSON by field, any other UTF-8 text by sniffing its shape,
    /// then every secret known so far. A body announced as JSON that does not parse (an anti-XSSI
    /// prefix, NDJSON, an HTML error page) is stored as `.txt` and redacted as text.
    ///
    /// - Returns: how many values were replaced.
    func redactBody(_ body: inout BundleWriter.Response.Body, ext: inout String, size: Int, contentType: String?) -> Int {
        guard case .file(let file) = body else { return 0 }
        var redacted = 0
        var isJSON = false
        if MediaType.isJSON(contentType) {
            if size <= Self.jsonLimit, let data = try? Data(contentsOf: file),
               let value = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
                isJSON = true
                let result = redactor.json(value)
                redacted += result.redacted
                result.values.forEach(remember)
                if result.redacted > 0 || configuration.prettyJSON {
                    // Re-serialized only when it must change, so bodies stay byte-exact by default.
                    let options: JSONSerialization.WritingOptions = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
                    if let text = try? JSONSerialization.data(withJSONObject: result.value, options: options) { body = .data(text) }
                }
            } else {
                ext = "txt"  // announced as JSON but not JSON: a .json file would fail the linter
            }
        }
        if !isJSON, size <= Self.sniffLimit, let data = try? Data(contentsOf: file), let text = String(data: data, encoding: .utf8) {
            // Whatever the content type says: JSON sent as text/plain, a form, XML, multipart, NDJSON.
            let result = redactor.text(text, contentType: contentType)
            if result.redacted > 0 {
                redacted += result.redacted
                result.values.forEach(remember)
                body = .data(Data(result.text.utf8))
            }
        }
        if size <= Self.sniffLimit {
            let data: Data?
            switch body {
            case .data(let bytes): data = bytes
            case .file(let url): data = try? Data(contentsOf: url)
            case .none: data = nil
            }
            if let data, let text = String(data: data, encoding: .utf8) {
                let (scrubbed, count) = scrub(text)
                if count > 0 { redacted += count; body = .data(Data(scrubbed.utf8)) }
            }
        }
        return redacted
    }
}
