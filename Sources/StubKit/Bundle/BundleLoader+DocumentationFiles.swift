extension BundleLoader {
    /// The file at the top of a bundle folder holding the test inputs a recording was made with
    /// (`RecordedValues` in StubKitTesting): no rule uses it, and the unused-file check knows it.
    package static let recordedValuesFileName = "recordedValues.json"

    /// Whether a file in a bundle folder is documentation for people, which no rule is meant to use:
    /// `README`, `README.md`, `NOTES.txt`, any `*.md`, `LICENSE`, and Finder's `.DS_Store`.
    /// The unused-file check skips these, so documenting a bundle does not make it warn.
    static func isDocumentation(fileName: String) -> Bool {
        let lowered = fileName.lowercased()
        if lowered == ".ds_store" || lowered.hasSuffix(".md") || lowered.hasSuffix(".markdown") { return true }
        let stem = lowered.split(separator: ".", maxSplits: 1).first.map(String.init) ?? lowered
        return ["readme", "notes", "license", "changelog"].contains(stem)
            && (lowered == stem || lowered.hasSuffix(".txt") || lowered.hasSuffix(".rst"))
    }
}
