/* The writer's session cache and its deferred row writes (server/store/session_cache.h), against a
 * real SQLite database: a dirty row reaches the database on flush, a dirty row about to be
 * evicted is written first, an evicting put never loses an unwritten change, and clear forgets
 * dirty rows (the rollback case). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/store/migrate.h"
#include "server/store/session_cache.h"
#include "server/store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct fixture {
    char dir[64];
    char path[96];
    store_conn *conn;
} fixture;

static int setup(void **state) {
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/umpire-cache-XXXXXX");
    if (!mkdtemp(f->dir)) return -1;
    snprintf(f->path, sizeof f->path, "%s/t.db", f->dir);
    char err[256];
    f->conn = store_conn_open(f->path, "normal", 1000, err, sizeof err);
    if (!f->conn) return -1;
    if (store_migrate(f->conn, err, sizeof err) < 0) return -1;
    *state = f;
    return 0;
}

static int teardown(void **state) {
    fixture *f = *state;
    store_conn_close(f->conn);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd) != 0) return -1;
    free(f);
    return 0;
}

/* The same slot hash as session_cache.c (FNV-1a of the id, mod the slot count). */
static size_t slot_of(const char *id) {
    uint32_t h = 2166136261u;
    for (; *id; id++)
        h = (h ^ (uint8_t)*id) * 16777619u;
    return h % SESSION_CACHE_SLOTS;
}

/* Two distinct 32-hex-digit ids that share a slot. */
static void colliding_ids(char a[33], char b[33]) {
    snprintf(a, 33, "%032x", 1u);
    size_t want = slot_of(a);
    for (unsigned i = 2;; i++) {
        snprintf(b, 33, "%032x", i);
        if (slot_of(b) == want) return;
    }
}

static void insert_session(store_conn *c, const char *id) {
    session_row r = {0};
    snprintf(r.id, sizeof r.id, "%s", id);
    snprintf(r.ruleset, sizeof r.ruleset, "generic");
    r.ruleset_version = 1;
    snprintf(r.title, sizeof r.title, "t");
    r.sides = json_pack("[s]", "a");
    snprintf(r.visibility, sizeof r.visibility, "private");
    r.options = json_object();
    snprintf(r.dice_mode, sizeof r.dice_mode, "manual");
    r.next_nonce = 1;
    r.version = 0;
    memset(r.head, '0', 64);
    r.state = json_pack("{s:i}", "rolls", 0);
    snprintf(r.created_at, sizeof r.created_at, "2026-11-21T00:00:00.000Z");
    assert_int_equal(store_session_insert(c, &r), 0);
    session_row_clear(&r);
}

/* Loads id from the database into the cache, as the writer does on a miss. */
static session_row *load(session_cache *cache, store_conn *c, const char *id) {
    session_row r;
    assert_int_equal(store_session_get(c, id, &r), 1);
    session_cache_put_take(cache, &r);
    return session_cache_borrow(cache, id);
}

/* What an action does to the cached row: a new version, head and state, then dirty. */
static void change(session_cache *cache, session_row *s, int64_t version) {
    s->version = version;
    memset(s->head, 'a' + (int)version, 64);
    json_decref(s->state);
    s->state = json_pack("{s:I}", "rolls", (json_int_t)version);
    session_cache_mark_dirty(cache, s->id);
}

static int64_t stored_version(store_conn *c, const char *id, json_int_t *rolls) {
    session_row r;
    assert_int_equal(store_session_get(c, id, &r), 1);
    int64_t v = r.version;
    if (rolls) *rolls = json_integer_value(json_object_get(r.state, "rolls"));
    session_row_clear(&r);
    return v;
}

static void flush_writes_dirty_rows_once(void **state) {
    fixture *f = *state;
    char a[33], b[33];
    colliding_ids(a, b);
    insert_session(f->conn, a);
    session_cache *cache = session_cache_new();
    session_row *s = load(cache, f->conn, a);
    assert_non_null(s);
    change(cache, s, 1);
    change(cache, s, 2);                                   /* still one entry in the dirty list */
    assert_int_equal(stored_version(f->conn, a, NULL), 0); /* deferred: nothing written yet */
    assert_int_equal(session_cache_flush(cache, f->conn), 0);
    json_int_t rolls = -1;
    assert_int_equal(stored_version(f->conn, a, &rolls), 2);
    assert_int_equal(rolls, 2);
    /* Flushed rows are clean: changing the database behind the cache is not overwritten by a
     * second flush. */
    assert_int_equal(store_session_update(f->conn, a, 7, s->head, s->state, 1, NULL), 0);
    assert_int_equal(session_cache_flush(cache, f->conn), 0);
    assert_int_equal(stored_version(f->conn, a, NULL), 7);
    session_cache_free(cache);
}

static void make_room_writes_the_row_it_evicts(void **state) {
    fixture *f = *state;
    char a[33], b[33];
    colliding_ids(a, b);
    insert_session(f->conn, a);
    insert_session(f->conn, b);
    session_cache *cache = session_cache_new();
    change(cache, load(cache, f->conn, a), 3);
    /* b needs a's slot: an evicting put before make_room keeps a (never loses the change). */
    session_row r;
    assert_int_equal(store_session_get(f->conn, b, &r), 1);
    session_cache_put_take(cache, &r);
    assert_null(session_cache_borrow(cache, b));
    assert_non_null(session_cache_borrow(cache, a));
    /* make_room writes a, then b may take the slot. */
    assert_int_equal(session_cache_make_room(cache, f->conn, b), 0);
    assert_int_equal(stored_version(f->conn, a, NULL), 3);
    session_row *sb = load(cache, f->conn, b);
    assert_non_null(sb);
    assert_null(session_cache_borrow(cache, a));
    change(cache, sb, 5);
    /* make_room for the slot's own session writes nothing. */
    assert_int_equal(session_cache_make_room(cache, f->conn, b), 0);
    assert_int_equal(stored_version(f->conn, b, NULL), 0);
    assert_int_equal(session_cache_flush(cache, f->conn), 0);
    assert_int_equal(stored_version(f->conn, b, NULL), 5);
    assert_int_equal(stored_version(f->conn, a, NULL), 3);
    session_cache_free(cache);
}

static void clear_forgets_unwritten_changes(void **state) {
    fixture *f = *state;
    char a[33], b[33];
    colliding_ids(a, b);
    insert_session(f->conn, a);
    session_cache *cache = session_cache_new();
    change(cache, load(cache, f->conn, a), 4);
    session_cache_clear(cache); /* the transaction was rolled back */
    assert_null(session_cache_borrow(cache, a));
    assert_int_equal(session_cache_flush(cache, f->conn), 0);
    assert_int_equal(stored_version(f->conn, a, NULL), 0);
    /* The slot is usable again, and clean. */
    assert_non_null(load(cache, f->conn, a));
    assert_int_equal(session_cache_make_room(cache, f->conn, b), 0);
    session_cache_free(cache);
}

static void flush_failure_is_reported(void **state) {
    fixture *f = *state;
    char a[33], b[33];
    colliding_ids(a, b);
    insert_session(f->conn, a);
    session_cache *cache = session_cache_new();
    session_row *s = load(cache, f->conn, a);
    change(cache, s, 1);
    /* A state that cannot be serialised (a cycle) makes the row write fail. */
    json_t *outer = json_array(), *inner = json_array();
    json_array_append(outer, inner);
    json_array_append(inner, outer); /* outer -> inner -> outer */
    json_decref(s->state);
    s->state = json_pack("{s:O}", "x", outer);
    assert_int_equal(session_cache_flush(cache, f->conn), -1);
    json_array_clear(inner); /* break the cycle so both can be freed */
    json_decref(inner);
    json_decref(outer);
    session_cache_free(cache);
}

/* Bounded by bytes (storage.session_cache_max_bytes): after a batch, clean rows go, the biggest
 * first, until the states held fit; a dirty row stays whatever its size; the stored state text's
 * length is what counts (store_session_get sets state_bytes from it). */
static void trim_bounds_the_cached_states_by_bytes(void **state) {
    fixture *f = *state;
    session_cache *cache = session_cache_new();
    char ids[40][33];
    int n = 0;
    for (unsigned k = 0x100; n < 40; k++) { /* 40 ids in 40 slots of their own */
        snprintf(ids[n], 33, "%032x", k);
        bool taken = false;
        for (int i = 0; i < n; i++)
            taken |= slot_of(ids[i]) == slot_of(ids[n]);
        if (taken) continue;
        insert_session(f->conn, ids[n]);
        load(cache, f->conn, ids[n]);
        n++;
    }
    int64_t one = (int64_t)strlen("{\"rolls\":0}");
    assert_int_equal(session_cache_bytes(cache), 40 * one);
    /* Three rows grow huge (what an action's new state would make them). */
    for (int i = 0; i < 3; i++)
        session_cache_borrow(cache, ids[i])->state_bytes = 1000000;
    session_cache_trim(cache, 200000);
    assert_int_equal(session_cache_bytes(cache), 37 * one);
    for (int i = 0; i < 40; i++) {
        if (i < 3)
            assert_null(session_cache_borrow(cache, ids[i]));
        else
            assert_non_null(session_cache_borrow(cache, ids[i])); /* small rows stay */
    }
    /* Within the budget, nothing goes. */
    session_cache_trim(cache, 37 * one);
    assert_int_equal(session_cache_bytes(cache), 37 * one);
    /* A budget below every row: every clean row goes, a dirty one stays (it holds a change
     * not yet written). */
    session_cache_mark_dirty(cache, ids[3]);
    session_cache_trim(cache, 1);
    for (int i = 4; i < 40; i++)
        assert_null(session_cache_borrow(cache, ids[i]));
    assert_non_null(session_cache_borrow(cache, ids[3]));
    assert_int_equal(session_cache_flush(cache, f->conn), 0);
    session_cache_trim(cache, 1);
    assert_int_equal(session_cache_bytes(cache), 0);
    /* No bound: nothing is dropped. */
    load(cache, f->conn, ids[5]);
    session_cache_trim(cache, 0);
    assert_non_null(session_cache_borrow(cache, ids[5]));
    session_cache_free(cache);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(flush_writes_dirty_rows_once, setup, teardown),
        cmocka_unit_test_setup_teardown(make_room_writes_the_row_it_evicts, setup, teardown),
        cmocka_unit_test_setup_teardown(clear_forgets_unwritten_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(flush_failure_is_reported, setup, teardown),
        cmocka_unit_test_setup_teardown(trim_bounds_the_cached_states_by_bytes, setup, teardown),
    };
    return cmocka_run_group_tests_name("session_cache", tests, NULL, NULL);
}
