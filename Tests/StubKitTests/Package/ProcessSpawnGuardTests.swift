import Foundation
import StubKitTestSupport
import Testing

/// The suite starts hundreds of child processes while servers, sockets and pipes hold many descriptors;
/// Foundation's `Process.run()` on Linux read past a buffer then and crashed the whole test process.
@Suite
struct ProcessSpawnGuardTests {
    @Test("the allocator guard is installed before any test")
    func installed() {
        #expect(ProcessSpawnGuard.isInstalled)
    }
}
