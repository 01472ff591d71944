import Foundation

/// The one table of response file extensions and content types, and the judgements made on a content
/// type (JSON? text?): the loader infers a response's type from its file's extension, a recording
/// names the file from the type so that the loader infers it back, and the server rewrites URLs only
/// in text.
package enum MediaType {
    private struct Entry {
        /// The first is the one a recording writes; the loader reads every one.
        let extensions: [String]
        /// What the loader serves a file with this extension as.
        let contentType: String
        /// Other content types a recording names with this entry's extension.
        var aliases: [String] = []
        /// Whether a recorded file of this type is text (searched again when a secret is learnt later).
        var isText = false
    }

    private static let table: [Entry] = [
        Entry(extensions: ["json"], contentType: "application/json", isText: true),
        Entry(extensions: ["xml"], contentType: "application/xml", aliases: ["text/xml"], isText: true),
        Entry(extensions: ["html", "htm"], contentType: "text/html; charset=utf-8", isText: true),
        Entry(extensions: ["txt", "text"], contentType: "text/plain; charset=utf-8", isText: true),
        Entry(extensions: ["css"], contentType: "text/css", isText: true),
        Entry(extensions: ["js"], contentType: "text/javascript", aliases: ["application/javascript"], isText: true),
        Entry(extensions: ["csv"], contentType: "text/csv", isText: true),
        Entry(extensions: ["png"], contentType: "image/png"),
        Entry(extensions: ["jpg", "jpeg"], contentType: "image/jpeg"),
        Entry(extensions: ["gif"], contentType: "image/gif"),
        Entry(extensions: ["webp"], contentType: "image/webp"),
        Entry(extensions: ["svg"], contentType: "image/svg+xml", isText: true),
        Entry(extensions: ["pdf"], contentType: "application/pdf"),
        Entry(extensions: ["zip"], contentType: "application/zip"),
    ]

    private static let byExtension: [String: String] = {
        var types: [String: String] = [:]
        for entry in table { for ext in entry.extensions { types[ext] = entry.contentType } }
        return types
    }()

    private static let extensionByEssence: [String: String] = {
        var extensions: [String: String] = [:]
        for entry in table {
            for type in [essence(of: entry.contentType)] + entry.aliases { extensions[type] = entry.extensions[0] }
        }
        return extensions
    }()

    /// The extensions a recording writes text bodies with.
    private static let textExtensions = Set(table.filter(\.isText).map { $0.extensions[0] })

    /// The content type a response file with this extension is served as (`application/octet-stream`
    /// for one the table does not know).
    package static func forExtension(_ ext: String) -> String {
        byExtension[ext.lowercased()] ?? "application/octet-stream"
    }

    /// The response file extension a recording uses for a content type (`json`, `html`, `png`, … `bin`),
    /// so the loader infers the same content type back: `txt` for other text and forms, `bin` for the rest.
    package static func fileExtension(for contentType: String?) -> String {
        let essence = contentType.map(essence(of:)) ?? ""
        if isJSON(essence) { return "json" }
        if let ext = extensionByEssence[essence] { return ext }
        return essence.hasPrefix("text/") || essence == "application/x-www-form-urlencoded" ? "txt" : "bin"
    }

    /// Whether a recorded response file with this extension holds text.
    package static func isText(fileExtension ext: String) -> Bool {
        textExtensions.contains(ext.lowercased())
    }

    /// `application/json` or any `+json` type, parameters and case aside.
    package static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let essence = essence(of: contentType)
        return essence == "application/json" || essence.hasSuffix("+json")
    }

    /// Whether a body of this type is text: `text/*`, JSON and XML (also `+json`, `+xml`), JavaScript
    /// and forms. `false` without a type.
    package static func isText(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = essence(of: contentType)
        return type.hasPrefix("text/") || type.hasSuffix("+json") || type.hasSuffix("+xml")
            || ["application/json", "application/xml", "application/javascript", "application/x-www-form-urlencoded"].contains(type)
    }

    /// The type without its parameters, trimmed of spaces and tabs (HTTP's white space around a
    /// header value's parts), lower-cased. Trimmed by hand rather than with Foundation's character
    /// sets: the server asks this for every answer.
    package static func essence(of contentType: String) -> String {
        guard let first = contentType.split(separator: ";", maxSplits: 1).first else { return "" }
        var trimmed = first
        while trimmed.first == " " || trimmed.first == "\t" { trimmed = trimmed.dropFirst() }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed = trimmed.dropLast() }
        return trimmed.lowercased()
    }
}
