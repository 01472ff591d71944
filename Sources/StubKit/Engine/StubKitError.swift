import Foundation

/// An error from loading or activating stubs. A struct over a private enum, so cases can be added
/// without breaking callers.
public struct StubKitError: Error, Sendable, CustomStringConvertible, LocalizedError {
    private enum Kind: Sendable {
        case bundleHasErrors(template: String, diagnostics: [Diagnostic])
        case unknownTemplate(name: String, searched: [String], available: [String], suggestion: String?)
        case invalidLaunchSetting(String)
        case noEngineSlot(limit: Int)
    }

    private let kind: Kind

    static func bundleHasErrors(template: String, diagnostics: [Diagnostic]) -> StubKitError {
        StubKitError(kind: .bundleHasErrors(template: template, diagnostics: diagnostics))
    }

    static func unknownTemplate(name: String, searched: [String], available: [String], suggestion: String?) -> StubKitError {
        StubKitError(kind: .unknownTemplate(name: name, searched: searched, available: available, suggestion: suggestion))
    }

    static func invalidLaunchSetting(_ problem: String) -> StubKitError {
        StubKitError(kind: .invalidLaunchSetting(problem))
    }

    static func noEngineSlot(limit: Int) -> StubKitError {
        StubKitError(kind: .noEngineSlot(limit: limit))
    }

    /// The diagnostics behind the error (empty for an unknown template).
    public var diagnostics: [Diagnostic] {
        switch kind {
        case .bundleHasErrors(_, let diagnostics): return diagnostics
        case .unknownTemplate, .invalidLaunchSetting, .noEngineSlot: return []
        }
    }

    /// The template that failed.
    public var template: String {
        switch kind {
        case .bundleHasErrors(let template, _): return template
        case .unknownTemplate(let name, _, _, _): return name
        case .invalidLaunchSetting, .noEngineSlot: return ""
        }
    }

    /// The stable diagnostic code of the error.
    public var code: DiagnosticCode {
        switch kind {
        case .bundleHasErrors(_, let diagnostics): return diagnostics.errors.first?.code ?? .unreadableFile
        case .unknownTemplate: return .unknownTemplate
        case .invalidLaunchSetting: return .invalidValue
        case .noEngineSlot: return .tooManyEngines
        }
    }

    /// The message, naming the template, the problem and its code, with every error of a bundle on its own line.
    public var description: String {
        switch kind {
        case .bundleHasErrors(let template, let diagnostics):
            let errors = diagnostics.errors.sortedForDisplay()
            return "stub bundle '\(template)' has \(errors.count) error\(errors.count == 1 ? "" : "s") and was not activated:\n"
                + errors.map { "  " + $0.description }.joined(separator: "\n")
        case .unknownTemplate(let name, let searched, let available, let suggestion):
            var text = "unknown stub template '\(name)' [\(DiagnosticCode.unknownTemplate)]"
            if let suggestion { text += "; did you mean '\(suggestion)'?" }
            text += available.isEmpty ? "; no templates were found" : "; templates found: \(available.joined(separator: ", "))"
            text += searched.isEmpty ? "; no folder was searched (set STUB_BUNDLES_PATH)" : "; searched: \(searched.joined(separator: ", "))"
            return text
        case .invalidLaunchSetting(let problem):
            return "invalid StubKit launch setting: \(problem) [\(DiagnosticCode.invalidValue)]"
        case .noEngineSlot(let limit):
            return "this StubEngine cannot have sessions of its own: \(limit) StubEngines that have sessions of their own are alive, the most StubKit routes at once; release the engines (and their sessions) that are no longer used, or run fewer stubbing tests at once [\(DiagnosticCode.tooManyEngines)]"
        }
    }

    /// The same text as ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
