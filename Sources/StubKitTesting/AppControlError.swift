import Foundation
import StubKit

/// Why a runtime-control command failed: the app refused it (with its diagnostics), the app is gone,
/// or no answer came in time.
public struct AppControlError: Error, Sendable, CustomStringConvertible {
    /// The command, as the runner sent it (`activate restaurants_closed`).
    public var command: String
    /// What went wrong, in the app's words when the app refused the command (an unknown template with
    /// the closest name and the available ones; a rule's errors, each at its line and column in the
    /// text that was sent).
    public var message: String
    /// The app's diagnostics, located in the text the runner sent for a rule.
    public var diagnostics: [Diagnostic]

    /// `command: message`.
    public var description: String { "\(command): \(message)" }

    package init(command: String, message: String, diagnostics: [Diagnostic] = []) {
        self.command = command
        self.message = message
        self.diagnostics = diagnostics
    }
}
