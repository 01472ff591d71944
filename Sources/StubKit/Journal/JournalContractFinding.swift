import Foundation

/// One way an exchange the local server answered departs from the API's contract (an OpenAPI
/// document), kept with its journal entry so a test runner reading the journal sees it.
///
/// Made by the `stubkit serve --openapi` check; the journal only carries it (HAR `_stubkit.contract`).
package struct JournalContractFinding: Sendable, Hashable {
    /// Whose side departs from the contract.
    package enum Subject: String, Sendable, Hashable {
        /// The request the client sent: the app is wrong.
        case request
        /// The answer a rule gave: the stub is wrong, not the app.
        case stubResponse
        /// The answer a real backend gave (a pass-through): the backend is wrong.
        case backendResponse
    }

    /// The diagnostic code (`SK212`).
    package var code: String
    package var severity: Diagnostic.Severity
    package var subject: Subject
    /// What departs, in one sentence.
    package var message: String
    /// A JSON pointer into the body, when the finding is about one value in it.
    package var pointer: String?
    /// The parameter, when the finding is about one.
    package var parameter: String?
    /// The request's URL as reports print it, with what the contract calls secret concealed (a
    /// `{reset_token}` path segment); `nil`: its path. Not journalled: the journal has the request.
    package var shownURL: String?

    package init(code: String, severity: Diagnostic.Severity, subject: Subject, message: String, pointer: String? = nil, parameter: String? = nil) {
        self.code = code
        self.severity = severity
        self.subject = subject
        self.message = message
        self.pointer = pointer
        self.parameter = parameter
    }
}
