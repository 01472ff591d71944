#if Tools
import Foundation
import StubKit

extension OpenAPILinter {
    /// The codes that say a response does not fit the spec: in a hand-written bundle the stub is wrong,
    /// in a recording the real backend answered so.
    static let responseCodes: Set<DiagnosticCode> = [.undocumentedStatus, .undocumentedContentType, .bodySchemaViolation]

    /// A finding on a recorded response, worded as drift (SK217): the same place, pointer and spec note,
    /// but the fix is to look at the backend or the spec, not to edit a recording.
    static func drift(_ diagnostic: Diagnostic) -> Diagnostic {
        guard responseCodes.contains(diagnostic.code) else { return diagnostic }
        var drift = diagnostic
        drift.code = .recordedResponseDrift
        drift.severity = DiagnosticCode.recordedResponseDrift.defaultSeverity
        drift.message = "the real backend's recorded answer does not fit the spec: \(diagnostic.message)"
        drift.fix = "the backend changed, or the spec is out of date"
        return drift
    }
}
#endif
