#if Tools
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `stubkit serve` running as a long-lived child process, as a test runner in another language would
/// start it: launched with pipes, ready once it prints `listening on http://127.0.0.1:PORT`, stopped
/// with a signal.
///
/// Everything waits on events (lines on the pipes, the process's exit); the time limits only keep a
/// broken server from hanging the test run.
public final class ServerProcess: @unchecked Sendable {
    public let process: Process
    /// The port from the `listening on` line.
    public private(set) var port = 0
    private let stdout: PipeReader
    private let stderr: PipeReader
    private let exitWaiter: ProcessExitWaiter

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        /// How the server ended, when it ended before listening.
        public var exit: Exit?

        public init(description: String, exit: Exit? = nil) {
            self.description = description
            self.exit = exit
        }
    }

    /// What the server printed and how it ended.
    public struct Exit: Sendable {
        public var status: Int32
        /// Whether it exited (rather than being killed by a signal).
        public var exited: Bool
        public var stdout: String
        public var stderr: String
    }

    /// Starts `stubkit serve ARGUMENTS` and returns once it is listening.
    /// - Throws: ``Failure`` with what it printed when it exits first or prints nothing in `limit` seconds.
    public init(_ arguments: [String], limit: TimeInterval = 60) throws {
        process = Process()
        process.executableURL = ChildProcess.executable("stubkit")
        process.arguments = ["serve"] + arguments
        process.currentDirectoryURL = PackagePaths.root
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        stdout = PipeReader(out.fileHandleForReading)
        stderr = PipeReader(err.fileHandleForReading)
        exitWaiter = ProcessExitWaiter(process)
        try process.run()
        guard let line = stdout.waitForLine(containing: "listening on http://", limit: limit) else {
            let exit = terminate(SIGKILL)
            throw Failure(description: "stubkit serve \(arguments.joined(separator: " ")) did not start (status \(exit.status)):\n\(exit.stdout)\(exit.stderr)",
                          exit: exit)
        }
        port = line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    /// Runs `stubkit serve ARGUMENTS` expecting it to refuse to start, and returns how it exited.
    public static func failingToStart(_ arguments: [String], limit: TimeInterval = 60) throws -> Exit {
        let server: ServerProcess
        do {
            server = try ServerProcess(arguments, limit: limit)
        } catch let failure as Failure {
            guard let exit = failure.exit else { throw failure }
            return exit
        }
        let exit = server.terminate(SIGKILL)
        throw Failure(description: "stubkit serve started on port \(server.port) although it should not have:\n\(exit.stdout)")
    }

    /// `http://127.0.0.1:PORT`
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }

    /// Everything printed on stdout so far.
    public var output: String { stdout.text }

    /// Waits for a line on stdout containing `text`.
    public func waitForOutput(containing text: String, limit: TimeInterval = 60) -> String? {
        stdout.waitForLine(containing: text, limit: limit)
    }

    /// Sends `signal`, waits for the process to end and for both pipes to close, and returns what it
    /// printed. A process still running `limit` seconds later (a shutdown that hangs) is killed, and
    /// the exit says so (`exited` false).
    @discardableResult
    public func terminate(_ signal: Int32 = SIGTERM, limit: TimeInterval = 60) -> Exit {
        if process.isRunning { kill(process.processIdentifier, signal) }
        // Its stdout closes when it ends.
        if !stdout.waitForEnd(limit: limit).ended { kill(process.processIdentifier, SIGKILL) }
        if !exitWaiter.wait(limit: limit) {
            kill(process.processIdentifier, SIGKILL)
            guard exitWaiter.wait(limit: limit) else {
                // Not reaped in time: its status cannot be read, and the exit says it did not end cleanly.
                return Exit(status: -1, exited: false, stdout: stdout.waitForEnd(limit: 10).text, stderr: stderr.waitForEnd(limit: 10).text)
            }
        }
        let exit = Exit(status: process.terminationStatus, exited: process.terminationReason == .exit,
                        stdout: stdout.waitForEnd().text, stderr: stderr.waitForEnd().text)
        return exit
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
#endif
