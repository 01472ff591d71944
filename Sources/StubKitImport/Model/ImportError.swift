#if Tools
import Foundation

/// Input that cannot be read at all: the file, and where possible the line or key, and why.
package struct ImportError: Error, Sendable, CustomStringConvertible, LocalizedError {
    package var file: String
    /// `line:column`, or a key path such as `log.entries[3].response`.
    package var location: String?
    package var message: String

    package init(file: String, location: String? = nil, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    package var description: String {
        "\(file)\(location.map { ":" + $0 } ?? ""): error: \(message)"
    }

    package var errorDescription: String? { description }
}
#endif
