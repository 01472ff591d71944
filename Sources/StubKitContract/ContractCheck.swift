#if Tools
import Foundation
import StubKit
import StubKitOpenAPI
import StubKitTesting

/// The app's traffic checked against the API's OpenAPI document, from the test runner: the spec is
/// loaded once, then each journal the app wrote is checked against it.
///
/// ```swift
/// let contract = try ContractCheck(openAPI: specURL)   // once, e.g. in the class's setUp
/// // … launch the app with a live journal, drive it …
/// XCTAssertConforms(try contract.check(app.journal))   // XCTest
/// expectConforms(try contract.check(app.journal))      // Swift Testing
/// ```
///
/// Each request is checked the way `stublint traffic` checks it: its operation (method, path and host
/// against the spec's paths and servers), its path, query and header parameters, and its body; a
/// response only when a real backend sent it (a pass-through or a recording), since what a stub
/// answered is the stub's business. The same request gives the same findings as `stublint traffic`.
/// Thread-safe: the loaded document is an immutable value.
public struct ContractCheck: Sendable {
    /// The OpenAPI document, as reports name it (its path).
    public let spec: String
    private let validator: TrafficValidator

    /// Loads and checks the OpenAPI 3.0, 3.1 or 3.2 document (YAML or JSON) at `url`.
    ///
    /// - Throws: ``ContractCheckError`` when the file cannot be read or is not an OpenAPI 3 document,
    ///   naming the file and, where known, the line.
    public init(openAPI url: URL) throws(ContractCheckError) {
        do {
            let loaded = try OpenAPISpec.load(url, display: url.path)
            spec = loaded.file
            validator = TrafficValidator(spec: loaded)
        } catch {
            throw ContractCheckError(file: error.file, line: error.position?.line, description: "\(error.description) [\(DiagnosticCode.unreadableSpec.rawValue)]")
        }
    }

    /// Checks every request of the live journal file at `url` (`STUB_JOURNAL_LIVE`).
    ///
    /// The file is read a line at a time, so its size does not matter; a line that cannot be read (cut
    /// off by a crash, not JSON) is a failure at its line, and reading goes on. An empty file is a
    /// journal with no requests. A HAR file (`STUB_JOURNAL_HAR`) or a folder written by record mode
    /// is read too, told apart by content.
    ///
    /// - Throws: ``ContractCheckError`` when there is no such file, or it cannot be read at all.
    public func check(journal url: URL) throws(ContractCheckError) -> ContractReport {
        var requests: [ContractReport.Request] = []
        var problems: [Diagnostic] = []
        var notes: [ContractFinding] = []
        let summary: TrafficReader.Summary
        do {
            summary = try TrafficReader.read(url, display: url.path) { entry in
                var findings: [ContractFinding] = []
                var label = entry.label
                for diagnostic in validator.validate(entry) {
                    // The label the validator wrote, with the values of secret path parameters concealed.
                    label = TrafficValidator.entryLabel(of: diagnostic) ?? label
                    let finding = ContractFinding(diagnostic, entry: label)
                    if diagnostic.severity == .note { notes.append(finding) } else { findings.append(finding) }
                }
                if !findings.isEmpty {
                    requests.append(ContractReport.Request(entry: label, journalLine: entry.source.position?.line, findings: findings))
                }
            }
        } catch where error.isEmptyInput {
            // The app has made no request (or written none yet): nothing fails.
            summary = TrafficReader.Summary(kind: .liveJournal)
        } catch {
            throw ContractCheckError(file: url.path, line: nil, description: error.description)
        }
        problems = summary.problems
        let unreadable = problems.filter { $0.severity != .note }.map { ContractFinding($0, entry: nil) }
        notes += problems.filter { $0.severity == .note }.map { ContractFinding($0, entry: nil) }
        return ContractReport(journal: url.path, spec: spec, requestCount: summary.entries, nonConformingRequests: requests,
                              unreadableLines: unreadable, notes: notes)
    }

    /// Checks every request of the journal the runner follows (its file, read from the start).
    ///
    /// - Throws: ``ContractCheckError`` when the file cannot be read.
    public func check(_ journal: LiveJournal) throws(ContractCheckError) -> ContractReport {
        try check(journal: journal.url)
    }
}
#endif
