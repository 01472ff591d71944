#if os(macOS) || os(Linux)
import Foundation
import StubKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An executable launched with an ``AppLaunchConfiguration``, the way XCUITest launches an app: the
/// Linux (and macOS command-line) stand-in for `XCUIApplication`.
///
/// ```swift
/// let app = try AppUnderTest.launch(stubdemo, with: AppLaunchConfiguration(templates: ["restaurants_base"]),
///                                   arguments: ["--interactive"])
/// try app.send("GET https://api.takeaway.example/restaurants")      // a "tap"
/// try await app.journal.waitForRequest(matching: .init("GET", path: "/restaurants"), timeout: 10)
/// app.terminate()
/// ```
///
/// A live journal file is created for the launch (unless the configuration names one) and followed
/// by ``journal``. The child's standard input stays open for ``send(_:)``; its standard output is read
/// line by line into ``nextOutputLine(timeout:)``.
public final class AppUnderTest: @unchecked Sendable {
    // Everything below is set in init and then only read, or guarded by `output`'s lock.
    /// What the app was launched with.
    public let configuration: AppLaunchConfiguration
    /// The app's live journal, followed while it runs.
    public let journal: LiveJournal
    private let process: Process
    private let input = Pipe()
    private let output = Locked(OutputState())
    private let lineArrived = DispatchSemaphore(value: 0)
    private let stderrDone = DispatchSemaphore(value: 0)
    /// Signalled once when the app exits (and passed on by each waiter).
    private let exited = DispatchSemaphore(value: 0)
    private let ownsJournalFile: Bool

    private struct OutputState {
        var lines: [String] = []
        var partial = Data()
        var stderr = Data()
        var closed = false
    }

    /// Starts `executable` with the configuration's arguments (then `arguments`) and environment (over
    /// this process's, without its `STUB_…` variables, so the child sees only what the test gives it).
    ///
    /// - Parameters:
    ///   - executable: the app to start.
    ///   - configuration: its stubs, flags, clock and seed.
    ///   - arguments: the app's own arguments, after the generated ones.
    ///   - currentDirectory: the app's working directory; this process's by default.
    ///   - control: the runtime control to steer the app with (from
    ///     ``AppLaunchConfiguration/enableRuntimeControl(timeout:)`` or ``AppControl/init(timeout:)``):
    ///     its settings go into the app's environment, and when the app exits, its calls fail at once
    ///     with the exit status.
    public static func launch(_ executable: URL, with configuration: AppLaunchConfiguration, arguments: [String] = [],
                              currentDirectory: URL? = nil, control: AppControl? = nil) throws -> AppUnderTest {
        try AppUnderTest(executable: executable, configuration: configuration, arguments: arguments, currentDirectory: currentDirectory,
                         control: control)
    }

    private init(executable: URL, configuration: AppLaunchConfiguration, arguments: [String], currentDirectory: URL?,
                 control: AppControl?) throws {
        var configuration = configuration
        if let control {
            configuration.stubs.control = control.settings
            control.launching()
        }
        ownsJournalFile = configuration.liveJournalPath == nil
        if ownsJournalFile {
            configuration.liveJournalPath = FileManager.default.temporaryDirectory
                .appendingPathComponent("stubkit-live-\(UUID().uuidString).jsonl").path
        }
        self.configuration = configuration
        journal = try LiveJournal(url: URL(fileURLWithPath: configuration.liveJournalPath!))

        process = Process()
        process.executableURL = executable
        process.arguments = try configuration.launchArguments + arguments
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STUB_") }
        environment.merge(configuration.launchEnvironment) { _, new in new }
        process.environment = environment
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        process.terminationHandler = { [exited] process in
            control?.appExited(status: process.terminationStatus)
            exited.signal()
        }
        try Self.withSignalsUnblocked { try process.run() }
        #if canImport(Darwin)
        // A write to the input of an app that has exited must fail, not kill the test runner: on this
        // descriptor only (on Linux, `send` blocks SIGPIPE on its own thread around the write).
        _ = fcntl(input.fileHandleForWriting.fileDescriptor, F_SETNOSIGPIPE, 1)
        #endif

        // The closures take the file handles, not the pipes: `Pipe` is not `Sendable` on every SDK.
        let outHandle = out.fileHandleForReading, errHandle = err.fileHandleForReading
        DispatchQueue.global().async { [output, lineArrived] in
            let handle = outHandle
            while true {
                let data = handle.availableData
                let lines: Int = output.withLock { state in
                    if data.isEmpty { state.closed = true; return 1 }
                    state.partial.append(data)
                    var count = 0
                    while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                        state.lines.append(String(decoding: state.partial[state.partial.startIndex..<newline], as: UTF8.self))
                        state.partial.removeSubrange(state.partial.startIndex...newline)
                        count += 1
                    }
                    return count
                }
                for _ in 0..<lines { lineArrived.signal() }
                if data.isEmpty { return }
            }
        }
        DispatchQueue.global().async { [output, stderrDone] in
            let data = errHandle.readDataToEndOfFile()
            output.withLock { $0.stderr = data }
            stderrDone.signal()
        }
    }

    deinit {
        // Waited for, so no process outlives its test (nor writes to a journal file removed below); one
        // that ignores SIGTERM is killed after a minute rather than hanging the test that let it go.
        if process.isRunning { process.terminate() }
        waitForExit(killingAfter: 60)
        if ownsJournalFile { try? FileManager.default.removeItem(at: journal.url) }
    }

    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }

    /// The app's process identifier.
    public var processIdentifier: Int32 { process.processIdentifier }

    /// Writes one line to the app's standard input (stubdemo's interactive mode reads a request per line).
    ///
    /// - Throws: a POSIX error (`EPIPE`) when the app has exited; the runner's SIGPIPE handling is left
    ///   as it was (the signal is kept from this write only).
    public func send(_ line: String) throws {
        let descriptor = input.fileHandleForWriting.fileDescriptor
        #if canImport(Glibc)
        // Linux has no per-descriptor switch for SIGPIPE: block it on this thread for the write, and
        // take the one the write raised (pending on this thread) before unblocking.
        var pipeSignal = sigset_t(), previous = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
        defer {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 && sigismember(&previous, SIGPIPE) == 0 {
                var now = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        #endif
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            written += count
        }
    }

    /// The next line the app prints, waiting at most `timeout` seconds for it; `nil` when the app
    /// closed its output or the time ran out.
    public func nextOutputLine(timeout: TimeInterval) -> String? {
        if lineArrived.wait(timeout: .now() + timeout) == .timedOut { return nil }
        let line: String? = output.withLock { state in state.lines.isEmpty ? nil : state.lines.removeFirst() }
        // The end of output was signalled once; pass it on so later calls return at once too.
        if line == nil { lineArrived.signal() }
        return line
    }

    /// Closes the app's standard input (stubdemo then finishes and exits) and waits for it to exit.
    /// An app still running `limit` seconds later is killed (SIGKILL), so a hung app cannot hang the test
    /// run; its status is then the signal's number.
    @discardableResult
    public func finish(limit: TimeInterval = 60) -> Int32 {
        try? input.fileHandleForWriting.close()
        waitForExit(killingAfter: limit)
        journal.stop()
        return process.terminationStatus
    }

    /// Stops the app as XCUITest does (SIGTERM), waits for it to exit and reads the journal's last lines.
    /// An app still running `limit` seconds after the SIGTERM is killed (SIGKILL).
    @discardableResult
    public func terminate(limit: TimeInterval = 60) -> Int32 {
        if process.isRunning { process.terminate() }
        waitForExit(killingAfter: limit)
        journal.stop()
        return process.terminationStatus
    }

    /// Runs `body` (the launch) with no signal blocked on this thread. A child starts with its parent
    /// thread's blocked signals, and Dispatch's worker threads, where tasks and tests run, block nearly
    /// all: an app launched from one would ignore `terminate()`'s SIGTERM until killed at the limit.
    private static func withSignalsUnblocked<T>(_ body: () throws -> T) rethrows -> T {
        var none = sigset_t(), previous = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        return try body()
    }

    private func waitForExit(killingAfter limit: TimeInterval) {
        if exited.wait(timeout: .now() + limit) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            exited.wait()
        }
        exited.signal()
        process.waitUntilExit()
    }

    /// What the app wrote to standard error, once it has exited.
    public var standardError: String {
        guard !process.isRunning else { return "" }
        // A process the app started and left running could hold the pipe open: wait 10 s at most.
        if stderrDone.wait(timeout: .now() + 10) == .success { stderrDone.signal() }
        return output.withLock { String(decoding: $0.stderr, as: UTF8.self) }
    }
}
#endif
