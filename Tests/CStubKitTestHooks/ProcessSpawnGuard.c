// Keeps Foundation's Process.run() from crashing the test process on Linux.
//
// swift-corelibs-foundation 6.3.1's Process.run() scans /proc/self/fd to close descriptors in the child,
// and copies each directory entry's whole 256-byte d_name field although glibc's records are about 24
// bytes (swiftlang/swift-corelibs-foundation#5472, fixed after 6.3.1). With more than about 1,350
// descriptors open, a record lands at the end of glibc's 32 KiB directory buffer and the copy reads past
// it; when the buffer ends at the top of a malloc arena the next page is unmapped and the process dies
// (SIGSEGV in memcpy under Process.run). The suite reaches 1,600 descriptors at its busiest (servers,
// sockets, pipes of child processes), and crashed this way in 2 of 4 full runs.
//
// Allocations of 32 KiB and more are served by mmap from the start: the directory buffer then ends at
// least 4 KiB before the end of its own mapping, so the over-read stays inside it. Test process only;
// the libraries are untouched. Runs before any test, as a constructor of the test bundle.
#include <stdlib.h>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <malloc.h>

static int installed = 0;

__attribute__((constructor)) static void stubkit_install_process_spawn_guard(void) {
    installed = mallopt(M_MMAP_THRESHOLD, 32 * 1024) == 1;
}

int stubkit_test_process_spawn_guard_installed(void) { return installed; }
#else
int stubkit_test_process_spawn_guard_installed(void) { return 1; }
#endif
