/* What migration 0003 (fair dice) changes in the SQLite store, against real database files:
 * a database from before it keeps its idempotency keys, each now its caller's (the actor of the
 * event its answer names) and the current seed's first nonce (after the last reveal); keys
 * stored after it are the caller's own; the session row carries the entropy in
 * force, its digest and the current seed's first nonce; a reveal ends the entropy; a new
 * database file is created mode 0600 in a directory created 0700. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/dice/entropy.h"
#include "server/store/migrate.h"
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SID "0123456789abcdef0123456789abcdef"

typedef struct fixture {
    char dir[64];
    char path[128];
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/umpire-0003-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/new/dir/t.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0) return -1;
    free(f);
    return 0;
}

static void exec_ok(sqlite3 *db, const char *sql) {
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) fail_msg("%s: %s", sql, msg);
}

static store_conn *open_migrated(const char *path) {
    char err[256];
    store_conn *c = store_conn_open(path, "normal", 1000, err, sizeof err);
    if (!c) fail_msg("open %s: %s", path, err);
    if (store_migrate(c, err, sizeof err) < 0) fail_msg("migrate: %s", err);
    return c;
}

static void new_files_are_private(void **state) {
    fixture *f = *state;
    store_conn *c = open_migrated(f->path);
    store_conn_close(c);
    struct stat st;
    assert_int_equal(stat(f->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char dir[160];
    snprintf(dir, sizeof dir, "%s/new/dir", f->dir);
    assert_int_equal(stat(dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
}

/* A database at schema 2 with a session and an idempotency key, then the daemon's migrations. */
static void keys_from_before_0003_become_their_callers(void **state) {
    fixture *f = *state;
    char dir[160];
    snprintf(dir, sizeof dir, "%s/new", f->dir);
    assert_int_equal(mkdir(dir, 0700), 0);
    snprintf(f->path, sizeof f->path, "%s/new/old.db", f->dir);
    sqlite3 *db = NULL;
    char err[256];
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(migrate_apply(db, umpire_migrations, 2, err, sizeof err), 2);
    exec_ok(db, "INSERT INTO sessions (id, ruleset, ruleset_version, title, sides, visibility, "
                "options, dice_mode, next_nonce, version, head, state, created_at) VALUES ('" SID
                "', 'generic', 1, 't', '[\"a\"]', 'private', '{}', 'server', 4, 3, 'h', "
                "'{\"units\":[]}', 'now')");
    exec_ok(db, "INSERT INTO events (session_id, seq, ts, actor, type, data, prev, hash) VALUES "
                "('" SID "', 2, 't', 'side:a', 'roll', '{}', 'p', 'h2'), "
                "('" SID "', 3, 't', 'referee', 'dice_seed_revealed', "
                "'{\"last_nonce\":3}', 'h2', 'h3')");
    exec_ok(db, "INSERT INTO idempotency (session_id, key, body_digest, response) VALUES ('" SID
                "', 'old-key', zeroblob(32), '{\"events\":[{\"seq\":2}],\"old\":true}'), "
                "('" SID "', 'orphan', zeroblob(32), '{\"events\":[{\"seq\":9}]}')");
    sqlite3_close(db);

    store_conn *c = open_migrated(f->path);
    uint8_t digest[32], zero[32] = {0};
    char *response = NULL;
    /* stored before the migration: the key is the caller's whose event its answer names */
    assert_int_equal(store_idem_get(c, SID, "side:a", "old-key", digest, &response), 1);
    assert_string_equal(response, "{\"events\":[{\"seq\":2}],\"old\":true}");
    assert_memory_equal(digest, zero, 32);
    free(response);
    response = NULL;
    assert_int_equal(store_idem_get(c, SID, "referee", "old-key", digest, &response), 0);
    assert_int_equal(store_idem_get(c, SID, "side:b", "old-key", digest, &response), 0);
    /* one whose event cannot be found answers nobody */
    assert_int_equal(store_idem_get(c, SID, "side:a", "orphan", digest, &response), 0);
    assert_int_equal(store_idem_get(c, SID, "referee", "orphan", digest, &response), 0);
    /* stored now: the caller's own */
    assert_int_equal(store_idem_insert(c, SID, "side:a", "k", zero, "{\"a\":1}"), 0);
    assert_int_equal(store_idem_get(c, SID, "side:b", "k", digest, &response), 0);
    assert_int_equal(store_idem_insert(c, SID, "side:b", "k", zero, "{\"b\":1}"), 0);
    assert_int_equal(store_idem_get(c, SID, "side:a", "k", digest, &response), 1);
    assert_string_equal(response, "{\"a\":1}");
    free(response);
    assert_int_equal(store_idem_get(c, SID, "side:b", "k", digest, &response), 1);
    assert_string_equal(response, "{\"b\":1}");
    free(response);

    /* the row: no entropy, no manual_by, the current seed's first nonce after the last reveal */
    session_row s;
    assert_int_equal(store_session_get(c, SID, &s), 1);
    assert_null(s.entropy);
    assert_string_equal(s.entropy_digest, "");
    assert_string_equal(s.manual_by, "");
    assert_int_equal(s.seed_first_nonce, 4);

    /* entropy written with the projection reads back with its digest */
    json_t *e = entropy_with_new(NULL, "side:a", "hello", 4);
    json_t *e2 = entropy_with_new(e, "referee", "r", 4);
    assert_int_equal(store_session_update(c, SID, 3, "h", s.state, 4, e2), 0);
    session_row_clear(&s);
    assert_int_equal(store_session_get(c, SID, &s), 1);
    assert_true(json_equal(s.entropy, e2));
    char want[65];
    json_t *in_force = json_pack("{s:s, s:s}", "referee", "r", "side:a", "hello");
    assert_int_equal(entropy_digest_of_in_force(in_force, want), 0);
    assert_string_equal(s.entropy_digest, want);
    assert_true(entropy_pending(s.entropy, "side:a", 4));
    assert_false(entropy_pending(s.entropy, "side:a", 5));
    assert_false(entropy_pending(s.entropy, "side:b", 4));

    /* a reveal: a fresh seed from nonce 4, and no entropy in force */
    uint8_t seed[32] = {1};
    assert_int_equal(store_session_seed_update(c, SID, seed, "c", 4), 0);
    session_row_clear(&s);
    assert_int_equal(store_session_get(c, SID, &s), 1);
    assert_null(s.entropy);
    assert_string_equal(s.entropy_digest, "");
    assert_int_equal(s.seed_first_nonce, 4);
    session_row_clear(&s);
    json_decref(in_force);
    json_decref(e);
    json_decref(e2);
    store_conn_close(c);
}

/* The digest of the contributions in force is SHA-256 of their canonical JSON. */
static void digest_of_contributions(void **state) {
    (void)state;
    char out[65];
    json_t *in_force = json_pack("{s:s, s:s}", "side:knight", "hello knight", "referee", "x");
    assert_int_equal(entropy_digest_of_in_force(in_force, out), 0);
    /* python3 -c 'import hashlib,json; print(hashlib.sha256(json.dumps({"side:knight":
     * "hello knight","referee":"x"},sort_keys=True,separators=(",",":")).encode()).hexdigest())' */
    assert_string_equal(out, "e7052cda9971e8b841f0028d94a48f0d8e14f23235890708bc13d64020a2bcc6");
    json_decref(in_force);
    assert_int_equal(entropy_digest(NULL, out), 0);
    assert_string_equal(out, "");
    assert_true(entropy_seed_valid("a", 1));
    assert_true(entropy_seed_valid("~ !", 3));
    assert_false(entropy_seed_valid("", 0));
    assert_false(entropy_seed_valid("a\tb", 3));
    assert_false(entropy_seed_valid("caf\xc3\xa9", 5));
    char long_seed[66];
    memset(long_seed, 'x', 65);
    long_seed[65] = '\0';
    assert_true(entropy_seed_valid(long_seed, 64));
    assert_false(entropy_seed_valid(long_seed, 65));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(new_files_are_private, setup, teardown),
        cmocka_unit_test_setup_teardown(keys_from_before_0003_become_their_callers, setup,
                                        teardown),
        cmocka_unit_test(digest_of_contributions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
