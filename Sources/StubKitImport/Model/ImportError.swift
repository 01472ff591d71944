#if Tools
import Foundation

/// Input that cannot be read at all: the file, and where possible the line or key, and why.
public struct ImportError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public var file: String
    /// `line:column`, or a key path such as `log.entries[3].response`.
    public var location: String?
    public var message: String

    public init(file: String, location: String? = nil, _ message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        "\(file)\(location.map { ":" + $0 } ?? ""): error: \(message)"
    }

    public var errorDescription: String? { description }
}
#endif
