#if Tools && canImport(XCTest)
import Foundation
import StubKitContract
import StubKitTestSupport
import XCTest

/// `XCTAssertConforms` in an XCTest case, on the recorded journal fixture (`openapi/traffic/app.jsonl`):
/// its failures are caught here, since XCTest on Linux has no `XCTExpectFailure`, and checked.
final class XCTAssertConformsXCTests: XCTestCase {
    private var failures: [(description: String, line: Int)] = []
    private var catchesFailures = false
    static let spec = PackagePaths.fixtures.appendingPathComponent("openapi/traffic/takeaway-traffic.yaml")
    static let journal = PackagePaths.fixtures.appendingPathComponent("openapi/traffic/app.jsonl")

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        guard catchesFailures else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        failures.append((description, lineNumber))
    }

    func testNonConformingJournalFailsWithTheListingAtTheCallersLine() throws {
        let contract = try ContractCheck(openAPI: Self.spec)
        catchesFailures = true
        XCTAssertConforms(try contract.check(journal: Self.journal), "after checkout"); let line = #line
        catchesFailures = false
        XCTAssertEqual(failures.count, 1)
        let failure = try XCTUnwrap(failures.first)
        XCTAssertEqual(failure.line, line)
        XCTAssertTrue(failure.description.contains("after checkout: \(Self.journal.path): "), failure.description)
        XCTAssertTrue(failure.description.contains("\(Self.journal.path):4:1: error: #4 POST https://api.takeaway.example/v1/orders: required header parameter 'Idempotency-Key' is missing [SK211]"), failure.description)
        XCTAssertTrue(failure.description.contains("\(Self.journal.path):5:1: error: #5 GET https://api.takeaway.example/v1/restaurant: no path of the OpenAPI document matches"), failure.description)
        XCTAssertFalse(failure.description.contains("[SK215]"), "notes never fail: \(failure.description)")
    }

    func testJournalThatCannotBeReadFailsNamingIt() throws {
        let contract = try ContractCheck(openAPI: Self.spec)
        let missing = URL(fileURLWithPath: "/nonexistent/stubkit/app.jsonl")
        catchesFailures = true
        XCTAssertConforms(try contract.check(journal: missing))
        catchesFailures = false
        XCTAssertEqual(failures.count, 1)
        XCTAssertTrue(failures.first?.description.hasSuffix("the journal could not be checked: /nonexistent/stubkit/app.jsonl: no such file or folder") == true, "\(failures)")
    }

    func testConformingReportPasses() throws {
        let folder = try TemporaryFolder()
        let empty = try folder.file("app.jsonl", data: Data())
        catchesFailures = true
        XCTAssertConforms(try ContractCheck(openAPI: Self.spec).check(journal: empty))
        catchesFailures = false
        XCTAssertTrue(failures.isEmpty, "\(failures)")
    }
}
#endif
