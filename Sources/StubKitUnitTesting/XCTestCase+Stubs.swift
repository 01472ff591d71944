#if canImport(XCTest)
import Foundation
import StubKit
import XCTest

extension XCTestCase {
    /// Stubs of this test's own, for XCTest: `templates` loaded into an engine that answers the returned
    /// stubs' session, torn down when the test ends.
    ///
    /// ```swift
    /// func testListsRestaurants() async throws {
    ///     let stubs = try useStubs("restaurants_base", killSwitch: true)
    ///     let client = APIClient(configuration: stubs.configuration)
    ///     XCTAssertEqual(try await client.restaurants().count, 3)
    /// }
    /// ```
    ///
    /// Each request the kill switch refused fails the test at teardown, naming the request and the
    /// closest rules (reported at the line that called this), unless `reportsMisses` is false: a test
    /// that expects misses passes `false` and checks ``TestStubs/misses`` itself.
    ///
    /// - Parameters: as the Swift Testing trait `.stubs(…)`.
    /// - Throws: `StubKitError` for an unknown template (with the closest name) or a bundle with errors,
    ///   and when as many engines with sessions of their own are alive as StubKit can route (256).
    public func useStubs(_ templates: String..., killSwitch: Bool = false, now: Date? = nil, seed: UInt64 = 0,
                         lenient: Bool = false, bundlesFolder: URL? = nil, bundle: Bundle? = nil, reportsMisses: Bool = true,
                         file: StaticString = #filePath, line: UInt = #line) throws -> TestStubs {
        let stubs = try TestStubs(templates: templates, killSwitch: killSwitch, now: now, seed: seed, lenient: lenient,
                                  bundlesFolder: bundlesFolder, resources: bundle?.resourceURL)
        addTeardownBlock {
            if reportsMisses {
                for miss in stubs.misses { XCTFail(miss, file: file, line: line) }
            }
            stubs.finish()
        }
        return stubs
    }
}
#endif
