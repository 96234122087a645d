/* LD_PRELOAD shim for the benchmark: counts fsync/fdatasync calls of the process it is loaded
 * into, split by file (SQLite's "-wal" file vs anything else), without changing what they do.
 *
 * The daemon does not (yet) report its writer's commit count, so the benchmark estimates the
 * group-commit effect from the outside: in WAL mode with synchronous=FULL, SQLite syncs the WAL
 * once per committed transaction, and a checkpoint syncs the WAL once more and the database
 * file once. So   transactions ~= wal_syncs - other_syncs.
 *
 * The same shim is loaded into the bench's PostgreSQL server (bench/pg_cluster.py start
 * --preload): there a sync of a file under pg_wal/ counts as "wal" (with synchronous_commit=on
 * and wal_sync_method=fdatasync, about one per commit that had to wait for its WAL, whichever
 * backend or the walwriter issued it), anything else (the checkpointer's) as "other". The
 * postmaster maps the counters before it forks, so every backend adds to the same ones.
 *
 * The counters live in a 64-byte file named by BENCH_FSYNC_FILE (mmap'd shared), so the script
 * can read them at any moment: three little-endian uint64 — wal, other, total.
 *
 *   cc -O2 -shared -fPIC -o fsync_count.so bench/fsync_count.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static volatile uint64_t *counters; /* [0] wal, [1] other, [2] total */
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);

__attribute__((constructor)) static void init(void) {
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    const char *path = getenv("BENCH_FSYNC_FILE");
    if (!path || !*path) return;
    int fd = open(path, O_RDWR | O_CREAT, 0644);
    if (fd < 0) return;
    if (ftruncate(fd, 64) == 0) {
        void *p = mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p != MAP_FAILED) counters = p;
    }
    close(fd);
}

static void count(int fd) {
    if (!counters) return;
    char link[64], target[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    int wal = 0;
    if (n > 4) {
        target[n] = 0;
        wal = strcmp(target + n - 4, "-wal") == 0 || strstr(target, "/pg_wal/") != NULL;
    }
    __atomic_add_fetch(&counters[wal ? 0 : 1], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&counters[2], 1, __ATOMIC_RELAXED);
}

int fsync(int fd) {
    count(fd);
    return real_fsync ? real_fsync(fd) : -1;
}

int fdatasync(int fd) {
    count(fd);
    return real_fdatasync ? real_fdatasync(fd) : -1;
}
