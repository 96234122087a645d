/* SQLite storage: a connection with its prepared statements cached, and the queries of the
 * action path. The daemon opens exactly one writer connection (owned by the writer thread) and
 * one reader connection (owned by the loop thread); WAL lets the reader run beside the writer. */
#ifndef UMPIRE_STORE_H
#define UMPIRE_STORE_H

#include <jansson.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    ST_SESSION_GET,
    ST_SESSION_INSERT,
    ST_SESSION_UPDATE,
    ST_SESSION_SEED_UPDATE,
    ST_TOKEN_INSERT,
    ST_TOKENS_OF_SESSION,
    ST_EVENT_INSERT,
    ST_EVENTS_PAGE,
    ST_IDEM_GET,
    ST_IDEM_INSERT,
    /* transaction control, prepared once for the writer's per-job savepoints */
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_SAVEPOINT,
    ST_RELEASE,
    ST_ROLLBACK_TO,
    ST_COUNT
} store_stmt_id;

typedef struct store_conn {
    sqlite3 *db;
    sqlite3_stmt *stmts[ST_COUNT];
} store_conn;

/* Opens path (creating its directory), sets WAL, synchronous ("full" or "normal"), foreign
 * keys and the busy timeout. NULL with a sentence in err. */
store_conn *store_conn_open(const char *path, const char *synchronous, int64_t busy_timeout_ms,
                            char *err, size_t errlen);
void store_conn_close(store_conn *c);
/* The cached statement, reset and with bindings cleared (prepared on first use). */
sqlite3_stmt *store_stmt(store_conn *c, store_stmt_id id);
/* Runs a statement without results (pragmas, migrations). 0 or -1. */
int store_exec(store_conn *c, const char *sql);
/* Runs one of the cached transaction statements (ST_BEGIN ... ST_ROLLBACK_TO). 0 or -1. */
int store_run(store_conn *c, store_stmt_id id);

typedef struct session_row {
    char id[33];
    char ruleset[64];
    int ruleset_version;
    char title[208];
    json_t *sides; /* owned */
    char visibility[8];
    json_t *options; /* owned */
    char dice_mode[8];
    uint8_t seed[32];
    bool has_seed;
    char commitment[65];
    int64_t next_nonce;
    int64_t version;
    char head[65];
    json_t *state; /* owned */
    char created_at[32];
} session_row;

void session_row_clear(session_row *row);
/* 1 found, 0 no such session, -1 storage error. */
int store_session_get(store_conn *c, const char *id, session_row *out);
int store_session_insert(store_conn *c, const session_row *row);
/* Writes the projection after new events: version, head, state, next_nonce. */
int store_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                         const json_t *state, int64_t next_nonce);
int store_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                              const char *commitment);

int store_token_insert(store_conn *c, const char *session_id, const char *role,
                       const uint8_t digest[32]);
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

/* 1 found (stored response malloc'd into *response, digest into digest), 0 none, -1 error. */
int store_idem_get(store_conn *c, const char *session_id, const char *key, uint8_t digest[32],
                   char **response);
int store_idem_insert(store_conn *c, const char *session_id, const char *key,
                      const uint8_t digest[32], const char *response);

#endif
