#include "server/store/store_check.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The messages kept for the log: quick_check lists up to 100 by default, the first few say
 * where the damage is. */
#define CHECK_MESSAGES 3

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* SQLite's progress handler: a non-zero answer interrupts the statement. */
static int past_deadline(void *arg) {
    return now_ns() >= *(const uint64_t *)arg;
}

/* Appends text to msg, separated by "; ". */
static void add_message(char *msg, size_t msglen, const char *text) {
    size_t len = strlen(msg);
    if (len + 1 < msglen)
        snprintf(msg + len, msglen - len, "%s%s", len ? "; " : "", text ? text : "?");
}

store_check_result store_quick_check(store_conn *c, int64_t ms, char *msg, size_t msglen) {
    sqlite3 *db = store_sqlite_handle(c);
    msg[0] = '\0';
    if (!db || ms <= 0) return STORE_CHECK_SKIPPED;
    uint64_t deadline = now_ns() + (uint64_t)ms * 1000000u;
    /* Every 1,000 virtual machine instructions: microseconds apart. */
    sqlite3_progress_handler(db, 1000, past_deadline, &deadline);
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL);
    int rows = 0;
    bool ok = false;
    if (rc == SQLITE_OK) {
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            const char *text = (const char *)sqlite3_column_text(st, 0);
            if (rows == 0 && text && strcmp(text, "ok") == 0) ok = true;
            if (rows++ < CHECK_MESSAGES) add_message(msg, msglen, text);
        }
        if (rc == SQLITE_DONE) rc = SQLITE_OK;
    }
    int code = rc == SQLITE_OK ? SQLITE_OK : sqlite3_errcode(db) & 0xff;
    if (rc != SQLITE_OK && code != SQLITE_INTERRUPT) add_message(msg, msglen, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    sqlite3_progress_handler(db, 0, NULL, NULL);
    if (code == SQLITE_INTERRUPT) return STORE_CHECK_UNFINISHED;
    /* A page SQLite cannot even read as part of a b-tree is damage too. */
    if (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) return STORE_CHECK_CORRUPT;
    if (code != SQLITE_OK) return STORE_CHECK_FAILED;
    if (ok && rows == 1) {
        snprintf(msg, msglen, "ok");
        return STORE_CHECK_OK;
    }
    if (rows > CHECK_MESSAGES) {
        char more[48];
        snprintf(more, sizeof more, "and %d more", rows - CHECK_MESSAGES);
        add_message(msg, msglen, more);
    }
    return STORE_CHECK_CORRUPT;
}
