import Foundation

/// Why ``RecordedValues`` could not give a value or open its file. A struct over a private enum, so
/// reasons can be added without breaking callers.
public struct RecordedValuesError: Error, Sendable, CustomStringConvertible, LocalizedError {
    enum Kind: Sendable {
        /// A replay asked for a name the file does not hold.
        case notRecorded(name: String, exists: Bool)
        case unreadable(String)
        case unwritable(String)
        /// The launch configuration does not say where the recording is.
        case noRecording(String)
    }

    private let kind: Kind
    /// The values file concerned, when there is one.
    public let file: URL?

    init(_ kind: Kind, file: URL?) {
        self.kind = kind
        self.file = file
    }

    /// The name a replay asked for that the file does not hold; `nil` for other errors.
    public var name: String? {
        if case .notRecorded(let name, _) = kind { return name }
        return nil
    }

    /// The file's path, then what is wrong and how to fix it.
    public var description: String {
        let prefix = file.map { "\($0.path): " } ?? ""
        switch kind {
        case .notRecorded(let name, let exists):
            let why = exists
                ? "the recording was made without it"
                : "the file does not exist: the recording was made without recorded values, or the store was made after the app had started recording; make it before launching the app"
            return prefix + "no recorded value named '\(name)' (\(why)); a replay never makes one up, since the requests would "
                + "then miss the recording: record again (mode 'missing' adds the name and keeps the rest)"
        case .unreadable(let reason):
            return prefix + reason
        case .unwritable(let reason):
            return prefix + "cannot be written: \(reason)"
        case .noRecording(let reason):
            return prefix + reason
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
