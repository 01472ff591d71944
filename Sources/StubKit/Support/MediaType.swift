import Foundation

/// Content types inferred from response file extensions.
package enum MediaType {
    package static func forExtension(_ ext: String) -> String {
        switch ext.lowercased() {
        case "json": return "application/json"
        case "xml": return "application/xml"
        case "html", "htm": return "text/html; charset=utf-8"
        case "txt", "text": return "text/plain; charset=utf-8"
        case "css": return "text/css"
        case "js": return "text/javascript"
        case "csv": return "text/csv"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "svg": return "image/svg+xml"
        case "pdf": return "application/pdf"
        case "zip": return "application/zip"
        default: return "application/octet-stream"
        }
    }

    package static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        let essence = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? type
        return essence == "application/json" || essence.hasSuffix("+json")
    }
}
