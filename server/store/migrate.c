#include "server/store/migrate.h"

#include <stdio.h>

static int exec_sql(sqlite3 *db, const char *sql, char *err, size_t errlen) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
        return -1;
    }
    return 0;
}

int migrate_current_version(sqlite3 *db) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT coalesce(max(version), 0) FROM schema_migrations", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    int v = -1;
    if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int record(sqlite3 *db, const migration_def *m) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db,
                           "INSERT INTO schema_migrations(version, name, applied_at) "
                           "VALUES (?1, ?2, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int(st, 1, m->version);
    sqlite3_bind_text(st, 2, m->name, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

int migrate_apply(sqlite3 *db, const migration_def *defs, size_t n, char *err, size_t errlen) {
    if (exec_sql(db,
                 "CREATE TABLE IF NOT EXISTS schema_migrations ("
                 " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
                 err, errlen) != 0)
        return -1;
    int current = migrate_current_version(db);
    if (current < 0) {
        snprintf(err, errlen, "cannot read schema_migrations: %s", sqlite3_errmsg(db));
        return -1;
    }
    int newest = n > 0 ? defs[n - 1].version : 0;
    if (current > newest) {
        snprintf(err, errlen,
                 "the database is at schema version %d, newer than this umpired knows (%d): "
                 "run a newer umpired, or restore a backup",
                 current, newest);
        return -1;
    }
    int applied = 0;
    for (size_t i = 0; i < n; i++) {
        const migration_def *m = &defs[i];
        if (m->version <= current) continue;
        char why[512];
        /* BEGIN IMMEDIATE: take the write lock first, so two daemons starting on one file
         * cannot both apply the same migration. */
        if (exec_sql(db, "BEGIN IMMEDIATE", why, sizeof why) != 0 ||
            exec_sql(db, m->sql, why, sizeof why) != 0 || record(db, m) != 0 ||
            exec_sql(db, "COMMIT", why, sizeof why) != 0) {
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            snprintf(err, errlen, "migration %04d_%s failed: %s", m->version, m->name, why);
            return -1;
        }
        applied++;
    }
    return applied;
}
