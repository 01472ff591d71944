// Keeps Foundation's Process.run() from crashing the test process on Linux.
//
// swift-corelibs-foundation 6.3.1's Process.run() scans /proc/self/fd to close descriptors in the child,
// and copies each directory entry's whole 256-byte d_name field although glibc's records are about 24
// bytes (swiftlang/swift-corelibs-foundation#5472, fixed after 6.3.1). With more than about 1,350
// descriptors open, a record lands at the end of glibc's 32 KiB directory buffer and the copy reads past
// it; when the memory after it is unmapped the process dies (SIGSEGV in memcpy under Process.run). The
// suite reaches 1,600 descriptors at its busiest (servers, sockets, pipes of child processes), and
// crashed this way in 3 of 6 full runs.
//
// The test bundle interposes readdir(3) (the executable exports it, see Package.swift): an entry whose
// 256-byte name field would run into the next page is handed out as a copy in a buffer with room for the
// whole field; any other entry is glibc's own. Test process only; the libraries are untouched.
#define _GNU_SOURCE
#include <stdlib.h>  // defines __GLIBC__ on glibc

#if defined(__GLIBC__)
#include <dirent.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <stdatomic.h>

static atomic_long calls = 0;
static atomic_long copies = 0;

struct dirent *readdir(DIR *directory) {
    static struct dirent *(*real)(DIR *) = NULL;
    if (real == NULL) real = (struct dirent *(*)(DIR *))dlsym(RTLD_NEXT, "readdir");
    struct dirent *entry = real(directory);
    atomic_fetch_add(&calls, 1);
    if (entry == NULL) return NULL;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t last = (uintptr_t)entry + entry->d_reclen - 1;
    uintptr_t fieldEnd = (uintptr_t)entry->d_name + sizeof(entry->d_name) - 1;
    if (last / page == fieldEnd / page) return entry;
    // The name field reaches a page the record does not: a copy whose field is all there. Valid until the
    // next readdir on this thread, as glibc's entry is until the next readdir on its stream.
    static __thread struct { struct dirent entry; char room[64]; } copy;
    memset(&copy, 0, sizeof(copy));
    memcpy(&copy.entry, entry, entry->d_reclen < sizeof(copy.entry) ? entry->d_reclen : sizeof(copy.entry));
    atomic_fetch_add(&copies, 1);
    return &copy.entry;
}

long stubkit_test_readdir_calls(void) { return atomic_load(&calls); }
int stubkit_test_process_spawn_guard_installed(void) { return 1; }
#else
long stubkit_test_readdir_calls(void) { return -1; }
int stubkit_test_process_spawn_guard_installed(void) { return 1; }
#endif
