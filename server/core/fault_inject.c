/* See fault_inject.h. Everything below exists only in -DUMPIRE_FAULT_INJECTION builds. */
#include "server/core/fault_inject.h"

#include "protocol/decimal.h"
#include "server/core/alloc_guard.h"

#ifdef UMPIRE_FAULT_INJECTION

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_long fi_target;  /* N: the counted allocation to fail; 0 = none */
static atomic_long fi_count;   /* allocations counted since arming */
static atomic_int fi_armed;    /* 1 while counting and not yet fired */
static const char *fi_at_file; /* UMPIRE_FAIL_ALLOC_AT_FILE, read at each arming */
static sqlite3_mem_methods fi_sqlite_orig;

/* ---- async-signal-safe output -------------------------------------------------------------- */

static void fi_put(char *buf, size_t *len, size_t cap, const char *s) {
    while (*s && *len + 1 < cap)
        buf[(*len)++] = *s++;
}

static void fi_put_long(char *buf, size_t *len, size_t cap, long v) {
    char digits[DECIMAL_U64_MAX];
    size_t n = decimal_u64(digits, v < 0 ? 0 : (uint64_t)v); /* no printf in a signal handler */
    for (size_t i = 0; i < n && *len + 1 < cap; i++)
        buf[(*len)++] = digits[i];
}

static void fi_say(const char *a, long v, const char *b) {
    char buf[160];
    size_t len = 0;
    fi_put(buf, &len, sizeof buf, "fault_inject: ");
    fi_put(buf, &len, sizeof buf, a);
    fi_put_long(buf, &len, sizeof buf, v);
    fi_put(buf, &len, sizeof buf, b);
    fi_put(buf, &len, sizeof buf, "\n");
    ssize_t rc = write(STDERR_FILENO, buf, len);
    (void)rc;
}

static long fi_parse(const char *s) {
    long v = 0;
    if (!s) return 0;
    while (*s == ' ' || *s == '\t')
        s++;
    while (*s >= '0' && *s <= '9' && v < 1000000000L)
        v = v * 10 + (*s++ - '0');
    return v;
}

/* ---- the decision ------------------------------------------------------------------------- */

static int fi_should_fail(const char *who) {
    if (!atomic_load_explicit(&fi_armed, memory_order_relaxed)) return 0;
    long n = atomic_fetch_add(&fi_count, 1) + 1;
    if (n != atomic_load(&fi_target)) return 0;
    int expected = 1;
    if (!atomic_compare_exchange_strong(&fi_armed, &expected, 0)) return 0;
    fi_say("failed allocation ", n, who);
    return 1;
}

/* ---- signals ------------------------------------------------------------------------------ */

static void fi_on_arm(int sig) {
    (void)sig;
    int saved = errno;
    long n = atomic_load(&fi_target);
    if (fi_at_file) {
        int fd = open(fi_at_file, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            char buf[32];
            ssize_t r = read(fd, buf, sizeof buf - 1);
            close(fd);
            if (r > 0) {
                buf[r] = '\0';
                n = fi_parse(buf);
            }
        }
    }
    atomic_store(&fi_armed, 0);
    atomic_store(&fi_target, n);
    atomic_store(&fi_count, 0);
    atomic_store(&fi_armed, n > 0);
    fi_say("armed N=", n, "");
    errno = saved;
}

static void fi_on_disarm(int sig) {
    (void)sig;
    int saved = errno;
    atomic_store(&fi_armed, 0);
    fi_say("disarmed after ", atomic_load(&fi_count), " allocations");
    errno = saved;
}

/* ---- jansson ------------------------------------------------------------------------------ */

static void *fi_json_malloc(size_t n) {
    return fi_should_fail(" (jansson)") ? NULL : malloc(n);
}

static void fi_json_free(void *p) {
    free(p);
}

/* ---- SQLite: the default methods, wrapped ------------------------------------------------- */

static void *fi_sqlite_malloc(int n) {
    return fi_should_fail(" (sqlite)") ? NULL : fi_sqlite_orig.xMalloc(n);
}

static void *fi_sqlite_realloc(void *p, int n) {
    return fi_should_fail(" (sqlite realloc)") ? NULL : fi_sqlite_orig.xRealloc(p, n);
}

void fault_inject_install_from_env(void) {
    long n = fi_parse(getenv("UMPIRE_FAIL_ALLOC_AT"));
    fi_at_file = getenv("UMPIRE_FAIL_ALLOC_AT_FILE");
    if (n <= 0 && !fi_at_file) return;
    atomic_store(&fi_target, n);

    alloc_guard_set_inner(fi_json_malloc, fi_json_free); /* under server/core/alloc_guard.c */

    if (sqlite3_config(SQLITE_CONFIG_GETMALLOC, &fi_sqlite_orig) == SQLITE_OK) {
        sqlite3_mem_methods m = fi_sqlite_orig;
        m.xMalloc = fi_sqlite_malloc;
        m.xRealloc = fi_sqlite_realloc;
        if (sqlite3_config(SQLITE_CONFIG_MALLOC, &m) != SQLITE_OK)
            fi_say("cannot install the SQLite allocator (rc ", 1, ")");
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sa.sa_handler = fi_on_arm;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = fi_on_disarm;
    sigaction(SIGUSR2, &sa, NULL);
    fi_say("installed, N=", n, " (SIGUSR1 arms, SIGUSR2 disarms)");
}

#else
/* ISO C wants at least one declaration in a translation unit. */
typedef int fault_inject_disabled;
#endif
