import Foundation
import Testing
import StubKit
import StubKitTesting
import StubKitTestSupport

#if os(Linux)
/// A production launch opens nothing: activation without control settings leaves the process's
/// descriptors as they were. Counted in a test process of its own, where nothing else runs to open
/// descriptors meanwhile.
struct ProductionLaunchTests {
    static let childVariable = "STUBKIT_PRODUCTION_FD_CHECK_IN_THIS_PROCESS"

    @Test("activation without STUB_ settings opens no socket and no file; with control settings it opens exactly one socket")
    func opensNothing() throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "1" {
            try checkInThisProcess()
            return
        }
        let out = try ChildProcess.run(executableURL: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath(),
                                       arguments: ["--testing-library", "swift-testing", "--filter", "ProductionLaunchTests/opensNothing"],
                                       environment: [Self.childVariable: "1"])
        let report = out.stdout + out.stderr
        #expect(out.status == 0 && report.contains("Test run with 1 test") && report.contains("passed"), "\(report.suffix(3000))")
    }

    /// What each open descriptor of this process is (`socket:[…]`, a path, `pipe:[…]`). libdispatch
    /// makes its own timer and event descriptors (`anon_inode:[timerfd]`, `[eventfd]`) the first time
    /// anything in the process uses a timer, at a moment no test controls; they reach nothing outside
    /// the process, so they are left out of the count.
    func descriptors() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")
        }.filter { !$0.hasPrefix("/proc/") && !$0.hasPrefix("anon_inode:") }.sorted()
    }

    func checkInThisProcess() throws {
        let before = try descriptors()
        // The process's own arguments and environment hold no STUB_ setting (the parent passes none).
        let environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STUB_") }
        let activation = try StubActivation.activate(arguments: ["app"], environment: environment, register: false)
        #expect(activation == nil)
        #expect(try descriptors() == before, "a production launch opened descriptors")

        // The same count sees the connection that control settings ask for: the app's end and, the
        // runner being in this process too, the runner's end of it.
        let control = try AppControl(timeout: 60)
        let listening = try descriptors()
        let controlled = try StubActivation.activate(arguments: ["app"], environment: control.launchEnvironment, register: false)
        #expect(controlled != nil)
        let opened = try descriptors().filter { !listening.contains($0) }
        #expect(opened.count == 2 && opened.allSatisfy { $0.hasPrefix("socket:") }, "\(opened)")
    }
}
#endif
