/* Drives server/store/store_pg.c through the writer's sequence of calls while the test kills the
 * connection under it (tests/pg/test_store_pg.py). Usage: store_pg_harness URI SCENARIO
 *
 *   midtx: BEGIN, lock, SAVEPOINT, event insert, RELEASE; then the connection is terminated
 *          (from a second connection); SAVEPOINT, session update, notify, COMMIT. The
 *          connection must not be replaced inside the transaction: everything after the break
 *          fails, COMMIT included, and nothing of it is in the database.
 *   idle:  a read; the connection is terminated; a read again: outside a transaction the
 *          statement is retried once on a new connection, and succeeds.
 *
 * Prints one "name rc" line a step, then "ok" or "FAIL: why"; exit status 0 or 1. */
#include "server/store/store.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void expect(const char *what, int got, int want) {
    printf("%s %d\n", what, got);
    if (got != want) {
        printf("FAIL: %s gave %d, expected %d\n", what, got, want);
        failures++;
    }
}

static long long scalar(PGconn *admin, const char *sql) {
    PGresult *r = PQexec(admin, sql);
    long long v =
        PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) ? atoll(PQgetvalue(r, 0, 0)) : -1;
    PQclear(r);
    return v;
}

/* Terminates every other connection to the database (the store's), as a server restart would. */
static void kill_others(PGconn *admin) {
    PQclear(PQexec(admin, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                          "WHERE datname = current_database() AND pid <> pg_backend_pid()"));
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: store_pg_harness URI midtx|idle\n");
        return 2;
    }
    char err[512];
    store_conn *c = store_conn_open(argv[1], "full", 0, err, sizeof err);
    if (!c) {
        printf("FAIL: open: %s\n", err);
        return 1;
    }
    expect("migrate", store_migrate(c, err, sizeof err) >= 0, 1);
    PGconn *admin = PQconnectdb(argv[1]);
    PQclear(PQexec(admin, "INSERT INTO sessions VALUES ('s1', 'generic', 1, 't', '[]', 'public', "
                          "'{}', 'manual', NULL, NULL, 1, 0, 'h0', '{}', 'now')"));
    if (strcmp(argv[2], "midtx") == 0) {
        const char ids[1][33] = {"s1"};
        int64_t versions[1];
        expect("begin", store_tx(c, STORE_TX_BEGIN), 0);
        expect("lock", store_lock_sessions(c, ids, 1, versions), 0);
        expect("savepoint", store_tx(c, STORE_TX_SAVEPOINT), 0);
        event_row ev = {.seq = 1,
                        .ts = "now",
                        .actor = "referee",
                        .type = "x",
                        .prev = "h0",
                        .hash = "h1",
                        .data_text = "{}"};
        expect("event_insert", store_event_insert(c, "s1", &ev), 0);
        expect("release", store_tx(c, STORE_TX_RELEASE), 0);
        kill_others(admin);
        expect("savepoint_after_break", store_tx(c, STORE_TX_SAVEPOINT), -1);
        json_t *state = json_object();
        expect("session_update_after_break", store_session_update(c, "s1", 1, "h1", state, 1, NULL),
               -1);
        json_decref(state);
        expect("notify_after_break", store_notify(c, "s1", 1), -1);
        expect("commit_after_break", store_tx(c, STORE_TX_COMMIT), -1);
        expect("version_in_database",
               (int)scalar(admin, "SELECT version FROM sessions WHERE id = 's1'"), 0);
        expect("events_in_database", (int)scalar(admin, "SELECT count(*) FROM events"), 0);
        /* The next transaction runs on a new connection. */
        expect("begin_again", store_tx(c, STORE_TX_BEGIN), 0);
        expect("rollback", store_tx(c, STORE_TX_ROLLBACK), 0);
    } else {
        expect("version", (int)store_session_version(c, "s1"), 0);
        kill_others(admin);
        expect("version_after_break", (int)store_session_version(c, "s1"), 0);
    }
    PQfinish(admin);
    store_conn_close(c);
    printf(failures ? "FAIL\n" : "ok\n");
    return failures ? 1 : 0;
}
