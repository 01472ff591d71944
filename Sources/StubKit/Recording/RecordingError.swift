import Foundation

/// A recording that cannot be written: the path and why.
public struct RecordingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    public let path: String
    public let reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "StubKit recording: \(path): \(reason)" }
    public var errorDescription: String? { description }
}
