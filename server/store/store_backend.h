/* What a storage backend provides (server/store/store.h dispatches to it). Private to store*.c. */
#ifndef UMPIRE_STORE_BACKEND_H
#define UMPIRE_STORE_BACKEND_H

#include "server/store/store.h"

struct store_ops {
    void (*close)(store_conn *c);
    const char *(*errmsg)(store_conn *c);
    int (*exec)(store_conn *c, const char *sql);
    int (*migrate)(store_conn *c, char *err, size_t errlen);
    int (*tx)(store_conn *c, store_tx_id t);
    int (*session_get)(store_conn *c, const char *id, session_row *out);
    int (*session_insert)(store_conn *c, const session_row *row);
    /* entropy_json: NULL stores NULL; data_bytes < 0 leaves the stored total */
    int (*session_update)(store_conn *c, const char *id, int64_t version, const char *head,
                          const char *state_json, int64_t next_nonce, const char *entropy_json,
                          int64_t data_bytes);
    int (*session_recount_bytes)(store_conn *c, const char *id);
    int (*session_last_event)(store_conn *c, const char *id, int64_t *seq, char hash[65]);
    store_fault (*last_fault)(store_conn *c);
    store_fault (*probe_write)(store_conn *c);
    int (*session_seed_update)(store_conn *c, const char *id, const uint8_t seed[32],
                               const char *commitment, int64_t first_nonce);
    int64_t (*session_version)(store_conn *c, const char *id);
    int (*lock_sessions)(store_conn *c, const char (*ids)[33], size_t n, int64_t *versions);
    /* pg_notify(channel, payload), delivered if the transaction commits; SQLite: nothing. */
    int (*notify)(store_conn *c, const char *channel, const char *payload);
    int (*token_insert)(store_conn *c, const char *session_id, const char *role,
                        const uint8_t digest[32]);
    int (*token_set)(store_conn *c, const char *session_id, const char *role,
                     const uint8_t digest[32]);
    int (*token_delete)(store_conn *c, const char *session_id, const char *role);
    /* Calls fn for each (role, digest) of the session; returns rows seen, or -1. */
    int (*tokens_each)(store_conn *c, const char *session_id,
                       void (*fn)(void *arg, const char *role, const uint8_t *digest,
                                  size_t digest_len),
                       void *arg);
    int (*event_insert)(store_conn *c, const char *session_id, const event_row *ev,
                        const char *data_json);
    json_t *(*events_page_new)(store_conn *c, const char *session_id, int64_t after, int64_t limit);
    int (*idem_get)(store_conn *c, const char *session_id, const char *caller, const char *key,
                    uint8_t digest[32], char **response);
    int (*idem_insert)(store_conn *c, const char *session_id, const char *caller, const char *key,
                       const uint8_t digest[32], const char *response);
    int (*webhooks_replace)(store_conn *c, const char *session_id, const webhook_list *list);
    /* Calls row for each webhook row (session id order, then position), with its mentions (NULL
     * for none) and the session's version; returns 0 or -1. */
    int (*webhooks_rows)(store_conn *c,
                         void (*row)(void *arg, const char *session_id, const char *url,
                                     const char *format, const char *mentions, int64_t version),
                         void *arg);
    /* Sealed orders (migrations/0006): one row a side, replaced; every row of the session, as
     * [[side, body]] (new reference, NULL on failure); all of them deleted. */
    int (*orders_put)(store_conn *c, const char *session_id, const char *side, const char *body);
    json_t *(*orders_rows_new)(store_conn *c, const char *session_id);
    int (*orders_clear)(store_conn *c, const char *session_id);
    int (*dump_table)(store_conn *c, const store_table_def *t,
                      int (*fn)(void *arg, const json_t *row), void *arg);
    int (*load_row)(store_conn *c, const store_table_def *t, const json_t *row);
};

/* Columns of one table at most (export/import), and bits of the masks below. */
#define STORE_COLUMNS_MAX 32

/* A table as export/import sees it: its columns in order, which are blobs, its key order. */
struct store_table_def {
    const char *name;
    const char *const *columns; /* NULL-terminated */
    unsigned blob_mask;         /* bit i: column i is BLOB / bytea (hex in JSON) */
    unsigned int_mask;          /* bit i: column i is an integer */
    const char *order_by;
};

/* A row of the backend table (server/store/store_backends.c). */
typedef struct store_backend_def {
    store_backend kind;
    const char *name;
    bool (*claims)(const char *db); /* true when db names a database of this backend */
    store_conn *(*open)(const char *db, const char *synchronous, int64_t busy_timeout_ms, char *err,
                        size_t errlen);
} store_backend_def;

/* The row that opens db: the first that claims it (the last row claims every name). */
const store_backend_def *store_backend_for(const char *db);

extern const store_ops store_sqlite_ops;
extern const store_ops store_pg_ops;

store_conn *store_sqlite_open(const char *path, const char *synchronous, int64_t busy_timeout_ms,
                              char *err, size_t errlen);
store_conn *store_pg_open(const char *uri, char *err, size_t errlen);
/* A libpq connection to uri with Umpire's defaults (keepalives, timeouts); the URI's own
 * parameters win. (PGconn, from libpq-fe.h.) */
struct pg_conn *store_pg_connect(const char *uri);
sqlite3 *store_sqlite_db(store_conn *c);

/* JSON text for a column: canonical (JCS), jansson's for values JCS refuses. malloc'd. */
char *store_dump_json_new(const json_t *v);

#endif
