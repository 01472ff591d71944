#if Tools && canImport(XCTest)
import XCTest

/// Fails the test unless every request of the journal conforms to the OpenAPI document, with the
/// report's listing (each failure with its request, JSON pointer, code and the spec's line) as the
/// failure's message.
///
/// ```swift
/// XCTAssertConforms(try contract.check(app.journal))
/// ```
///
/// - Parameters:
///   - report: the check, usually ``ContractCheck/check(_:)`` written inline; an error it throws
///     (a journal that cannot be read) fails the test too.
///   - message: put before the listing.
///   - file: where the failure is reported; the caller's file by default.
///   - line: where the failure is reported; the caller's line by default.
public func XCTAssertConforms(_ report: @autoclosure () throws -> ContractReport, _ message: @autoclosure () -> String = "",
                              file: StaticString = #filePath, line: UInt = #line) {
    let text: String
    do {
        let report = try report()
        if report.isConforming { return }
        text = report.description
    } catch {
        text = "the journal could not be checked: \(error)"
    }
    let prefix = message()
    XCTFail(prefix.isEmpty ? text : "\(prefix): \(text)", file: file, line: line)
}
#endif
