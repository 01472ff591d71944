import Foundation

/// A real headless Chromium, used to render HTML reports and read back what a browser shows.
public enum HeadlessBrowser {
    /// The browser executable: `$STUBKIT_BROWSER`, else the first of the usual names on `PATH`.
    public static var executable: URL? {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment["STUBKIT_BROWSER"], FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        let folders = (environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init)
        for name in ["chromium-headless-shell", "chromium", "chromium-browser", "google-chrome", "headless_shell"] {
            for folder in folders where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return URL(fileURLWithPath: "\(folder)/\(name)")
            }
        }
        return nil
    }

    /// CI sets `STUBKIT_REQUIRE_BROWSER=1`, so a missing browser fails there instead of skipping.
    public static var isRequired: Bool {
        ProcessInfo.processInfo.environment["STUBKIT_REQUIRE_BROWSER"] == "1"
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Loads the file, runs its scripts, and returns the DOM as the browser then holds it.
    public static func renderedDOM(of file: URL) throws -> String {
        try run(["--dump-dom", file.absoluteString])
    }

    /// Loads the page (a file or an `http:` URL) and returns its DOM once its network requests have
    /// settled: virtual time stops while requests are pending, so `fetch` answers land before the dump.
    public static func renderedDOM(of page: URL, virtualTimeBudget milliseconds: Int) throws -> String {
        try run(["--virtual-time-budget=\(milliseconds)", "--dump-dom", page.absoluteString])
    }

    /// Renders the file to a PNG screenshot.
    public static func screenshot(of file: URL, to png: URL) throws {
        _ = try run(["--screenshot=\(png.path)", "--window-size=1200,900", file.absoluteString])
    }

    private static func run(_ arguments: [String]) throws -> String {
        guard let executable else {
            throw Failure(description: "no headless browser found: install chromium-headless-shell (apt-get install chromium-headless-shell) or set STUBKIT_BROWSER")
        }
        // Root in containers needs --no-sandbox; a fresh profile keeps runs independent.
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("stubkit-browser-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: profile) }
        // A browser that never quits is killed after the limit and fails its test (ChildProcess.TimedOut).
        let output = try ChildProcess.run(executableURL: executable,
                                          arguments: ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)"] + arguments,
                                          limit: 120)
        guard output.status == 0 else {
            throw Failure(description: "\(executable.lastPathComponent) exited with status \(output.status)")
        }
        return output.stdout
    }
}
