/* Migrations: on an empty database, on an existing one, a failing one, and a database from a
 * newer version. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/store/migrate.h"

#include <stdio.h>
#include <string.h>

static const migration_def two[] = {
    {1, "init", "CREATE TABLE a (x INTEGER);"},
    {2, "more", "CREATE TABLE b (y INTEGER); INSERT INTO a VALUES (7);"},
};

static sqlite3 *open_memory(void) {
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    return db;
}

static int count_rows(sqlite3 *db, const char *sql) {
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int n = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return n;
}

static void empty_database_gets_every_migration(void **state) {
    (void)state;
    sqlite3 *db = open_memory();
    char err[256] = "";
    assert_int_equal(migrate_apply(db, two, 2, err, sizeof err), 2);
    assert_int_equal(migrate_current_version(db), 2);
    assert_int_equal(count_rows(db, "SELECT count(*) FROM a"), 1);
    assert_int_equal(count_rows(db, "SELECT count(*) FROM schema_migrations"), 2);
    sqlite3_close(db);
}

static void existing_database_gets_only_new_ones(void **state) {
    (void)state;
    sqlite3 *db = open_memory();
    char err[256] = "";
    assert_int_equal(migrate_apply(db, two, 1, err, sizeof err), 1);
    assert_int_equal(migrate_current_version(db), 1);
    /* Re-running the same set applies nothing. */
    assert_int_equal(migrate_apply(db, two, 1, err, sizeof err), 0);
    /* A newer binary brings migration 2 only. */
    assert_int_equal(migrate_apply(db, two, 2, err, sizeof err), 1);
    assert_int_equal(count_rows(db, "SELECT count(*) FROM a"), 1);
    assert_int_equal(migrate_current_version(db), 2);
    sqlite3_close(db);
}

static void failing_migration_leaves_nothing_half_done(void **state) {
    (void)state;
    static const migration_def bad[] = {
        {1, "init", "CREATE TABLE a (x INTEGER);"},
        {2, "broken", "CREATE TABLE c (z INTEGER); INSERT INTO nowhere VALUES (1);"},
    };
    sqlite3 *db = open_memory();
    char err[256] = "";
    assert_int_equal(migrate_apply(db, bad, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "0002_broken"));
    assert_int_equal(migrate_current_version(db), 1);
    /* Table c of the failed migration must not exist. */
    assert_int_equal(count_rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'c'"), 0);
    sqlite3_close(db);
}

static void newer_database_is_refused(void **state) {
    (void)state;
    sqlite3 *db = open_memory();
    char err[256] = "";
    assert_int_equal(migrate_apply(db, two, 2, err, sizeof err), 2);
    assert_int_equal(migrate_apply(db, two, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema version 2"));
    assert_non_null(strstr(err, "newer"));
    sqlite3_close(db);
}

static void embedded_migrations_apply_to_an_empty_database(void **state) {
    (void)state;
    sqlite3 *db = open_memory();
    char err[256] = "";
    assert_true(umpire_migration_count >= 1);
    assert_int_equal(umpire_migrations[0].version, 1);
    for (size_t i = 1; i < umpire_migration_count; i++)
        assert_int_equal(umpire_migrations[i].version, umpire_migrations[i - 1].version + 1);
    assert_int_equal(migrate_apply(db, umpire_migrations, umpire_migration_count, err, sizeof err),
                     (int)umpire_migration_count);
    assert_int_equal(count_rows(db, "SELECT count(*) FROM sqlite_master WHERE name = 'events'"), 1);
    sqlite3_close(db);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_database_gets_every_migration),
        cmocka_unit_test(existing_database_gets_only_new_ones),
        cmocka_unit_test(failing_migration_leaves_nothing_half_done),
        cmocka_unit_test(newer_database_is_refused),
        cmocka_unit_test(embedded_migrations_apply_to_an_empty_database),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
