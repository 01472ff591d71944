import Foundation
import Testing

/// Expected output kept beside a fixture. `STUBKIT_UPDATE_GOLDENS=1 swift test` rewrites the files,
/// and every golden it changes fails the run that rewrote it: a rewrite is a deliberate act whose
/// result is reviewed and run again, never a green run that compared the output with itself.
public enum GoldenFile {
    public static var updating: Bool { ProcessInfo.processInfo.environment["STUBKIT_UPDATE_GOLDENS"] == "1" }

    /// Compares `actual` with the golden at `url` (a missing golden compares as empty text).
    public static func expect(_ actual: String, matches url: URL, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = (try? String(contentsOf: url, encoding: .utf8))
        if updating {
            guard expected != actual else { return }
            try Data(actual.utf8).write(to: url)
            Issue.record("rewrote the golden \(url.path); review the change and run again without STUBKIT_UPDATE_GOLDENS", sourceLocation: sourceLocation)
            return
        }
        guard let expected else {
            Issue.record("no golden at \(url.path); write it with STUBKIT_UPDATE_GOLDENS=1 and review it", sourceLocation: sourceLocation)
            return
        }
        #expect(actual == expected, "output differs from the golden \(url.lastPathComponent)", sourceLocation: sourceLocation)
    }
}
