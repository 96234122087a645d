/* Unit tests for server/store/checkpointer.c: checkpoints run beside a committing writer, and the
 * WAL stays bounded although the writer never stops (a checkpoint beside a busy writer alone never
 * reaches the WAL's end, so SQLite would never start the WAL over). */
#include "server/store/checkpointer.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char dir[64];
    char path[128];
} tmpdb;

static void tmpdb_init(tmpdb *t) {
    snprintf(t->dir, sizeof t->dir, "/tmp/umpire-ckpt-XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->path, sizeof t->path, "%s/t.db", t->dir);
}

static void tmpdb_remove(tmpdb *t) {
    char p[160];
    const char *suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", t->path, suffixes[i]);
        unlink(p);
    }
    rmdir(t->dir);
}

static store_conn *open_conn(const char *path) {
    char err[256];
    store_conn *c = store_conn_open(path, "full", 5000, err, sizeof err);
    if (!c) fail_msg("open %s: %s", path, err);
    return c;
}

static off_t wal_size(const char *path) {
    char p[160];
    struct stat st;
    snprintf(p, sizeof p, "%s-wal", path);
    return stat(p, &st) == 0 ? st.st_size : 0;
}

/* Commits `commits` transactions of `rows` rows of 1 KiB each; returns the largest WAL size seen
 * after a commit. */
static off_t write_load(store_conn *w, const char *path, int commits, int rows) {
    sqlite3_stmt *ins = NULL;
    assert_int_equal(
        sqlite3_prepare_v2(store_sqlite_handle(w), "INSERT INTO t (v) VALUES (?1)", -1, &ins, NULL),
        SQLITE_OK);
    char blob[1024];
    memset(blob, 'x', sizeof blob);
    off_t largest = 0;
    for (int c = 0; c < commits; c++) {
        assert_int_equal(store_exec(w, "BEGIN IMMEDIATE"), 0);
        for (int r = 0; r < rows; r++) {
            sqlite3_bind_blob(ins, 1, blob, sizeof blob, SQLITE_STATIC);
            assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
            sqlite3_reset(ins);
        }
        assert_int_equal(store_exec(w, "COMMIT"), 0);
        off_t size = wal_size(path);
        if (size > largest) largest = size;
    }
    sqlite3_finalize(ins);
    return largest;
}

/* A database with table t, a writer connection and a checkpointer watching it. */
static checkpointer *start(tmpdb *t, store_conn **w) {
    tmpdb_init(t);
    *w = open_conn(t->path);
    assert_int_equal(store_exec(*w, "CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)"), 0);
    checkpointer *cp = checkpointer_new(open_conn(t->path));
    assert_non_null(cp);
    checkpointer_watch(cp, store_sqlite_handle(*w));
    return cp;
}

static void test_wal_stays_bounded_under_a_busy_writer(void **state) {
    (void)state;
    tmpdb t;
    store_conn *w;
    checkpointer *cp = start(&t, &w);

    /* 2,000 commits of 8 rows: about 11,000 pages (45 MB) through the WAL, eleven times the
     * threshold, without a pause for a checkpoint to catch up. */
    off_t largest = write_load(w, t.path, 2000, 8);
    uint64_t runs = 0, finishes = 0;
    int last_rc = -1;
    checkpointer_stats(cp, &runs, &finishes, &last_rc);
    assert_true(runs >= 2);
    /* Without the writer's finishing step the WAL holds all of it (44.9 MB measured); with it, a
     * round's worth: the threshold plus what was committed while the thread copied. */
    off_t bound = (off_t)CHECKPOINT_WAL_PAGES * 4096 * 6;
    if (largest > bound)
        fail_msg("the WAL reached %lld bytes (bound %lld) after %llu checkpoints",
                 (long long)largest, (long long)bound, (unsigned long long)runs);

    checkpointer_unwatch(store_sqlite_handle(w));
    checkpointer_free(cp);
    /* Every row is there, through a new connection. */
    store_conn *r = open_conn(t.path);
    sqlite3_stmt *count = NULL;
    assert_int_equal(
        sqlite3_prepare_v2(store_sqlite_handle(r), "SELECT count(*) FROM t", -1, &count, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(count), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(count, 0), 2000 * 8);
    sqlite3_finalize(count);
    store_conn_close(r);
    store_conn_close(w);
    tmpdb_remove(&t);
}

static void test_quiet_writer_needs_no_checkpoint(void **state) {
    (void)state;
    tmpdb t;
    store_conn *w;
    checkpointer *cp = start(&t, &w);
    write_load(w, t.path, 20, 4); /* about 100 pages: below the threshold */
    uint64_t runs = 1, finishes = 1;
    int last_rc = -1;
    checkpointer_stats(cp, &runs, &finishes, &last_rc);
    assert_int_equal(runs, 0);
    assert_int_equal(finishes, 0);
    checkpointer_unwatch(store_sqlite_handle(w));
    checkpointer_free(cp);
    checkpointer_free(NULL); /* a no-op */
    store_conn_close(w);
    tmpdb_remove(&t);
}

/* Waits (up to 10 s) until the thread has run `want` checkpoints. */
static void wait_runs(checkpointer *cp, uint64_t want) {
    for (int i = 0; i < 1000; i++) {
        uint64_t runs, finishes;
        int rc;
        checkpointer_stats(cp, &runs, &finishes, &rc);
        if (runs >= want) return;
        usleep(10000);
    }
    fail_msg("the checkpoint thread did not run %llu checkpoints in 10 s",
             (unsigned long long)want);
}

/* A writer that pauses: the thread's checkpoint copies the whole WAL, and SQLite starts it
 * over. The next round must go to the thread again; finishing it off on the writer, on the
 * strength of the last round's run, would copy a whole round inside a commit. */
static void test_writer_never_finishes_a_round_the_thread_did_not_copy(void **state) {
    (void)state;
    tmpdb t;
    store_conn *w;
    checkpointer *cp = start(&t, &w);
    /* Round 1: up to the threshold, then a pause while the thread copies everything. */
    while (wal_size(t.path) < (off_t)CHECKPOINT_WAL_PAGES * (4096 + 24))
        write_load(w, t.path, 1, 8);
    wait_runs(cp, 1);
    /* Round 2 (the first commit starts the WAL over): after every commit, a round the writer
     * finished must be one the thread ran in. */
    for (int c = 0; c < 20000; c++) {
        write_load(w, t.path, 1, 8);
        uint64_t runs, finishes;
        int rc;
        checkpointer_stats(cp, &runs, &finishes, &rc);
        if (finishes > 0 && runs < 2)
            fail_msg("the writer finished round 2 off, %llu rows after the thread's only run",
                     (unsigned long long)c * 8);
        if (runs >= 2) break;
    }
    wait_runs(cp, 2);
    checkpointer_unwatch(store_sqlite_handle(w));
    checkpointer_free(cp);
    store_conn_close(w);
    tmpdb_remove(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wal_stays_bounded_under_a_busy_writer),
        cmocka_unit_test(test_quiet_writer_needs_no_checkpoint),
        cmocka_unit_test(test_writer_never_finishes_a_round_the_thread_did_not_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
