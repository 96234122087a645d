/* Allocation-failure injection for the fault tests (tests/fault/test_alloc_failure.py).
 *
 * Compiled in only with -DUMPIRE_FAULT_INJECTION; without it every function here is an empty
 * inline no-op and fault_inject.c compiles to nothing, so a release build carries no code.
 *
 * fault_inject_install_from_env() must run at the very start of main(), before any jansson or
 * SQLite allocation (SQLite's allocator can only be replaced before sqlite3_initialize). It
 * installs counting allocators into jansson (json_set_alloc_funcs) and SQLite
 * (SQLITE_CONFIG_MALLOC, wrapping the default methods). They count every allocation (malloc and
 * realloc) and fail exactly ONE of them, the Nth counted since arming, then pass everything
 * through again.
 *
 *   UMPIRE_FAIL_ALLOC_AT=N          the allocation to fail (1-based). Unset or 0: install nothing.
 *   UMPIRE_FAIL_ALLOC_AT_FILE=PATH  optional: at each arming, N is read again from this file
 *                                   (decimal), so one daemon can be armed many times.
 *   SIGUSR1                         arm: the counter restarts at 0 and N is (re)read. Writes
 *                                   "fault_inject: armed N=<n>" to stderr.
 *   SIGUSR2                         disarm: writes "fault_inject: disarmed after <k> allocations"
 *                                   (k = allocations counted since arming).
 * When the Nth allocation is failed, "fault_inject: failed allocation <n> (jansson|sqlite)" is
 * written to stderr. All messages go through write(2): no allocation, async-signal-safe. */
#ifndef UMPIRE_FAULT_INJECT_H
#define UMPIRE_FAULT_INJECT_H

#ifdef UMPIRE_FAULT_INJECTION
void fault_inject_install_from_env(void);
#else
static inline void fault_inject_install_from_env(void) {
}
#endif

#endif
