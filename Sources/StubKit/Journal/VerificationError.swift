import Foundation

/// A failed wait or verification, with what was seen instead.
public struct VerificationError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// What was waited for or verified, and what the journal held instead.
    public let description: String
    package init(_ description: String) { self.description = description }
    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
