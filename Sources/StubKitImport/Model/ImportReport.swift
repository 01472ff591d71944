#if Tools
import Foundation

/// What an import did: per source file, how many entries were carried over, and every note.
package struct ImportReport: Sendable {
    package struct FileSummary: Sendable {
        package var file: String
        package var format: ImportFormat
        package var entries: Int
    }

    package var bundle: URL
    package var files: [FileSummary] = []
    package var notes: [ImportNote] = []
    /// Rules in the written bundle.
    package var rules = 0
    /// Secret values replaced by the redactor.
    package var redacted = 0

    /// 0 when everything was carried over, 1 when something is reported.
    package var exitCode: Int32 { notes.isEmpty ? 0 : 1 }

    /// The report as Markdown, for `IMPORT-NOTES.md` beside the rules file (the linter treats `*.md` as documentation).
    package var markdown: String {
        var text = "# Import notes\n\nWritten by `stubkit import`. \(rules) rules from \(files.count) file(s)"
        text += redacted > 0 ? "; \(redacted) secret value(s) replaced by `REDACTED`.\n\n" : ".\n\n"
        text += "| source | format | entries imported |\n|---|---|---|\n"
        for file in files { text += "| `\(file.file)` | \(file.format.rawValue) | \(file.entries) |\n" }
        if notes.isEmpty {
            text += "\nEverything was carried over.\n"
        } else {
            text += "\n## Not carried over\n\n"
            for note in notes { text += "- `\(note.source)`: \(note.message)\n" }
        }
        return text
    }

    /// The report for a terminal.
    package var summary: String {
        var text = notes.map { "note: \($0.description)" }.joined(separator: "\n")
        if !text.isEmpty { text += "\n" }
        let entries = files.reduce(0) { $0 + $1.entries }
        text += "imported \(entries) entries from \(files.count) file(s) into \(rules) rules at \(bundle.path)"
        if redacted > 0 { text += "; redacted \(redacted) secret value(s)" }
        text += notes.isEmpty ? "; everything carried over" : "; \(notes.count) note(s), also in IMPORT-NOTES.md"
        return text
    }
}
#endif
