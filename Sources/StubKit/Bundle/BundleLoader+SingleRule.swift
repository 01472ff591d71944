import Foundation

extension BundleLoader {
    /// Decodes one rule written as bundle JSON (one object, as in a rules file's `rules` array) through
    /// the rules file's own parser and decoder, so it is checked exactly as a bundle's rule is.
    ///
    /// Diagnostics name `file` and give line and column in `text`. The rule has no bundle folder: its
    /// response is written inline (`json`, `body`, …); a response file is reported as missing.
    /// - Returns: the rule, or `nil` with at least one error among the diagnostics.
    package func decodeRule(_ text: String, file: String) -> (rule: StubRule?, diagnostics: [Diagnostic]) {
        let root: SourceValue
        do {
            root = try JSONSourceParser().parse(Data(text.utf8))
        } catch {
            return (nil, [Diagnostic(.malformedFile, file: file, position: error.position, message: "malformed JSON: \(error.message)")])
        }
        // A folder that cannot exist, so a rule naming a response file gets the missing-file error.
        let noFolder = URL(fileURLWithPath: "/dev/null/\(file)", isDirectory: true)
        var decoder = RulesDecoder(file: file, folder: noFolder, options: options)
        let rule = decoder.decodeSingleRule(root)
        return (rule, decoder.diagnostics)
    }
}
