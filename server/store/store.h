/* Storage: the one interface every query of the daemon goes through, with two backends.
 * - SQLite (store_sqlite.c), the default: a file; exactly one writer connection (the writer
 *   thread's) and readers beside it under WAL.
 * - PostgreSQL (store_pg.c, libpq), chosen by a postgresql:// URI: several umpired nodes share
 *   one database; a writer serialises a session's actions across nodes with row locks
 *   (store_lock_sessions) and tells the other nodes of commits (store_notify).
 * A connection belongs to one thread at a time. Functions return 0 / -1 unless said. */
#ifndef UMPIRE_STORE_H
#define UMPIRE_STORE_H

#include "protocol/webhook_request.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { STORE_SQLITE, STORE_POSTGRES } store_backend;

typedef struct store_ops store_ops;
typedef struct store_table_def store_table_def;
/* The part every backend's connection starts with. */
typedef struct store_conn {
    const store_ops *ops;
    store_backend backend;
    /* The last COMMIT failed with the connection lost while it ran: the server may have
     * committed (PostgreSQL; SQLite's COMMIT either happened or not). */
    bool commit_unknown;
} store_conn;

/* True when db names a PostgreSQL database (postgresql:// or postgres://). */
bool store_db_is_postgres(const char *db);
/* Opens db: a SQLite path (creating its directory; WAL, synchronous "full" or "normal", foreign
 * keys, busy timeout) or a PostgreSQL URI (synchronous and busy timeout do not apply). NULL
 * with a sentence in err. */
store_conn *store_conn_open(const char *db, const char *synchronous, int64_t busy_timeout_ms,
                            char *err, size_t errlen);
void store_conn_close(store_conn *c);
/* The last error of the connection, as the database said it. */
const char *store_errmsg(store_conn *c);
/* The SQLite handle (checkpoints, tests), NULL for PostgreSQL. */
sqlite3 *store_sqlite_handle(store_conn *c);
/* Runs SQL without results. */
int store_exec(store_conn *c, const char *sql);
/* Applies the backend's migrations (server/store/migrate.h). Number applied, or -1 with err. */
int store_migrate(store_conn *c, char *err, size_t errlen);

/* Why the database refuses writes, from the last failed call of a connection: what /v1/health
 * reports (server/store/writer.h). */
typedef enum {
    STORE_FAULT_NONE,      /* writable, or a failure that says nothing about the store */
    STORE_FAULT_READ_ONLY, /* a read-only file or database (SQLite READONLY, SQLSTATE 25006) */
    STORE_FAULT_FULL,      /* no space left (SQLite FULL, SQLSTATE 53100) */
    STORE_FAULT_FAILING,   /* I/O errors, a corrupt file, the connection to the server lost */
} store_fault;
/* The fault the connection's last failed call shows. */
store_fault store_last_fault(store_conn *c);
/* Whether the database would take a write, without writing: SQLite BEGIN IMMEDIATE and
 * ROLLBACK; PostgreSQL transaction_read_only. STORE_FAULT_FULL is never found this way. */
store_fault store_probe_write(store_conn *c);
const char *store_fault_name(store_fault f); /* "ok", "read_only", "full", "failing" */

typedef enum {
    STORE_TX_BEGIN,    /* a write transaction (SQLite: BEGIN IMMEDIATE) */
    STORE_TX_SNAPSHOT, /* a read-only transaction seeing one snapshot throughout */
    STORE_TX_COMMIT,
    STORE_TX_ROLLBACK,
    STORE_TX_SAVEPOINT, /* the writer's per-job savepoint */
    STORE_TX_RELEASE,
    STORE_TX_ROLLBACK_TO,
    STORE_TX_COUNT
} store_tx_id;
int store_tx(store_conn *c, store_tx_id t);

typedef struct session_row {
    char id[33];
    char ruleset[64];
    int ruleset_version;
    char title[208];
    json_t *sides; /* owned */
    char visibility[8];
    json_t *options; /* owned */
    char dice_mode[8];
    char manual_by[8]; /* manual mode: "referee" when only the referee types dice, else "" */
    uint8_t seed[32];
    bool has_seed;
    char commitment[65];
    int64_t next_nonce;
    int64_t version;
    char head[65];
    json_t *state; /* owned */
    char created_at[32];
    /* Players' entropy in force (server/dice/entropy.h): {role: {"seed", "nonce"}}, owned, NULL for
     * none; entropy_digest is its digest, the c of the die message, "" for none. */
    json_t *entropy;
    char entropy_digest[65];
    int64_t seed_first_nonce; /* the first nonce of the current seed (set by each reveal) */
    /* Bytes of event data the session stores (the sum of its events' data texts; migration
     * 0004): what limits.max_session_bytes bounds, kept as a running total so that no append
     * counts the whole log. */
    int64_t data_bytes;
    /* Bytes of the state as stored (its canonical JSON text), or 0 when not known: what
     * limits.max_state_bytes bounds, checked before an action rolls (session_write.c). */
    int64_t state_bytes;
} session_row;

void session_row_clear(session_row *row);
/* 1 found, 0 no such session, -1 storage error. */
int store_session_get(store_conn *c, const char *id, session_row *out);
int store_session_insert(store_conn *c, const session_row *row);
/* Writes the projection after new events: version, head, state, next_nonce and the entropy in
 * force (NULL: none). */
int store_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                         const json_t *state, int64_t next_nonce, const json_t *entropy);
/* Writes the projection of row as store_session_update does, and its data_bytes; on success
 * sets row->state_bytes to the length of the state text written. */
int store_session_write_row(store_conn *c, session_row *row);
/* Sets data_bytes of session id to the sum of its events' data (import: whatever the file said). */
int store_session_recount_bytes(store_conn *c, const char *id);
/* The seq and hash of the session's last event: 1 found, 0 no event, -1 storage error. The writer
 * compares them with the row's version and head before it appends (a broken chain is never
 * extended). */
int store_session_last_event(store_conn *c, const char *id, int64_t *seq, char hash[65]);
/* A reveal: the fresh seed, its commitment and its first nonce; the entropy in force ends with
 * the old seed. */
int store_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                              const char *commitment, int64_t first_nonce);

/* The session's version: >= 0, -1 when there is no such session, -2 on error. */
int64_t store_session_version(store_conn *c, const char *id);
/* Inside a write transaction: locks the rows of sessions ids[0..n) (sorted, distinct) until
 * the transaction ends, in that order, so two writers never deadlock; writes each one's
 * version into versions[i] (-1: no such session). A no-op for SQLite, whose one writer needs no
 * lock (versions[i] = -2: unknown). */
int store_lock_sessions(store_conn *c, const char (*ids)[33], size_t n, int64_t *versions);
/* Inside a write transaction: once it commits, other nodes are told the session is at version
 * (PostgreSQL NOTIFY umpire_events, payload "<id> <version>"). A no-op for SQLite. */
int store_notify(store_conn *c, const char *session_id, int64_t version);
/* The same for a replaced webhook list (NOTIFY umpire_webhooks, payload "<id>"). */
int store_notify_webhooks(store_conn *c, const char *session_id);

int store_token_insert(store_conn *c, const char *session_id, const char *role,
                       const uint8_t digest[32]);
/* A rotation: role's token becomes digest's (inserted when the role had none: revoked). */
int store_token_set(store_conn *c, const char *session_id, const char *role,
                    const uint8_t digest[32]);
/* A revocation: role has no token any more. 1 deleted, 0 it had none, -1 storage error. */
int store_token_delete(store_conn *c, const char *session_id, const char *role);
/* 1 when role has a token in the session, 0 not, -1 storage error. */
int store_token_exists(store_conn *c, const char *session_id, const char *role);
/* Inside a write transaction: once it commits, other nodes forget the session's cached tokens
 * (PostgreSQL NOTIFY umpire_tokens, payload "<id>"). A no-op for SQLite. */
int store_notify_tokens(store_conn *c, const char *session_id);
/* Finds the role of a bearer token in a session, comparing SHA-256 digests in constant time.
 * 1 found (role written), 0 unknown token, STORE_NO_SESSION when the session does not exist
 * (every session has a referee token), -1 storage error. */
#define STORE_NO_SESSION (-2)
int store_token_role(store_conn *c, const char *session_id, const char *token, char *role,
                     size_t rolelen);

typedef struct event_row {
    int64_t seq;
    const char *ts, *actor, *type, *prev, *hash;
    const json_t *data;
    const char *data_text; /* data's JSON text if already serialised (JCS), or NULL */
} event_row;
int store_event_insert(store_conn *c, const char *session_id, const event_row *ev);
/* Events after `after`, at most `limit`, as full event objects. New reference; NULL on error. */
json_t *store_events_page_new(store_conn *c, const char *session_id, int64_t after, int64_t limit);

/* Idempotency keys are scoped to (session, caller): caller is the role that sent the key. 1 found
 * (stored response malloc'd into *response, digest into digest), 0 none, -1 error. */
int store_idem_get(store_conn *c, const char *session_id, const char *caller, const char *key,
                   uint8_t digest[32], char **response);
int store_idem_insert(store_conn *c, const char *session_id, const char *caller, const char *key,
                      const uint8_t digest[32], const char *response);

/* The webhooks table (migrations/0002_webhooks.sql). */
/* Replaces the session's list (inside the caller's transaction). */
int store_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list);
/* Sealed orders (migrations/0006_sealed_orders.sql): a side's row, replaced (body: canonical JSON
 * {"orders", "salt", "step", "turn"}); the session's rows as [[side, body]], in side order (new
 * reference, NULL on failure); all of them deleted (the reveal). Nothing else reads them. */
int store_orders_put(store_conn *c, const char *session_id, const char *side, const char *body);
json_t *store_orders_rows_new(store_conn *c, const char *session_id);
int store_orders_clear(store_conn *c, const char *session_id);
/* Calls fn once per session that has webhooks, with its list and its current version, in
 * session id order. 0, or -1 on a storage error (fn may have been called for some). */
int store_webhooks_each(store_conn *c,
                        void (*fn)(void *arg, const char *session_id, const webhook_list *list,
                                   int64_t version),
                        void *arg);

/* Export and import (umpired export / import): every row of `table` in primary-key order as a
 * JSON object {column: value} (BLOB/bytea columns as lowercase hex), handed to fn (borrowed);
 * fn returns 0 to go on. And one such row inserted. Tables: store_dump_tables. */
extern const char *const store_dump_tables[]; /* NULL-terminated, in dependency order */
int store_dump_table(store_conn *c, const char *table, int (*fn)(void *arg, const json_t *row),
                     void *arg);
int store_load_row(store_conn *c, const char *table, const json_t *row);

#endif
