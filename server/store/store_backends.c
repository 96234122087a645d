/* The backend table, in the manner of Redis's command table: one row per storage backend, and
 * store_conn_open() (server/store/store.c) opens a database with the first row that claims its
 * name. Adding a backend is a file beside store_sqlite.c and a row here; store.c names none. */
#include "server/store/store_backend.h"

#include <strings.h>

static bool pg_claims(const char *db) {
    return strncasecmp(db, "postgresql://", 13) == 0 || strncasecmp(db, "postgres://", 11) == 0;
}

static store_conn *pg_open(const char *db, const char *synchronous, int64_t busy_timeout_ms,
                           char *err, size_t errlen) {
    (void)synchronous; /* SQLite's settings: PostgreSQL takes its own from the URI */
    (void)busy_timeout_ms;
    return store_pg_open(db, err, errlen);
}

/* A database that is no URI of another backend is a SQLite file. */
static bool sqlite_claims(const char *db) {
    (void)db;
    return true;
}

static const store_backend_def backends[] = {
    {STORE_POSTGRES, "postgresql", pg_claims, pg_open},
    {STORE_SQLITE, "sqlite", sqlite_claims, store_sqlite_open}, /* last: takes the rest */
};

const store_backend_def *store_backend_for(const char *db) {
    size_t n = sizeof backends / sizeof backends[0];
    for (size_t i = 0; i + 1 < n; i++)
        if (backends[i].claims(db)) return &backends[i];
    return &backends[n - 1];
}

bool store_db_is_postgres(const char *db) {
    return store_backend_for(db)->kind == STORE_POSTGRES;
}
