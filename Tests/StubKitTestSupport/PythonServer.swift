import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Python script as a server for a test: started from the package root, ready once it prints
/// `listening on PORT`, killed when the test drops it.
public final class PythonServer: @unchecked Sendable {
    public let process: Process
    public private(set) var port = 0
    private let stdout: PipeReader
    private let stderr: PipeReader
    private let exit: ProcessExitWaiter

    /// Why the script could not serve, with what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Whether python3 can import `module`.
    public static func canImport(_ module: String) -> Bool {
        (try? ChildProcessRunner.python(["-c", "import \(module)"])) != nil
    }

    /// Starts `python3 SCRIPT ARGUMENTS` and returns once it is listening.
    public init(script: String, arguments: [String] = [], limit: TimeInterval = 60) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        process.currentDirectoryURL = PackagePaths.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        stdout = PipeReader(out.fileHandleForReading)
        stderr = PipeReader(err.fileHandleForReading)
        exit = ProcessExitWaiter(process)
        try process.run()
        guard let line = stdout.waitForLine(containing: "listening on ", limit: limit) else {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            exit.wait(limit: 30)
            throw Failure(description: "python3 \(script) did not start:\n\(stdout.waitForEnd().text)\(stderr.waitForEnd().text)")
        }
        port = line.split(separator: " ").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
    }

    /// What the script printed on stderr so far.
    public var errors: String { stderr.text }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        // A killed child is gone whether or not Foundation reaps it in time: the wait is bounded.
        exit.wait(limit: 30)
    }
}
