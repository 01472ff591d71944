import Foundation

/// A recording that cannot be written: the path and why.
public struct RecordingError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// The file or folder the recorder could not write.
    public let path: String
    /// Why, in a few words.
    public let reason: String

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// `StubKit recording: <path>: <reason>`.
    public var description: String { "StubKit recording: \(path): \(reason)" }
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
