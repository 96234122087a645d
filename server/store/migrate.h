/* Versioned schema migrations: migrations/NNNN_name.sql (and the same for PostgreSQL in
 * migrations/postgresql/, applied by server/store/store_pg.c), embedded at build time
 * (scripts/embed-migrations), applied in order at start in one transaction each and recorded
 * in schema_migrations. */
#ifndef UMPIRE_MIGRATE_H
#define UMPIRE_MIGRATE_H

#include <sqlite3.h>
#include <stddef.h>

typedef struct migration_def {
    int version;
    const char *name;
    const char *sql;
} migration_def;

extern const migration_def umpire_migrations[]; /* SQLite: migrations/ */
extern const size_t umpire_migration_count;
extern const migration_def umpire_pg_migrations[]; /* PostgreSQL: migrations/postgresql/ */
extern const size_t umpire_pg_migration_count;

/* Applies every migration in defs[0..n) newer than the database's version, each in its own
 * transaction together with its schema_migrations row. Returns the number applied, or -1 with a
 * sentence in err: a failing migration (nothing of it applied), or a database whose schema is
 * newer than the newest migration known here (it refuses to touch it). */
int migrate_apply(sqlite3 *db, const migration_def *defs, size_t n, char *err, size_t errlen);

/* The database's schema version: the highest recorded migration, 0 for an empty database,
 * -1 on error. */
int migrate_current_version(sqlite3 *db);

#endif
