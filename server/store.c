#include "server/store.h"

#include "protocol/jcs.h"
#include "server/crypto.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Indexed by store_stmt_id. */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_SESSION_GET] = "SELECT id, ruleset, ruleset_version, title, sides, visibility, options, "
                       "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, "
                       "created_at FROM sessions WHERE id = ?1",
    [ST_SESSION_INSERT] =
        "INSERT INTO sessions (id, ruleset, ruleset_version, title, sides, visibility, options, "
        "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, created_at) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    [ST_SESSION_UPDATE] = "UPDATE sessions SET version = ?2, head = ?3, state = ?4, "
                          "next_nonce = ?5 WHERE id = ?1",
    [ST_SESSION_SEED_UPDATE] =
        "UPDATE sessions SET dice_seed = ?2, dice_commitment = ?3 WHERE id = ?1",
    [ST_TOKEN_INSERT] = "INSERT INTO tokens (session_id, role, digest) VALUES (?1, ?2, ?3)",
    [ST_TOKENS_OF_SESSION] = "SELECT role, digest FROM tokens WHERE session_id = ?1",
    [ST_EVENT_INSERT] = "INSERT INTO events (session_id, seq, ts, actor, type, data, prev, hash) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_EVENTS_PAGE] = "SELECT seq, ts, actor, type, data, prev, hash FROM events "
                       "WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    [ST_IDEM_GET] = "SELECT body_digest, response FROM idempotency "
                    "WHERE session_id = ?1 AND key = ?2",
    [ST_IDEM_INSERT] = "INSERT INTO idempotency (session_id, key, body_digest, response) "
                       "VALUES (?1, ?2, ?3, ?4)",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_SAVEPOINT] = "SAVEPOINT job",
    [ST_RELEASE] = "RELEASE job",
    [ST_ROLLBACK_TO] = "ROLLBACK TO job",
};

/* mkdir -p of the directory part of path. */
static int make_parent_dirs(const char *path) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(dir, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(dir, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

store_conn *store_conn_open(const char *path, const char *synchronous, int64_t busy_timeout_ms,
                            char *err, size_t errlen) {
    if (make_parent_dirs(path) != 0) {
        snprintf(err, errlen, "cannot create the directory of %s: %s", path, strerror(errno));
        return NULL;
    }
    store_conn *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &c->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 c->db ? sqlite3_errmsg(c->db) : "out of memory");
        store_conn_close(c);
        return NULL;
    }
    sqlite3_busy_timeout(c->db, (int)busy_timeout_ms);
    char pragmas[256];
    /* WAL: readers never block the writer. synchronous=FULL fsyncs the WAL at every commit,
     * so a 2xx (sent after COMMIT returns) survives power loss. */
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;",
             strcmp(synchronous, "normal") == 0 ? "NORMAL" : "FULL");
    if (store_exec(c, pragmas) != 0) {
        snprintf(err, errlen, "cannot configure %s: %s", path, sqlite3_errmsg(c->db));
        store_conn_close(c);
        return NULL;
    }
    return c;
}

void store_conn_close(store_conn *c) {
    if (!c) return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(c->stmts[i]);
    sqlite3_close(c->db);
    free(c);
}

sqlite3_stmt *store_stmt(store_conn *c, store_stmt_id id) {
    sqlite3_stmt *st = c->stmts[id];
    if (!st) {
        if (sqlite3_prepare_v3(c->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
            SQLITE_OK)
            return NULL;
        c->stmts[id] = st;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

int store_exec(store_conn *c, const char *sql) {
    return sqlite3_exec(c->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int store_run(store_conn *c, store_stmt_id id) {
    sqlite3_stmt *st = store_stmt(c, id);
    if (!st) return -1;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Runs a statement expected to finish without rows. */
static int step_done(sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static json_t *column_json(sqlite3_stmt *st, int col) {
    const char *t = (const char *)sqlite3_column_text(st, col);
    return t ? json_loads(t, 0, NULL) : NULL;
}

/* JSON text for a column: canonical (JCS, sorted keys, compact) — stable across runs, and
 * faster than jansson's dump; jansson's for values JCS refuses (a real number). */
static char *dump_json(const json_t *v) {
    char *s = jcs_dump_new(v, NULL);
    return s ? s : json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
}

void session_row_clear(session_row *row) {
    json_decref(row->sides);
    json_decref(row->options);
    json_decref(row->state);
    memset(row, 0, sizeof *row);
}

int store_session_get(store_conn *c, const char *id, session_row *out) {
    sqlite3_stmt *st = store_stmt(c, ST_SESSION_GET);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return rc == SQLITE_DONE ? 0 : -1;
    }
    memset(out, 0, sizeof *out);
    copy_text(out->id, sizeof out->id, st, 0);
    copy_text(out->ruleset, sizeof out->ruleset, st, 1);
    out->ruleset_version = sqlite3_column_int(st, 2);
    copy_text(out->title, sizeof out->title, st, 3);
    out->sides = column_json(st, 4);
    copy_text(out->visibility, sizeof out->visibility, st, 5);
    out->options = column_json(st, 6);
    copy_text(out->dice_mode, sizeof out->dice_mode, st, 7);
    if (sqlite3_column_bytes(st, 8) == 32) {
        memcpy(out->seed, sqlite3_column_blob(st, 8), 32);
        out->has_seed = true;
    }
    copy_text(out->commitment, sizeof out->commitment, st, 9);
    out->next_nonce = sqlite3_column_int64(st, 10);
    out->version = sqlite3_column_int64(st, 11);
    copy_text(out->head, sizeof out->head, st, 12);
    out->state = column_json(st, 13);
    copy_text(out->created_at, sizeof out->created_at, st, 14);
    sqlite3_reset(st);
    if (!out->sides || !out->options || !out->state) {
        session_row_clear(out);
        return -1;
    }
    return 1;
}

int store_session_insert(store_conn *c, const session_row *r) {
    sqlite3_stmt *st = store_stmt(c, ST_SESSION_INSERT);
    char *sides = dump_json(r->sides), *options = dump_json(r->options),
         *state = dump_json(r->state);
    int rc = -1;
    if (st && sides && options && state) {
        sqlite3_bind_text(st, 1, r->id, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->ruleset, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, r->ruleset_version);
        sqlite3_bind_text(st, 4, r->title, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, sides, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, r->visibility, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, options, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, r->dice_mode, -1, SQLITE_STATIC);
        if (r->has_seed) sqlite3_bind_blob(st, 9, r->seed, 32, SQLITE_STATIC);
        if (r->commitment[0]) sqlite3_bind_text(st, 10, r->commitment, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 11, r->next_nonce);
        sqlite3_bind_int64(st, 12, r->version);
        sqlite3_bind_text(st, 13, r->head, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 14, state, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 15, r->created_at, -1, SQLITE_STATIC);
        rc = step_done(st);
    }
    free(sides);
    free(options);
    free(state);
    return rc;
}

int store_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                         const json_t *state, int64_t next_nonce) {
    sqlite3_stmt *st = store_stmt(c, ST_SESSION_UPDATE);
    char *text = dump_json(state);
    int rc = -1;
    if (st && text) {
        sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, version);
        sqlite3_bind_text(st, 3, head, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, text, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, next_nonce);
        rc = step_done(st);
    }
    free(text);
    return rc;
}

int store_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                              const char *commitment) {
    sqlite3_stmt *st = store_stmt(c, ST_SESSION_SEED_UPDATE);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, seed, 32, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, commitment, -1, SQLITE_STATIC);
    return step_done(st);
}

int store_token_insert(store_conn *c, const char *session_id, const char *role,
                       const uint8_t digest[32]) {
    sqlite3_stmt *st = store_stmt(c, ST_TOKEN_INSERT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, role, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, digest, 32, SQLITE_STATIC);
    return step_done(st);
}

int store_token_role(store_conn *c, const char *session_id, const char *token, char *role,
                     size_t rolelen) {
    uint8_t digest[32];
    /* A NULL token matches nothing but still tells whether the session exists. */
    crypto_sha256(token ? token : "", token ? strlen(token) : 0, digest);
    sqlite3_stmt *st = store_stmt(c, ST_TOKENS_OF_SESSION);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    int found = 0, rows = 0, rc;
    /* Compare against every token of the session, in constant time each, without stopping
     * early: the time taken does not depend on which (if any) token matched. */
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        if (sqlite3_column_bytes(st, 1) != 32) continue;
        if (crypto_ct_equal(sqlite3_column_blob(st, 1), digest, 32) && token) {
            copy_text(role, rolelen, st, 0);
            found = 1;
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return -1;
    return rows ? found : STORE_NO_SESSION;
}

int store_event_insert(store_conn *c, const char *session_id, const event_row *ev) {
    sqlite3_stmt *st = store_stmt(c, ST_EVENT_INSERT);
    char *data = ev->data_text ? NULL : dump_json(ev->data);
    const char *text = ev->data_text ? ev->data_text : data;
    int rc = -1;
    if (st && text) {
        sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, ev->seq);
        sqlite3_bind_text(st, 3, ev->ts, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, ev->actor, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, ev->type, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, text, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, ev->prev, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 8, ev->hash, -1, SQLITE_STATIC);
        rc = step_done(st);
    }
    free(data);
    return rc;
}

json_t *store_events_page_new(store_conn *c, const char *session_id, int64_t after, int64_t limit) {
    sqlite3_stmt *st = store_stmt(c, ST_EVENTS_PAGE);
    if (!st) return NULL;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, limit);
    json_t *list = json_array();
    int rc;
    while (list && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *data = column_json(st, 4);
        json_t *ev = json_pack(
            "{s:I, s:s, s:s, s:s, s:o, s:s, s:s}", "seq", (json_int_t)sqlite3_column_int64(st, 0),
            "ts", sqlite3_column_text(st, 1), "actor", sqlite3_column_text(st, 2), "type",
            sqlite3_column_text(st, 3), "data", data ? data : json_null(), "prev",
            sqlite3_column_text(st, 5), "hash", sqlite3_column_text(st, 6));
        if (!ev) {
            json_decref(list);
            list = NULL;
            break;
        }
        json_array_append_new(list, ev);
    }
    if (list && rc != SQLITE_DONE) {
        json_decref(list);
        list = NULL;
    }
    sqlite3_reset(st);
    return list;
}

int store_idem_get(store_conn *c, const char *session_id, const char *key, uint8_t digest[32],
                   char **response) {
    sqlite3_stmt *st = store_stmt(c, ST_IDEM_GET);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int found = 0;
    if (rc == SQLITE_ROW && sqlite3_column_bytes(st, 0) == 32) {
        memcpy(digest, sqlite3_column_blob(st, 0), 32);
        *response = strdup((const char *)sqlite3_column_text(st, 1));
        found = *response ? 1 : -1;
    } else if (rc != SQLITE_DONE) {
        found = -1;
    }
    sqlite3_reset(st);
    return found;
}

int store_idem_insert(store_conn *c, const char *session_id, const char *key,
                      const uint8_t digest[32], const char *response) {
    sqlite3_stmt *st = store_stmt(c, ST_IDEM_INSERT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, digest, 32, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, response, -1, SQLITE_STATIC);
    return step_done(st);
}
