/* The SQLite backend of server/store/store.h: one file, prepared statements cached per connection.
 */
#include "server/core/crypto.h"
#include "server/core/log.h"
#include "server/store/migrate.h"
#include "server/store/store_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum {
    ST_SESSION_GET,
    ST_SESSION_INSERT,
    ST_SESSION_UPDATE,
    ST_SESSION_SEED_UPDATE,
    ST_SESSION_VERSION,
    ST_SESSION_LAST_EVENT,
    ST_SESSION_RECOUNT,
    ST_TOKEN_INSERT,
    ST_TOKEN_SET,
    ST_TOKEN_DELETE,
    ST_TOKENS_OF_SESSION,
    ST_EVENT_INSERT,
    ST_EVENTS_PAGE,
    ST_IDEM_GET,
    ST_IDEM_INSERT,
    /* transactions (store_tx_id order), prepared once for the writer's per-job savepoints */
    ST_BEGIN,
    ST_SNAPSHOT,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_COUNT
} store_stmt_id;

typedef struct sqlite_conn {
    store_conn base;
    sqlite3 *db;
    sqlite3_stmt *stmts[ST_COUNT];
} sqlite_conn;

static sqlite3 *DB(store_conn *c) {
    return ((sqlite_conn *)c)->db;
}

sqlite3 *store_sqlite_handle(store_conn *c) {
    return c->backend == STORE_SQLITE ? store_sqlite_db(c) : NULL;
}

sqlite3 *store_sqlite_db(store_conn *c) {
    return DB(c);
}

/* Indexed by store_stmt_id. */
static const char *const stmt_sql[ST_COUNT] = {
    [ST_SESSION_GET] =
        "SELECT id, ruleset, ruleset_version, title, sides, visibility, options, "
        "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, "
        "created_at, dice_manual_by, entropy, seed_first_nonce, data_bytes FROM sessions "
        "WHERE id = ?1",
    [ST_SESSION_INSERT] =
        "INSERT INTO sessions (id, ruleset, ruleset_version, title, sides, visibility, options, "
        "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, created_at, "
        "dice_manual_by) "
        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
    [ST_SESSION_UPDATE] = "UPDATE sessions SET version = ?2, head = ?3, state = ?4, "
                          "next_nonce = ?5, entropy = ?6, data_bytes = coalesce(?7, data_bytes) "
                          "WHERE id = ?1",
    /* The primary key's last entry: one b-tree descent. */
    [ST_SESSION_LAST_EVENT] = "SELECT seq, hash FROM events WHERE session_id = ?1 "
                              "ORDER BY seq DESC LIMIT 1",
    /* Bytes, as migrations/0004_session_bytes.sql counts them. */
    [ST_SESSION_RECOUNT] = "UPDATE sessions SET data_bytes = (SELECT coalesce(sum(length(CAST("
                           "data AS BLOB))), 0) FROM events WHERE session_id = ?1) WHERE id = ?1",
    [ST_SESSION_SEED_UPDATE] = "UPDATE sessions SET dice_seed = ?2, dice_commitment = ?3, "
                               "entropy = NULL, seed_first_nonce = ?4 WHERE id = ?1",
    [ST_SESSION_VERSION] = "SELECT version FROM sessions WHERE id = ?1",
    [ST_TOKEN_INSERT] = "INSERT INTO tokens (session_id, role, digest) VALUES (?1, ?2, ?3)",
    [ST_TOKEN_SET] = "INSERT INTO tokens (session_id, role, digest) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT (session_id, role) DO UPDATE SET digest = excluded.digest",
    [ST_TOKEN_DELETE] = "DELETE FROM tokens WHERE session_id = ?1 AND role = ?2",
    [ST_TOKENS_OF_SESSION] = "SELECT role, digest FROM tokens WHERE session_id = ?1",
    [ST_EVENT_INSERT] = "INSERT INTO events (session_id, seq, ts, actor, type, data, prev, hash) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    [ST_EVENTS_PAGE] = "SELECT seq, ts, actor, type, data, prev, hash FROM events "
                       "WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    /* The caller's own key (migrations/0003_fair_dice.sql). */
    [ST_IDEM_GET] = "SELECT body_digest, response FROM idempotency "
                    "WHERE session_id = ?1 AND caller = ?2 AND key = ?3",
    [ST_IDEM_INSERT] = "INSERT INTO idempotency (session_id, caller, key, body_digest, response) "
                       "VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_BEGIN] = "BEGIN IMMEDIATE",
    [ST_SNAPSHOT] = "BEGIN",
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

/* Creates the database file 0600 when it does not exist yet: it holds every session's secret
 * dice seed and the token digests (SQLite would create it 0644, and its -wal and -shm files take
 * the database file's mode). An existing file keeps its mode; one that others may read is
 * named in the log. */
static int create_private_file(const char *path) {
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0) return close(fd);
    if (errno != EEXIST) return -1;
    /* Once per process: the writer, the checkpointer and the readers each open the file. */
    static atomic_bool warned;
    struct stat st;
    if (stat(path, &st) == 0 && (st.st_mode & 077) && !atomic_exchange(&warned, true))
        log_msg(LOG_WARN,
                "%s may be read by other users (mode %03o): it holds the secret dice seeds; "
                "chmod 600 it (and its -wal and -shm files)",
                path, (unsigned)(st.st_mode & 0777));
    return 0;
}

static void sq_close(store_conn *c) {
    sqlite_conn *s = (sqlite_conn *)c;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->stmts[i]);
    sqlite3_close(s->db);
    free(s);
}

static int sq_exec(store_conn *c, const char *sql) {
    return sqlite3_exec(DB(c), sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

store_conn *store_sqlite_open(const char *path, const char *synchronous, int64_t busy_timeout_ms,
                              char *err, size_t errlen) {
    if (make_parent_dirs(path) != 0) {
        snprintf(err, errlen, "cannot create the directory of %s: %s", path, strerror(errno));
        return NULL;
    }
    if (strcmp(path, ":memory:") != 0 && path[0] && create_private_file(path) != 0) {
        snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
        return NULL;
    }
    sqlite_conn *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    s->base.ops = &store_sqlite_ops;
    s->base.backend = STORE_SQLITE;
    int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "cannot open %s: %s", path,
                 s->db ? sqlite3_errmsg(s->db) : "out of memory");
        sq_close(&s->base);
        return NULL;
    }
    sqlite3_busy_timeout(s->db, (int)busy_timeout_ms);
    char pragmas[256];
    /* WAL: readers never block the writer. synchronous=FULL fsyncs the WAL at every commit,
     * so a 2xx (sent after COMMIT returns) survives power loss. */
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=%s; PRAGMA foreign_keys=ON;",
             strcmp(synchronous, "normal") == 0 ? "NORMAL" : "FULL");
    if (sq_exec(&s->base, pragmas) != 0) {
        snprintf(err, errlen, "cannot configure %s: %s", path, sqlite3_errmsg(s->db));
        sq_close(&s->base);
        return NULL;
    }
    return &s->base;
}

static const char *sq_errmsg(store_conn *c) {
    return sqlite3_errmsg(DB(c));
}

/* The cached statement, reset and with bindings cleared (prepared on first use). */
static sqlite3_stmt *stmt(store_conn *c, store_stmt_id id) {
    sqlite_conn *s = (sqlite_conn *)c;
    sqlite3_stmt *st = s->stmts[id];
    if (!st) {
        if (sqlite3_prepare_v3(s->db, stmt_sql[id], -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) !=
            SQLITE_OK)
            return NULL;
        s->stmts[id] = st;
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    return st;
}

/* Runs a statement expected to finish without rows. */
static int step_done(sqlite3_stmt *st) {
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

static int sq_tx(store_conn *c, store_tx_id t) {
    sqlite3_stmt *st = stmt(c, (store_stmt_id)(ST_BEGIN + t));
    return st ? step_done(st) : -1;
}

static int sq_migrate(store_conn *c, char *err, size_t errlen) {
    return migrate_apply(DB(c), umpire_migrations, umpire_migration_count, err, errlen);
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int col) {
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, cap, "%s", t ? (const char *)t : "");
}

static json_t *column_json(sqlite3_stmt *st, int col) {
    const char *t = (const char *)sqlite3_column_text(st, col);
    return t ? json_loads(t, 0, NULL) : NULL;
}

static int sq_session_get(store_conn *c, const char *id, session_row *out) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_GET);
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
    out->state_bytes = sqlite3_column_bytes(st, 13);
    copy_text(out->created_at, sizeof out->created_at, st, 14);
    copy_text(out->manual_by, sizeof out->manual_by, st, 15);
    bool has_entropy = sqlite3_column_type(st, 16) != SQLITE_NULL;
    if (has_entropy) out->entropy = column_json(st, 16);
    out->seed_first_nonce = sqlite3_column_int64(st, 17);
    out->data_bytes = sqlite3_column_int64(st, 18);
    sqlite3_reset(st);
    if (!out->sides || !out->options || !out->state || (has_entropy && !out->entropy)) {
        session_row_clear(out);
        return -1;
    }
    return 1;
}

static int sq_session_insert(store_conn *c, const session_row *r) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_INSERT);
    char *sides = store_dump_json_new(r->sides), *options = store_dump_json_new(r->options),
         *state = store_dump_json_new(r->state);
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
        if (r->manual_by[0]) sqlite3_bind_text(st, 16, r->manual_by, -1, SQLITE_STATIC);
        rc = step_done(st);
    }
    free(sides);
    free(options);
    free(state);
    return rc;
}

static int sq_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                             const char *state_json, int64_t next_nonce, const char *entropy_json,
                             int64_t data_bytes) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_UPDATE);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, version);
    sqlite3_bind_text(st, 3, head, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, state_json, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, next_nonce);
    if (entropy_json)
        sqlite3_bind_text(st, 6, entropy_json, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(st, 6);
    if (data_bytes >= 0) sqlite3_bind_int64(st, 7, data_bytes); /* else NULL: kept */
    return step_done(st);
}

static int sq_session_recount_bytes(store_conn *c, const char *id) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_RECOUNT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    return step_done(st);
}

static int sq_session_last_event(store_conn *c, const char *id, int64_t *seq, char hash[65]) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_LAST_EVENT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *seq = sqlite3_column_int64(st, 0);
        copy_text(hash, 65, st, 1);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* The primary result code of the last call: SQLite keeps it until the next call. */
static store_fault sq_last_fault(store_conn *c) {
    switch (sqlite3_errcode(DB(c)) & 0xff) {
    case SQLITE_READONLY:
        return STORE_FAULT_READ_ONLY;
    case SQLITE_FULL:
        return STORE_FAULT_FULL;
    case SQLITE_IOERR:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_CANTOPEN:
        return STORE_FAULT_FAILING;
    default:
        return STORE_FAULT_NONE;
    }
}

/* A file SQLite could open for reading only (its mode, a read-only mount) stays so for the
 * connection's life. Otherwise a statement that would write, and writes nothing, inside a
 * transaction rolled back: under WAL, BEGIN IMMEDIATE alone succeeds on a read-only file (its
 * lock is in the -shm file). A writer busy elsewhere (SQLITE_BUSY) says nothing about the store.
 */
static store_fault sq_probe_write(store_conn *c) {
    if (sqlite3_db_readonly(DB(c), "main") == 1) return STORE_FAULT_READ_ONLY;
    if (sqlite3_exec(DB(c), "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return sq_last_fault(c);
    store_fault f = STORE_FAULT_NONE;
    if (sqlite3_exec(DB(c), "UPDATE schema_migrations SET version = version WHERE 0", NULL, NULL,
                     NULL) != SQLITE_OK)
        f = sq_last_fault(c);
    sqlite3_exec(DB(c), "ROLLBACK", NULL, NULL, NULL);
    return f;
}

static int sq_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                                  const char *commitment, int64_t first_nonce) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_SEED_UPDATE);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 2, seed, 32, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, commitment, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, first_nonce);
    return step_done(st);
}

static int64_t sq_session_version(store_conn *c, const char *id) {
    sqlite3_stmt *st = stmt(c, ST_SESSION_VERSION);
    if (!st) return -2;
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    int64_t v = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : rc == SQLITE_DONE ? -1 : -2;
    sqlite3_reset(st);
    return v;
}

/* SQLite has one writer (the daemon's writer thread): there is nothing to lock against. */
static int sq_lock_sessions(store_conn *c, const char (*ids)[33], size_t n, int64_t *versions) {
    (void)c, (void)ids;
    for (size_t i = 0; i < n; i++)
        versions[i] = -2;
    return 0;
}

/* One node: its subscribers hear of its commits directly (server/api/submit.c). */
static int sq_notify(store_conn *c, const char *channel, const char *payload) {
    (void)c, (void)channel, (void)payload;
    return 0;
}

/* A token's (session, role, digest) row, by ST_TOKEN_INSERT or ST_TOKEN_SET. */
static int token_write(store_conn *c, store_stmt_id which, const char *session_id, const char *role,
                       const uint8_t digest[32]) {
    sqlite3_stmt *st = stmt(c, which);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, role, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 3, digest, 32, SQLITE_STATIC);
    return step_done(st);
}

static int sq_token_insert(store_conn *c, const char *session_id, const char *role,
                           const uint8_t digest[32]) {
    return token_write(c, ST_TOKEN_INSERT, session_id, role, digest);
}

static int sq_token_set(store_conn *c, const char *session_id, const char *role,
                        const uint8_t digest[32]) {
    return token_write(c, ST_TOKEN_SET, session_id, role, digest);
}

static int sq_token_delete(store_conn *c, const char *session_id, const char *role) {
    sqlite3_stmt *st = stmt(c, ST_TOKEN_DELETE);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, role, -1, SQLITE_STATIC);
    return step_done(st) == 0 ? sqlite3_changes(DB(c)) > 0 : -1;
}

static int sq_tokens_each(store_conn *c, const char *session_id,
                          void (*fn)(void *arg, const char *role, const uint8_t *digest,
                                     size_t digest_len),
                          void *arg) {
    sqlite3_stmt *st = stmt(c, ST_TOKENS_OF_SESSION);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    int rows = 0, rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        rows++;
        const char *role = (const char *)sqlite3_column_text(st, 0);
        fn(arg, role ? role : "", sqlite3_column_blob(st, 1), (size_t)sqlite3_column_bytes(st, 1));
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? rows : -1;
}

static int sq_event_insert(store_conn *c, const char *session_id, const event_row *ev,
                           const char *data_json) {
    sqlite3_stmt *st = stmt(c, ST_EVENT_INSERT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, ev->seq);
    sqlite3_bind_text(st, 3, ev->ts, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, ev->actor, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, ev->type, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, data_json, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, ev->prev, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, ev->hash, -1, SQLITE_STATIC);
    return step_done(st);
}

static json_t *sq_events_page_new(store_conn *c, const char *session_id, int64_t after,
                                  int64_t limit) {
    sqlite3_stmt *st = stmt(c, ST_EVENTS_PAGE);
    if (!st) return NULL;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 2, after);
    sqlite3_bind_int64(st, 3, limit);
    json_t *list = json_array();
    int rc = SQLITE_DONE;
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

static int sq_idem_get(store_conn *c, const char *session_id, const char *caller, const char *key,
                       uint8_t digest[32], char **response) {
    sqlite3_stmt *st = stmt(c, ST_IDEM_GET);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, caller, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
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

static int sq_idem_insert(store_conn *c, const char *session_id, const char *caller,
                          const char *key, const uint8_t digest[32], const char *response) {
    sqlite3_stmt *st = stmt(c, ST_IDEM_INSERT);
    if (!st) return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, caller, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, key, -1, SQLITE_STATIC);
    sqlite3_bind_blob(st, 4, digest, 32, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, response, -1, SQLITE_STATIC);
    return step_done(st);
}

/* Webhook statements are rare: prepared per call. */
static int sq_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list) {
    sqlite3_stmt *del = NULL, *ins = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(DB(c), "DELETE FROM webhooks WHERE session_id = ?1", -1, &del, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(DB(c),
                           "INSERT INTO webhooks (session_id, position, url, format, mentions) "
                           "VALUES (?1, ?2, ?3, ?4, ?5)",
                           -1, &ins, NULL) != SQLITE_OK)
        goto done;
    sqlite3_bind_text(del, 1, session_id, -1, SQLITE_STATIC);
    if (sqlite3_step(del) != SQLITE_DONE) goto done;
    for (size_t i = 0; i < list->n; i++) {
        sqlite3_reset(ins);
        sqlite3_bind_text(ins, 1, session_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(ins, 2, (sqlite3_int64)i);
        sqlite3_bind_text(ins, 3, list->hooks[i].url, -1, SQLITE_STATIC);
        sqlite3_bind_text(ins, 4, webhook_format_name(list->hooks[i].format), -1, SQLITE_STATIC);
        if (list->hooks[i].mentions[0])
            sqlite3_bind_text(ins, 5, list->hooks[i].mentions, -1, SQLITE_STATIC);
        else
            sqlite3_bind_null(ins, 5);
        if (sqlite3_step(ins) != SQLITE_DONE) goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(del);
    sqlite3_finalize(ins);
    return rc;
}

static int sq_webhooks_rows(store_conn *c,
                            void (*row)(void *arg, const char *session_id, const char *url,
                                        const char *format, const char *mentions, int64_t version),
                            void *arg) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c),
                           "SELECT w.session_id, w.url, w.format, s.version, w.mentions "
                           "FROM webhooks w "
                           "JOIN sessions s ON s.id = w.session_id "
                           "ORDER BY w.session_id, w.position",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        row(arg, (const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
            (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 4),
            sqlite3_column_int64(st, 3));
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Sealed orders are rare: prepared per call. */
static int sq_orders_put(store_conn *c, const char *session_id, const char *side,
                         const char *body) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c),
                           "INSERT INTO sealed_orders (session_id, side, body) VALUES (?1, ?2, ?3) "
                           "ON CONFLICT (session_id, side) DO UPDATE SET body = excluded.body",
                           -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, side, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, body, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

static json_t *sq_orders_rows_new(store_conn *c, const char *session_id) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c),
                           "SELECT side, body FROM sealed_orders WHERE session_id = ?1 "
                           "ORDER BY side",
                           -1, &st, NULL) != SQLITE_OK)
        return NULL;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    json_t *rows = json_array();
    int rc;
    while (rows && (rc = sqlite3_step(st)) == SQLITE_ROW)
        json_array_append_new(rows, json_pack("[s,s]", (const char *)sqlite3_column_text(st, 0),
                                              (const char *)sqlite3_column_text(st, 1)));
    sqlite3_finalize(st);
    if (rows && rc != SQLITE_DONE) {
        json_decref(rows);
        return NULL;
    }
    return rows;
}

static int sq_orders_clear(store_conn *c, const char *session_id) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c), "DELETE FROM sealed_orders WHERE session_id = ?1", -1, &st,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(st, 1, session_id, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

/* ---- export and import ---------------------------------------------------------------------- */

static int sq_dump_table(store_conn *c, const store_table_def *t,
                         int (*fn)(void *arg, const json_t *row), void *arg) {
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    for (int i = 0; t->columns[i]; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", i ? ", " : "", t->columns[i]);
    snprintf(sql + len, sizeof sql - len, " FROM %s ORDER BY %s", t->name, t->order_by);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc, out = 0;
    while (out == 0 && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        json_t *row = json_object();
        for (int i = 0; row && t->columns[i]; i++) {
            json_t *v;
            if (sqlite3_column_type(st, i) == SQLITE_NULL)
                v = json_null();
            else if (t->blob_mask & (1u << i)) {
                int n = sqlite3_column_bytes(st, i);
                char *hex = malloc((size_t)n * 2 + 1);
                if (hex) crypto_hex_encode(sqlite3_column_blob(st, i), (size_t)n, hex);
                v = hex ? json_string(hex) : NULL;
                free(hex);
            } else if (t->int_mask & (1u << i))
                v = json_integer(sqlite3_column_int64(st, i));
            else
                v = json_string((const char *)sqlite3_column_text(st, i));
            if (!v || json_object_set_new(row, t->columns[i], v) != 0) {
                json_decref(row);
                row = NULL;
            }
        }
        out = row ? fn(arg, row) : -1;
        json_decref(row);
    }
    sqlite3_finalize(st);
    return out != 0 ? -1 : rc == SQLITE_DONE ? 0 : -1;
}

static int sq_load_row(store_conn *c, const store_table_def *t, const json_t *row) {
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s (", t->name);
    int n = 0;
    for (; t->columns[n]; n++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", n ? ", " : "", t->columns[n]);
    len += (size_t)snprintf(sql + len, sizeof sql - len, ") VALUES (");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s?%d", i ? ", " : "", i + 1);
    snprintf(sql + len, sizeof sql - len, ")");
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(DB(c), sql, -1, &st, NULL) != SQLITE_OK) return -1;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        const json_t *v = json_object_get(row, t->columns[i]);
        if (!v || json_is_null(v)) continue; /* NULL */
        if (t->blob_mask & (1u << i)) {
            const char *hex = json_string_value(v);
            size_t hl = hex ? strlen(hex) : 1;
            uint8_t *bytes = hl % 2 == 0 ? malloc(hl / 2 + 1) : NULL;
            if (!bytes || crypto_hex_decode(hex, bytes, hl / 2) != 0) {
                free(bytes);
                rc = -1;
                break;
            }
            sqlite3_bind_blob(st, i + 1, bytes, (int)(hl / 2), free);
        } else if (t->int_mask & (1u << i)) {
            if (!json_is_integer(v)) rc = -1;
            sqlite3_bind_int64(st, i + 1, json_integer_value(v));
        } else {
            if (!json_is_string(v)) rc = -1;
            sqlite3_bind_text(st, i + 1, json_string_value(v), -1, SQLITE_TRANSIENT);
        }
    }
    if (rc == 0) rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
    sqlite3_finalize(st);
    return rc;
}

const store_ops store_sqlite_ops = {
    .close = sq_close,
    .errmsg = sq_errmsg,
    .exec = sq_exec,
    .migrate = sq_migrate,
    .tx = sq_tx,
    .session_get = sq_session_get,
    .session_insert = sq_session_insert,
    .session_update = sq_session_update,
    .session_seed_update = sq_session_seed_update,
    .session_recount_bytes = sq_session_recount_bytes,
    .session_last_event = sq_session_last_event,
    .last_fault = sq_last_fault,
    .probe_write = sq_probe_write,
    .session_version = sq_session_version,
    .lock_sessions = sq_lock_sessions,
    .notify = sq_notify,
    .token_insert = sq_token_insert,
    .token_set = sq_token_set,
    .token_delete = sq_token_delete,
    .tokens_each = sq_tokens_each,
    .event_insert = sq_event_insert,
    .events_page_new = sq_events_page_new,
    .idem_get = sq_idem_get,
    .idem_insert = sq_idem_insert,
    .webhooks_replace = sq_webhooks_replace,
    .orders_put = sq_orders_put,
    .orders_rows_new = sq_orders_rows_new,
    .orders_clear = sq_orders_clear,
    .webhooks_rows = sq_webhooks_rows,
    .dump_table = sq_dump_table,
    .load_row = sq_load_row,
};
