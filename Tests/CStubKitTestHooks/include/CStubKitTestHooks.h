#ifndef CSTUBKITTESTHOOKS_H
#define CSTUBKITTESTHOOKS_H

/// Whether the test process guards readdir(3) for Foundation's Process.run() (see ProcessSpawnGuard.c).
int stubkit_test_process_spawn_guard_installed(void);

/// How many times the guarded readdir ran (-1 where there is no guard): a test sees Foundation's calls reach it.
long stubkit_test_readdir_calls(void);

#endif
