import Foundation
import StubKitTestSupport
import Testing

/// The suite starts hundreds of child processes while servers, sockets and pipes hold many descriptors;
/// Foundation's `Process.run()` on Linux read past glibc's directory entries then and crashed the whole
/// test process. The test bundle's own `readdir` must be the one Foundation calls.
@Suite
struct ProcessSpawnGuardTests {
    @Test("Foundation's directory reads go through the test bundle's guarded readdir")
    func foundationReachesTheGuard() throws {
        #expect(ProcessSpawnGuard.isInstalled)
        #if os(Linux)
        let before = ProcessSpawnGuard.readdirCalls
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")
        #expect(!names.isEmpty)
        #expect(ProcessSpawnGuard.readdirCalls > before, "FileManager's readdir calls did not reach the guard: is readdir exported (Package.swift)?")
        #endif
    }
}
