import CStubKitTestHooks

/// Whether the test process's allocator was set up so that Foundation's `Process.run()` cannot crash it
/// on Linux with many descriptors open (Tests/CStubKitTestHooks/ProcessSpawnGuard.c).
public enum ProcessSpawnGuard {
    public static var isInstalled: Bool { stubkit_test_process_spawn_guard_installed() == 1 }
}
