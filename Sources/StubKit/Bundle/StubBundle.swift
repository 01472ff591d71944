import Foundation

/// A loaded stub bundle: its template name, folder, rules file and rules. Immutable once loaded.
package struct StubBundle: Sendable {
    /// The template name that `STUB_API_CALLS_<template>` uses: the folder name without `.bundle`.
    package var template: String
    package var folder: URL
    package var rulesFile: URL?
    package var rules: [StubRule]

    package init(template: String, folder: URL, rulesFile: URL?, rules: [StubRule]) {
        self.template = template
        self.folder = folder
        self.rulesFile = rulesFile
        self.rules = rules
    }

    /// The template name a folder stands for: `restaurants.bundle` and `restaurants` are both `restaurants`.
    package static func templateName(ofFolder folder: URL) -> String {
        let name = folder.lastPathComponent
        return name.hasSuffix(".bundle") ? String(name.dropLast(".bundle".count)) : name
    }
}
