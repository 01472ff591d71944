import CStubKitTestHooks

/// The test process's guard for Foundation's `Process.run()` on Linux, which reads past glibc's
/// directory entries when many descriptors are open (Tests/CStubKitTestHooks/ProcessSpawnGuard.c).
public enum ProcessSpawnGuard {
    public static var isInstalled: Bool { stubkit_test_process_spawn_guard_installed() == 1 }
    /// How many times the guarded `readdir` ran; -1 where the platform needs no guard.
    public static var readdirCalls: Int { stubkit_test_readdir_calls() }
}
