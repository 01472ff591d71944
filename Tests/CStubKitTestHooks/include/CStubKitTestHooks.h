#ifndef CSTUBKITTESTHOOKS_H
#define CSTUBKITTESTHOOKS_H

/// Whether the test process's allocator was set up for child processes (see ProcessSpawnGuard.c).
int stubkit_test_process_spawn_guard_installed(void);

#endif
