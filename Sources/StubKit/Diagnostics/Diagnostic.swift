import Foundation

/// One problem found in a stub bundle, reported the way a compiler reports one.
///
/// `file:line:column: error: message [SK012]`, with the key path (`rules[3].status`) that names the
/// value for formats that have no positions, and a fix where one is obvious.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a diagnostic is; errors stop a bundle from activating in strict mode.
    public enum Severity: String, Sendable, Hashable, Comparable, CaseIterable {
        /// Worth knowing; the bundle works as written.
        case note
        /// Probably not what was meant (a rule that can never answer, a key that is ignored); the bundle still loads.
        case warning
        /// The bundle cannot be used as written; `stublint` exits 1.
        case error

        private var rank: Int {
            switch self {
            case .note: return 0
            case .warning: return 1
            case .error: return 2
            }
        }

        /// Notes before warnings before errors.
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
    }

    /// The stable code (`SK012`), the same across releases.
    public var code: DiagnosticCode
    /// How serious it is.
    public var severity: Severity
    /// The file the problem is in (a rules file, a response file, or the bundle folder).
    public var file: String
    package var position: SourcePosition?
    /// The path of the offending value inside the rules file, such as `rules[3].status`; empty for the whole file.
    public var keyPath: String
    /// What is wrong, in one sentence.
    public var message: String
    /// How to fix it, when there is one obvious fix.
    public var fix: String?
    /// A second place involved (the earlier rule that shadows this one, the other rules file).
    package var related: RelatedLocation?
    /// A JSON pointer into the body the finding is about (`/items/0/quantity`), when it is about a
    /// value inside one; empty for the whole body.
    package var pointer: String?

    package struct RelatedLocation: Sendable, Hashable {
        package var file: String
        package var position: SourcePosition?
        package var keyPath: String
        package var message: String

        package init(file: String, position: SourcePosition?, keyPath: String, message: String) {
            self.file = file
            self.position = position
            self.keyPath = keyPath
            self.message = message
        }

        /// The compiler-style note line that follows the diagnostic: `file:line:col: note: keyPath: message`.
        package var noteLine: String {
            let location = position.map { "\(file):\($0.line):\($0.column)" } ?? file
            return "\(location): note: \(keyPath.isEmpty ? "" : keyPath + ": ")\(message)"
        }
    }

    package init(
        _ code: DiagnosticCode,
        severity: Severity? = nil,
        file: String,
        position: SourcePosition? = nil,
        keyPath: String = "",
        message: String,
        fix: String? = nil,
        related: RelatedLocation? = nil
    ) {
        self.code = code
        self.severity = severity ?? code.defaultSeverity
        self.file = file
        self.position = position
        self.keyPath = keyPath
        self.message = message
        self.fix = fix
        self.related = related
    }

    /// The compiler-style line: `file:line:col: error: message [SK012]`.
    public var description: String {
        var location = file
        if let position { location += ":\(position.line):\(position.column)" }
        var text = "\(location): \(severity.rawValue): "
        if !keyPath.isEmpty { text += "\(keyPath): " }
        text += message
        if let fix { text += "; \(fix)" }
        return text + " [\(code.rawValue)]"
    }
}

extension Array where Element == Diagnostic {
    /// Whether any diagnostic is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }
    /// The errors alone.
    public var errors: [Diagnostic] { filter { $0.severity == .error } }

    /// Sorted by file, then position, then key path: the order a reader expects, whatever the order found.
    package func sortedForDisplay() -> [Diagnostic] {
        sorted {
            if $0.file != $1.file { return $0.file < $1.file }
            let l = $0.position ?? SourcePosition(line: 0, column: 0)
            let r = $1.position ?? SourcePosition(line: 0, column: 0)
            if l != r { return l < r }
            if $0.keyPath != $1.keyPath { return $0.keyPath < $1.keyPath }
            return $0.code.rawValue < $1.code.rawValue
        }
    }
}
