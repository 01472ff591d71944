#if canImport(XCTest)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StubKit
import StubKitTestSupport
import StubKitUnitTesting
import XCTest

/// `useStubs(…)` as an XCTest case uses it.
final class UseStubsXCTests: XCTestCase {
    func testAnswersFromItsOwnEngine() async throws {
        let stubs = try useStubs("unit_echo", killSwitch: true, bundle: .module)
        let result = await stubs.session.result("GET", "https://unit.test/echo/7")
        XCTAssertEqual(result.text, "echo 7")
        XCTAssertEqual(stubs.journal.entries.map(\.request.url.path), ["/echo/7"])
    }

    func testExpectedMissIsNotReportedWithReportsMissesOff() async throws {
        let stubs = try useStubs("unit_echo", killSwitch: true, bundle: .module, reportsMisses: false)
        let result = await stubs.session.result("GET", "https://unit.test/order")
        XCTAssertNil(result.status)
        XCTAssertEqual(stubs.misses.count, 1, "\(stubs.misses)")
    }

    func testUnknownTemplateThrowsWithTheClosestName() {
        XCTAssertThrowsError(try useStubs("unit_ecko", bundle: .module)) { error in
            XCTAssertTrue("\(error)".contains("did you mean 'unit_echo'"), "\(error)")
        }
    }
}

/// A kill-switch miss fails the test at teardown: the failures are caught here instead of failing the
/// run, and checked once the teardown blocks have run.
final class UseStubsMissXCTests: XCTestCase {
    private var failures: [String] = []
    private var expectsMiss = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
        guard expectsMiss else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        failures.append(description)
    }

    func testMissFailsTheTestNamingTheRequest() async throws {
        expectsMiss = true
        let stubs = try useStubs("unit_echo", killSwitch: true, bundle: .module)
        let result = await stubs.session.result("GET", "https://unit.test/order")
        XCTAssertNil(result.status)
    }

    override func tearDown() {
        if expectsMiss {
            expectsMiss = false
            XCTAssertEqual(failures.count, 1, "\(failures)")
            XCTAssertTrue(failures.first?.contains("GET https://unit.test/order") == true, "\(failures)")
            XCTAssertTrue(failures.first?.contains("/orders") == true, "\(failures)")
        }
        super.tearDown()
    }
}
#endif
