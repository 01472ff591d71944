import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs one of the package's executables as a child process, as a UI test launches the app under test.
public struct ChildProcess {
    public struct Output {
        public var status: Int32
        /// Standard output as bytes (a binary tool's output), and as text below.
        public var stdoutData: Data
        public var stderr: String
        public var stdout: String { String(decoding: stdoutData, as: UTF8.self) }

        /// Each stdout line parsed as a JSON object (stubdemo prints one per request).
        public var jsonLines: [[String: Any]] {
            stdout.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
    }

    /// The folder that holds the built executables (next to the test bundle).
    /// Where the tools the tests start live: `STUBKIT_PRODUCTS_FOLDER` when set (CI's sanitizer passes
    /// build only the test bundle and point it at the debug build), else beside the test runner, else
    /// `.build/debug`.
    public static var productsFolder: URL {
        if let folder = ProcessInfo.processInfo.environment["STUBKIT_PRODUCTS_FOLDER"], !folder.isEmpty {
            return URL(fileURLWithPath: folder)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if FileManager.default.fileExists(atPath: runner.appendingPathComponent("stubdemo").path) { return runner }
        return PackagePaths.root.appendingPathComponent(".build/debug")
    }

    public static func executable(_ name: String) -> URL {
        productsFolder.appendingPathComponent(name)
    }

    /// The first `name` on `PATH`, or nil.
    public static func onPath(_ name: String) -> URL? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return folders.map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Runs the executable to completion and returns what it printed. Waits on the process's exit, not a timer.
    public static func run(_ name: String, arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil) throws -> Output {
        try run(executableURL: executable(name), arguments: arguments, environment: environment, currentDirectory: currentDirectory)
    }

    /// A child still running after its time limit: killed, and its test fails with what it printed.
    public struct TimedOut: Error, CustomStringConvertible {
        public var command: String
        public var limit: TimeInterval
        public var stdout: String
        public var stderr: String
        public var description: String {
            "\(command) was still running after \(Int(limit)) s and was killed. It printed:\n\(stdout)\(stderr)"
        }
    }

    /// Runs any program (`/usr/bin/curl`, `python3` found on `PATH`) to completion, as ``run(_:arguments:environment:currentDirectory:)``.
    ///
    /// Waits on the child's exit, never a timer; the limit only keeps a hung child (a browser that never
    /// quits, a tool stuck on a socket) from hanging the test run: it is killed and ``TimedOut`` thrown.
    /// Both pipes are read on their own threads, so a child that fills one cannot block on it; once the
    /// child has exited, a grandchild still holding a pipe open delays the answer by at most 10 s.
    public static func run(executableURL: URL, arguments: [String], environment: [String: String] = [:], currentDirectory: URL? = nil,
                           input: Data? = nil, limit: TimeInterval = 180) throws -> Output {
        let process = Process()
        process.executableURL = executableURL
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        // The child sees only what the test gives it, as an app launched by a UI test would.
        for key in env.keys where key.hasPrefix("STUB_") { env[key] = nil }
        env.merge(environment) { _, new in new }
        process.environment = env
        process.currentDirectoryURL = currentDirectory ?? PackagePaths.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        let stdoutReader = PipeReader(out.fileHandleForReading)
        let stderrReader = PipeReader(err.fileHandleForReading)
        try process.run()
        if let input, let stdin {
            // On its own thread: a child that does not read its input must not block the test here.
            let writer = stdin.fileHandleForWriting
            Thread {
                writer.write(input)
                try? writer.close()
            }.start()
        }
        if exited.wait(timeout: .now() + limit) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
            throw TimedOut(command: ([executableURL.lastPathComponent] + arguments).joined(separator: " "), limit: limit,
                           stdout: stdoutReader.waitForEnd(limit: 5).text, stderr: stderrReader.waitForEnd(limit: 5).text)
        }
        return Output(status: process.terminationStatus,
                      stdoutData: stdoutReader.waitForEndData(limit: 10).data,
                      stderr: stderrReader.waitForEnd(limit: 10).text)
    }
}

/// Paths inside the package, found from this source file.
public enum PackagePaths {
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static var stubBundles: URL { root.appendingPathComponent("StubBundles") }

    public static var fixtures: URL { root.appendingPathComponent("Tests/Fixtures") }

    /// Whether tests that read `../shared/realworld` run: when it is there, and always in CI (`CI=true`),
    /// where its absence must fail the run rather than skip.
    public static var realworldTestsEnabled: Bool {
        realworld != nil || ProcessInfo.processInfo.environment["CI"] == "true"
    }

    /// `../shared/realworld`, which holds stub files from public projects; `nil` when absent.
    public static var realworld: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/realworld")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}
