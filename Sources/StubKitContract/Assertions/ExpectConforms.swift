#if Tools && canImport(Testing)
import Testing

/// Records an issue (the test fails) unless every request of the journal conforms to the OpenAPI
/// document, with the report's listing (each failure with its request, JSON pointer, code and the
/// spec's line) as the issue's comment. The Swift Testing form of ``XCTAssertConforms(_:_:file:line:)``.
///
/// ```swift
/// expectConforms(try contract.check(journal: journalURL))
/// ```
///
/// - Parameters:
///   - report: the check's report; an error the check throws propagates to the test, which fails with it.
///   - comment: put before the listing.
///   - sourceLocation: where the issue is reported; the caller's line by default.
public func expectConforms(_ report: ContractReport, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    guard !report.isConforming else { return }
    let text = comment.map { "\($0.rawValue): \(report.description)" } ?? report.description
    Issue.record(Comment(rawValue: text), sourceLocation: sourceLocation)
}
#endif
