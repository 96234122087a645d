/* Storage ceiling for Umpire's durable writes: what SQLite itself can commit on this disk.
 *
 *   sqlite_ceiling DBFILE [SECONDS]
 *
 * On a fresh file in WAL mode with synchronous=FULL (the daemon's default), inserts rows of
 * ~600 bytes (about one event) into a table shaped like an event log, for SECONDS (default 5)
 * in each of two modes:
 *   (a) one INSERT per transaction: one WAL fsync per row, the one-fsync-per-action ceiling;
 *   (b) 64 INSERTs per transaction: what group commit (storage.group_commit_max = 64) can reach.
 * Prints two lines, "single <inserts/s>" and "batch64 <inserts/s>". Build:
 *   cc -O2 -o sqlite_ceiling bench/sqlite_ceiling.c -lsqlite3
 */
#define _POSIX_C_SOURCE 200809L
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_ceiling: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void exec(sqlite3 *db, const char *sql) {
    check(sqlite3_exec(db, sql, NULL, NULL, NULL), db, sql);
}

/* Inserts rows in transactions of `per_tx` rows for about `secs` seconds; returns rows/s. */
static double run(sqlite3 *db, sqlite3_stmt *ins, int per_tx, double secs, long long *seq) {
    char data[600];
    long long rows = 0;
    double t0 = now(), t;
    do {
        exec(db, "BEGIN IMMEDIATE");
        for (int i = 0; i < per_tx; i++) {
            long long s = ++*seq;
            /* Varying content so that pages are really rewritten (no compression tricks apply). */
            for (size_t k = 0; k < sizeof data - 1; k++)
                data[k] = (char)('a' + (int)((s * 31 + (long long)k * 7) % 26));
            data[sizeof data - 1] = 0;
            char hash[65];
            snprintf(hash, sizeof hash, "%064llx", s);
            sqlite3_bind_int64(ins, 1, s);
            sqlite3_bind_text(ins, 2, hash, 64, SQLITE_STATIC);
            sqlite3_bind_text(ins, 3, data, (int)sizeof data - 1, SQLITE_STATIC);
            check(sqlite3_step(ins), db, "insert");
            sqlite3_reset(ins);
        }
        exec(db, "COMMIT");
        rows += per_tx;
        t = now();
    } while (t - t0 < secs);
    return (double)rows / (t - t0);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s DBFILE [SECONDS]\n", argv[0]);
        return 2;
    }
    double secs = argc > 2 ? atof(argv[2]) : 5.0;
    if (secs <= 0 || secs > 600) secs = 5.0;
    sqlite3 *db;
    if (sqlite3_open(argv[1], &db) != SQLITE_OK) {
        fprintf(stderr, "sqlite_ceiling: cannot open %s\n", argv[1]);
        return 1;
    }
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA synchronous=FULL");
    exec(db, "CREATE TABLE IF NOT EXISTS events(session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
             "hash TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY(session_id, seq))");
    sqlite3_stmt *ins;
    check(sqlite3_prepare_v2(db,
                             "INSERT INTO events(session_id, seq, hash, data) "
                             "VALUES('0123456789abcdef0123456789abcdef', ?1, ?2, ?3)",
                             -1, &ins, NULL),
          db, "prepare");
    long long seq = 0;
    double single = run(db, ins, 1, secs, &seq);
    double batch = run(db, ins, 64, secs, &seq);
    printf("single %.0f\nbatch64 %.0f\n", single, batch);
    sqlite3_finalize(ins);
    sqlite3_close(db);
    return 0;
}
