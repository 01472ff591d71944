#if Tools
import Foundation
import Testing
import StubKit
import StubKitTestSupport

/// One version everywhere a user reads one.
struct VersionTests {
    @Test("stubkit --version, stublint --version, the HAR creator and the changelog's top entry are one version")
    func oneVersion() throws {
        let changelog = try String(contentsOf: PackagePaths.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        // Changes not yet released gather under "## Unreleased" above the newest version (Keep a Changelog).
        let top = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && $0 != "## Unreleased" }).dropFirst(3)
        #expect(String(top) == StubKitVersion.current, "CHANGELOG.md's newest entry is \(top)")
        for tool in ["stubkit", "stublint"] {
            let out = try ChildProcess.run(tool, arguments: ["--version"])
            #expect(out.status == 0, "\(tool): \(out.stderr)")
            #expect(out.stdout == StubKitVersion.current + "\n", "\(tool) --version printed \(out.stdout)")
        }
        let har = try JSONSerialization.jsonObject(with: StubEngine().journal.harData()) as? [String: Any]
        let creator = (har?["log"] as? [String: Any])?["creator"] as? [String: Any]
        #expect(creator?["version"] as? String == StubKitVersion.current)
    }
}
#endif
