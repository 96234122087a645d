/* The PostgreSQL backend of server/store/store.h (libpq). Used only from threads that may wait on
 * the network: the writer thread, the read pool (server/store/db_reads.c), the verify workers and
 * the export/import commands; never the loop thread.
 *
 * Statements are prepared once per connection (on first use) and sent with text parameters;
 * bytea travels as hex ("\x..."), PostgreSQL's default bytea_output. A connection that broke is
 * reset at the next statement outside a transaction (its prepared statements go with it). */
#include "server/core/crypto.h"
#include "server/core/log.h"
#include "server/store/migrate.h"
#include "server/store/store_backend.h"

#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    PS_SESSION_GET,
    PS_SESSION_INSERT,
    PS_SESSION_UPDATE,
    PS_SESSION_SEED_UPDATE,
    PS_SESSION_VERSION,
    PS_LOCK_SESSIONS,
    PS_NOTIFY,
    PS_SESSION_LAST_EVENT,
    PS_SESSION_RECOUNT,
    PS_TOKEN_INSERT,
    PS_TOKEN_SET,
    PS_TOKEN_DELETE,
    PS_TOKENS_OF_SESSION,
    PS_EVENT_INSERT,
    PS_EVENTS_PAGE,
    PS_IDEM_GET,
    PS_IDEM_INSERT,
    PS_COUNT
} pg_stmt_id;

static const char *const pg_sql[PS_COUNT] = {
    [PS_SESSION_GET] =
        "SELECT id, ruleset, ruleset_version, title, sides, visibility, options, "
        "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, "
        "created_at, dice_manual_by, entropy, seed_first_nonce, data_bytes FROM sessions "
        "WHERE id = $1",
    [PS_SESSION_INSERT] =
        "INSERT INTO sessions (id, ruleset, ruleset_version, title, sides, visibility, options, "
        "dice_mode, dice_seed, dice_commitment, next_nonce, version, head, state, created_at, "
        "dice_manual_by) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    [PS_SESSION_UPDATE] = "UPDATE sessions SET version = $2, head = $3, state = $4, "
                          "next_nonce = $5, entropy = $6, data_bytes = coalesce($7, data_bytes) "
                          "WHERE id = $1",
    [PS_SESSION_LAST_EVENT] = "SELECT seq, hash FROM events WHERE session_id = $1 "
                              "ORDER BY seq DESC LIMIT 1",
    /* Bytes, as migrations/postgresql/0004_session_bytes.sql counts them. */
    [PS_SESSION_RECOUNT] = "UPDATE sessions SET data_bytes = (SELECT coalesce(sum(octet_length("
                           "data)), 0) FROM events WHERE session_id = $1) WHERE id = $1",
    [PS_SESSION_SEED_UPDATE] = "UPDATE sessions SET dice_seed = $2, dice_commitment = $3, "
                               "entropy = NULL, seed_first_nonce = $4 WHERE id = $1",
    [PS_SESSION_VERSION] = "SELECT version FROM sessions WHERE id = $1",
    /* ORDER BY before FOR UPDATE: rows are locked in id order, so two nodes locking
     * overlapping sets of sessions wait for each other instead of deadlocking. */
    [PS_LOCK_SESSIONS] = "SELECT id, version FROM sessions WHERE id = ANY($1::text[]) "
                         "ORDER BY id FOR UPDATE",
    /* Delivered to every LISTENer when (and only if) the transaction commits. */
    [PS_NOTIFY] = "SELECT pg_notify($1, $2)",
    [PS_TOKEN_INSERT] = "INSERT INTO tokens (session_id, role, digest) VALUES ($1, $2, $3)",
    [PS_TOKEN_SET] = "INSERT INTO tokens (session_id, role, digest) VALUES ($1, $2, $3) "
                     "ON CONFLICT (session_id, role) DO UPDATE SET digest = excluded.digest",
    [PS_TOKEN_DELETE] = "DELETE FROM tokens WHERE session_id = $1 AND role = $2",
    [PS_TOKENS_OF_SESSION] = "SELECT role, digest FROM tokens WHERE session_id = $1",
    [PS_EVENT_INSERT] = "INSERT INTO events (session_id, seq, ts, actor, type, data, prev, hash) "
                        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    [PS_EVENTS_PAGE] = "SELECT seq, ts, actor, type, data, prev, hash FROM events "
                       "WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
    /* The caller's own key (migrations/postgresql/0003_fair_dice.sql). */
    [PS_IDEM_GET] = "SELECT body_digest, response FROM idempotency "
                    "WHERE session_id = $1 AND caller = $2 AND key = $3",
    [PS_IDEM_INSERT] = "INSERT INTO idempotency (session_id, caller, key, body_digest, response) "
                       "VALUES ($1, $2, $3, $4, $5)",
};

static const char *const tx_sql[STORE_TX_COUNT] = {
    [STORE_TX_BEGIN] = "BEGIN",
    [STORE_TX_SNAPSHOT] = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    [STORE_TX_COMMIT] = "COMMIT",
    [STORE_TX_ROLLBACK] = "ROLLBACK",
    [STORE_TX_SAVEPOINT] = "SAVEPOINT job",
    [STORE_TX_RELEASE] = "RELEASE job",
    [STORE_TX_ROLLBACK_TO] = "ROLLBACK TO job",
};

typedef struct pgstore_conn {
    store_conn base;
    PGconn *pg;
    bool prepared[PS_COUNT];
    bool in_tx; /* between BEGIN and COMMIT/ROLLBACK: a broken connection is never replaced */
    char err[256];
    char sqlstate[6]; /* of the last failed statement, "" when none said */
} pgstore_conn;

static pgstore_conn *PG(store_conn *c) {
    return (pgstore_conn *)c;
}

/* The SQLSTATE of a failed result (store_last_fault reads it). */
static void keep_sqlstate(pgstore_conn *p, const PGresult *r) {
    const char *code = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    snprintf(p->sqlstate, sizeof p->sqlstate, "%s", code ? code : "");
}

static void set_err(pgstore_conn *p, const char *what) {
    const char *m = PQerrorMessage(p->pg);
    snprintf(p->err, sizeof p->err, "%s%s%s", what ? what : "", what && *m ? ": " : "", m);
    size_t n = strlen(p->err);
    while (n && (p->err[n - 1] == '\n' || p->err[n - 1] == ' '))
        p->err[--n] = '\0';
    /* One line for logs: "ERROR: ...\nDETAIL: ..." becomes "ERROR: ... DETAIL: ...". */
    for (char *c = p->err; *c; c++)
        if (*c == '\n') *c = ' ';
}

/* The server's notices (CREATE TABLE IF NOT EXISTS says "already exists"; FATAL on a terminated
 * connection) would go to stderr raw, outside the daemon's log format; what matters of them
 * reaches the log through the failing call's error. */
static void ignore_notice(void *arg, const char *message) {
    (void)arg, (void)message;
}

PGconn *store_pg_connect(const char *uri) {
    /* Defaults a URI may override (it comes last): a dead server or a cut network is noticed
     * within about 25 s (keepalives; unacknowledged writes: tcp_user_timeout), not after the
     * kernel's two hours, and a connection attempt gives up after 10 s. */
    static const char *const keys[] = {"keepalives",
                                       "keepalives_idle",
                                       "keepalives_interval",
                                       "keepalives_count",
                                       "tcp_user_timeout",
                                       "connect_timeout",
                                       "dbname",
                                       NULL};
    const char *values[] = {"1", "10", "5", "3", "25000", "10", uri, NULL};
    PGconn *pg = PQconnectdbParams(keys, values, 1);
    if (pg) PQsetNoticeProcessor(pg, ignore_notice, NULL);
    return pg;
}

store_conn *store_pg_open(const char *uri, char *err, size_t errlen) {
    pgstore_conn *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    p->base.ops = &store_pg_ops;
    p->base.backend = STORE_POSTGRES;
    p->pg = store_pg_connect(uri);
    if (!p->pg || PQstatus(p->pg) != CONNECTION_OK) {
        /* The message may quote the URI's host and user, never its password. */
        snprintf(err, errlen, "cannot connect to PostgreSQL: %s",
                 p->pg ? PQerrorMessage(p->pg) : "out of memory");
        size_t n = strlen(err);
        while (n && err[n - 1] == '\n')
            err[--n] = '\0';
        PQfinish(p->pg);
        free(p);
        return NULL;
    }
    return &p->base;
}

static void pg_close(store_conn *c) {
    PQfinish(PG(c)->pg);
    free(c);
}

static const char *pg_errmsg(store_conn *c) {
    return PG(c)->err[0] ? PG(c)->err : PQerrorMessage(PG(c)->pg);
}

/* A broken connection is reset before a statement outside any transaction. Inside one, never:
 * the statements after it would run on the new connection outside the transaction (in
 * autocommit), and COMMIT would "succeed" without the work before the break. There every
 * statement fails until COMMIT or ROLLBACK ends the transaction, and the writer answers 503
 * for its batch. */
static void revive(pgstore_conn *p) {
    if (PQstatus(p->pg) == CONNECTION_OK || p->in_tx) return;
    PQreset(p->pg);
    memset(p->prepared, 0, sizeof p->prepared);
    if (PQstatus(p->pg) == CONNECTION_OK)
        log_msg(LOG_WARN, "PostgreSQL: connection re-established");
}

static bool result_ok(PGresult *r) {
    ExecStatusType s = PQresultStatus(r);
    return s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK;
}

static int pg_exec(store_conn *c, const char *sql) {
    pgstore_conn *p = PG(c);
    revive(p);
    PGresult *r = PQexec(p->pg, sql);
    int rc = result_ok(r) ? 0 : -1;
    if (rc) set_err(p, NULL), keep_sqlstate(p, r);
    PQclear(r);
    return rc;
}

static int pg_tx(store_conn *c, store_tx_id t) {
    pgstore_conn *p = PG(c);
    bool begin = t == STORE_TX_BEGIN || t == STORE_TX_SNAPSHOT;
    bool end = t == STORE_TX_COMMIT || t == STORE_TX_ROLLBACK;
    if (begin) {
        p->in_tx = false; /* whatever came before, a new transaction starts clean */
        revive(p);
    }
    if (t == STORE_TX_COMMIT) {
        c->commit_unknown = false;
        /* COMMIT outside a transaction only warns, and says "COMMIT": never take it for one. */
        PGTransactionStatusType ts = PQtransactionStatus(p->pg);
        if (ts == PQTRANS_IDLE) {
            snprintf(p->err, sizeof p->err, "COMMIT without a transaction");
            p->in_tx = false;
            return -1;
        }
    }
    bool was_ok = PQstatus(p->pg) == CONNECTION_OK;
    PGresult *r = PQexec(p->pg, tx_sql[t]);
    if (begin && !result_ok(r) && PQstatus(p->pg) == CONNECTION_BAD) {
        /* A connection found broken by BEGIN: nothing had started, begin again on a new one. */
        PQclear(r);
        revive(p);
        r = PQexec(p->pg, tx_sql[t]);
    }
    int rc = result_ok(r) ? 0 : -1;
    if (begin) p->in_tx = rc == 0;
    if (end) p->in_tx = false;
    /* The connection went down while COMMIT ran: the server may have committed before. */
    if (rc && t == STORE_TX_COMMIT && was_ok && PQstatus(p->pg) == CONNECTION_BAD)
        c->commit_unknown = true;
    /* COMMIT of a transaction that had failed answers "ROLLBACK", with a success status. */
    if (rc == 0 && t == STORE_TX_COMMIT && strcmp(PQcmdStatus(r), "COMMIT") != 0) {
        snprintf(p->err, sizeof p->err, "the transaction was rolled back by the server");
        rc = -1;
    } else if (rc) {
        set_err(p, NULL);
        keep_sqlstate(p, r);
    } else {
        p->err[0] = '\0';
        p->sqlstate[0] = '\0';
    }
    PQclear(r);
    return rc;
}

/* Runs prepared statement id with n text parameters (NULL: SQL NULL). The result, or NULL
 * (error recorded) when it failed. A statement outside any transaction that fails because the
 * connection broke (the server restarted, a proxy dropped it) is tried once more on a new
 * connection: it had not started anything, so nothing can happen twice. */
static PGresult *run(pgstore_conn *p, pg_stmt_id id, int n, const char *const *params) {
    char name[8];
    snprintf(name, sizeof name, "s%d", (int)id);
    for (int attempt = 0;; attempt++) {
        revive(p);
        bool idle = !p->in_tx;
        if (!p->prepared[id]) {
            PGresult *r = PQprepare(p->pg, name, pg_sql[id], n, NULL);
            bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
            PQclear(r);
            if (!ok) {
                set_err(p, "prepare");
                if (attempt == 0 && idle && PQstatus(p->pg) == CONNECTION_BAD) continue;
                return NULL;
            }
            p->prepared[id] = true;
        }
        PGresult *r = PQexecPrepared(p->pg, name, n, params, NULL, NULL, 0);
        if (result_ok(r)) {
            p->err[0] = '\0';
            p->sqlstate[0] = '\0';
            return r;
        }
        set_err(p, NULL);
        keep_sqlstate(p, r);
        PQclear(r);
        if (attempt == 0 && idle && PQstatus(p->pg) == CONNECTION_BAD) continue;
        return NULL;
    }
}

static int run_done(pgstore_conn *p, pg_stmt_id id, int n, const char *const *params) {
    PGresult *r = run(p, id, n, params);
    PQclear(r);
    return r ? 0 : -1;
}

/* bytea as PostgreSQL's hex input: "\x" and two digits a byte. out: 2 + 2*len + 1. */
static void bytea_hex(const uint8_t *in, size_t len, char *out) {
    out[0] = '\\';
    out[1] = 'x';
    crypto_hex_encode(in, len, out + 2);
}

/* A bytea column in hex output into out[len]: 0, or -1 when it is not exactly len bytes. */
static int bytea_get(const PGresult *r, int row, int col, uint8_t *out, size_t len) {
    const char *v = PQgetvalue(r, row, col);
    if (PQgetisnull(r, row, col) || strncmp(v, "\\x", 2) != 0 || strlen(v + 2) != 2 * len)
        return -1;
    return crypto_hex_decode(v + 2, out, len);
}

static void copy_value(char *dst, size_t cap, const PGresult *r, int row, int col) {
    snprintf(dst, cap, "%s", PQgetvalue(r, row, col));
}

static json_t *value_json(const PGresult *r, int row, int col) {
    return PQgetisnull(r, row, col) ? NULL : json_loads(PQgetvalue(r, row, col), 0, NULL);
}

static int64_t value_int(const PGresult *r, int row, int col) {
    return strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static int pg_migrate(store_conn *c, char *err, size_t errlen) {
    pgstore_conn *p = PG(c);
    /* One node migrates at a time: the others wait here, then find nothing left to do. The key
     * is an arbitrary constant of Umpire's ("umpi" in ASCII). */
    if (pg_exec(c, "SELECT pg_advisory_lock(1970106729)") != 0) {
        snprintf(err, errlen, "cannot take the migration lock: %s", pg_errmsg(c));
        return -1;
    }
    int applied = 0;
    if (pg_exec(c, "CREATE TABLE IF NOT EXISTS schema_migrations ("
                   " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)") !=
        0) {
        snprintf(err, errlen, "cannot create schema_migrations: %s", pg_errmsg(c));
        applied = -1;
    }
    int current = -1;
    if (applied == 0) {
        PGresult *r = PQexec(p->pg, "SELECT coalesce(max(version), 0) FROM schema_migrations");
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
            current = atoi(PQgetvalue(r, 0, 0));
        PQclear(r);
        if (current < 0) {
            set_err(p, NULL);
            snprintf(err, errlen, "cannot read schema_migrations: %s", pg_errmsg(c));
            applied = -1;
        }
    }
    size_t n = umpire_pg_migration_count;
    int newest = n > 0 ? umpire_pg_migrations[n - 1].version : 0;
    if (applied == 0 && current > newest) {
        snprintf(err, errlen,
                 "the database is at schema version %d, newer than this umpired knows (%d): "
                 "run a newer umpired, or restore a backup",
                 current, newest);
        applied = -1;
    }
    for (size_t i = 0; applied >= 0 && i < n; i++) {
        const migration_def *m = &umpire_pg_migrations[i];
        if (m->version <= current) continue;
        char version[16];
        snprintf(version, sizeof version, "%d", m->version);
        const char *params[] = {version, m->name};
        PGresult *rec = NULL;
        bool ok = pg_tx(c, STORE_TX_BEGIN) == 0 && pg_exec(c, m->sql) == 0;
        if (ok) {
            rec = PQexecParams(p->pg,
                               "INSERT INTO schema_migrations (version, name, applied_at) VALUES "
                               "($1, $2, to_char(now() AT TIME ZONE 'UTC', "
                               "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'))",
                               2, NULL, params, NULL, NULL, 0);
            ok = PQresultStatus(rec) == PGRES_COMMAND_OK;
            if (!ok) set_err(p, NULL);
            PQclear(rec);
        }
        if (ok) ok = pg_tx(c, STORE_TX_COMMIT) == 0;
        if (!ok) {
            char why[256];
            snprintf(why, sizeof why, "%s", pg_errmsg(c));
            pg_tx(c, STORE_TX_ROLLBACK);
            snprintf(err, errlen, "migration %04d_%s failed: %s", m->version, m->name, why);
            applied = -1;
            break;
        }
        applied++;
    }
    pg_exec(c, "SELECT pg_advisory_unlock(1970106729)");
    return applied;
}

static int pg_session_get(store_conn *c, const char *id, session_row *out) {
    const char *params[] = {id};
    PGresult *r = run(PG(c), PS_SESSION_GET, 1, params);
    if (!r) return -1;
    if (PQntuples(r) == 0) {
        PQclear(r);
        return 0;
    }
    memset(out, 0, sizeof *out);
    copy_value(out->id, sizeof out->id, r, 0, 0);
    copy_value(out->ruleset, sizeof out->ruleset, r, 0, 1);
    out->ruleset_version = (int)value_int(r, 0, 2);
    copy_value(out->title, sizeof out->title, r, 0, 3);
    out->sides = value_json(r, 0, 4);
    copy_value(out->visibility, sizeof out->visibility, r, 0, 5);
    out->options = value_json(r, 0, 6);
    copy_value(out->dice_mode, sizeof out->dice_mode, r, 0, 7);
    out->has_seed = bytea_get(r, 0, 8, out->seed, 32) == 0;
    copy_value(out->commitment, sizeof out->commitment, r, 0, 9);
    out->next_nonce = value_int(r, 0, 10);
    out->version = value_int(r, 0, 11);
    copy_value(out->head, sizeof out->head, r, 0, 12);
    out->state = value_json(r, 0, 13);
    out->state_bytes = PQgetlength(r, 0, 13);
    copy_value(out->created_at, sizeof out->created_at, r, 0, 14);
    copy_value(out->manual_by, sizeof out->manual_by, r, 0, 15);
    bool has_entropy = !PQgetisnull(r, 0, 16);
    if (has_entropy) out->entropy = value_json(r, 0, 16);
    out->seed_first_nonce = value_int(r, 0, 17);
    out->data_bytes = value_int(r, 0, 18);
    PQclear(r);
    if (!out->sides || !out->options || !out->state || (has_entropy && !out->entropy)) {
        session_row_clear(out);
        return -1;
    }
    return 1;
}

static int pg_session_insert(store_conn *c, const session_row *row) {
    char *sides = store_dump_json_new(row->sides), *options = store_dump_json_new(row->options),
         *state = store_dump_json_new(row->state);
    char rv[24], nonce[24], version[24], seed[2 + 64 + 1];
    snprintf(rv, sizeof rv, "%d", row->ruleset_version);
    snprintf(nonce, sizeof nonce, "%" PRId64, row->next_nonce);
    snprintf(version, sizeof version, "%" PRId64, row->version);
    if (row->has_seed) bytea_hex(row->seed, 32, seed);
    const char *params[] = {row->id,
                            row->ruleset,
                            rv,
                            row->title,
                            sides,
                            row->visibility,
                            options,
                            row->dice_mode,
                            row->has_seed ? seed : NULL,
                            row->commitment[0] ? row->commitment : NULL,
                            nonce,
                            version,
                            row->head,
                            state,
                            row->created_at,
                            row->manual_by[0] ? row->manual_by : NULL};
    int rc = sides && options && state ? run_done(PG(c), PS_SESSION_INSERT, 16, params) : -1;
    free(sides);
    free(options);
    free(state);
    return rc;
}

static int pg_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                             const char *state_json, int64_t next_nonce, const char *entropy_json,
                             int64_t data_bytes) {
    char v[24], n[24], b[24];
    snprintf(v, sizeof v, "%" PRId64, version);
    snprintf(n, sizeof n, "%" PRId64, next_nonce);
    snprintf(b, sizeof b, "%" PRId64, data_bytes);
    const char *params[] = {id, v, head, state_json, n, entropy_json, data_bytes >= 0 ? b : NULL};
    return run_done(PG(c), PS_SESSION_UPDATE, 7, params);
}

static int pg_session_recount_bytes(store_conn *c, const char *id) {
    const char *params[] = {id};
    return run_done(PG(c), PS_SESSION_RECOUNT, 1, params);
}

static int pg_session_last_event(store_conn *c, const char *id, int64_t *seq, char hash[65]) {
    const char *params[] = {id};
    PGresult *r = run(PG(c), PS_SESSION_LAST_EVENT, 1, params);
    if (!r) return -1;
    int found = PQntuples(r) == 1;
    if (found) {
        *seq = value_int(r, 0, 0);
        copy_value(hash, 65, r, 0, 1);
    }
    PQclear(r);
    return found;
}

/* SQLSTATE classes: 25006 read_only_sql_transaction (a standby, default_transaction_read_only),
 * 53100 disk_full, 58030 io_error, XX001/XX002 data or index corrupted; a lost connection. */
static store_fault pg_last_fault(store_conn *c) {
    pgstore_conn *p = PG(c);
    if (strcmp(p->sqlstate, "25006") == 0) return STORE_FAULT_READ_ONLY;
    if (strcmp(p->sqlstate, "53100") == 0) return STORE_FAULT_FULL;
    if (strcmp(p->sqlstate, "58030") == 0 || strncmp(p->sqlstate, "XX00", 4) == 0 ||
        PQstatus(p->pg) != CONNECTION_OK)
        return STORE_FAULT_FAILING;
    return STORE_FAULT_NONE;
}

/* A read-only transaction by default (a hot standby, or set by the operator) refuses every
 * write; a server that cannot be reached is failing. Nothing is written. */
static store_fault pg_probe_write(store_conn *c) {
    pgstore_conn *p = PG(c);
    if (p->in_tx) return STORE_FAULT_NONE; /* never inside the writer's transaction */
    revive(p);
    PGresult *r = PQexec(p->pg, "SELECT current_setting('transaction_read_only')");
    store_fault f = STORE_FAULT_NONE;
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        set_err(p, NULL);
        keep_sqlstate(p, r);
        f = pg_last_fault(c);
        if (f == STORE_FAULT_NONE) f = STORE_FAULT_FAILING;
    } else if (strcmp(PQgetvalue(r, 0, 0), "on") == 0) {
        f = STORE_FAULT_READ_ONLY;
    }
    PQclear(r);
    return f;
}

static int pg_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                                  const char *commitment, int64_t first_nonce) {
    char hex[2 + 64 + 1], first[24];
    bytea_hex(seed, 32, hex);
    snprintf(first, sizeof first, "%" PRId64, first_nonce);
    const char *params[] = {id, hex, commitment, first};
    return run_done(PG(c), PS_SESSION_SEED_UPDATE, 4, params);
}

static int64_t pg_session_version(store_conn *c, const char *id) {
    const char *params[] = {id};
    PGresult *r = run(PG(c), PS_SESSION_VERSION, 1, params);
    if (!r) return -2;
    int64_t v = PQntuples(r) ? value_int(r, 0, 0) : -1;
    PQclear(r);
    return v;
}

static int pg_lock_sessions(store_conn *c, const char (*ids)[33], size_t n, int64_t *versions) {
    /* A text[] literal: {id,id,...}. Ids are 32 hex digits, nothing to quote. */
    char *list = malloc(n * 33 + 3);
    if (!list) return -1;
    size_t len = 0;
    list[len++] = '{';
    for (size_t i = 0; i < n; i++) {
        if (i) list[len++] = ',';
        size_t l = strnlen(ids[i], 32);
        memcpy(list + len, ids[i], l);
        len += l;
        versions[i] = -1;
    }
    list[len++] = '}';
    list[len] = '\0';
    const char *params[] = {list};
    PGresult *r = run(PG(c), PS_LOCK_SESSIONS, 1, params);
    free(list);
    if (!r) return -1;
    for (int row = 0; row < PQntuples(r); row++) {
        const char *id = PQgetvalue(r, row, 0);
        for (size_t i = 0; i < n; i++)
            if (strcmp(ids[i], id) == 0) versions[i] = value_int(r, row, 1);
    }
    PQclear(r);
    return 0;
}

static int pg_notify(store_conn *c, const char *channel, const char *payload) {
    const char *params[] = {channel, payload};
    return run_done(PG(c), PS_NOTIFY, 2, params);
}

/* A token's (session, role, digest) row, by PS_TOKEN_INSERT or PS_TOKEN_SET. */
static int token_write(store_conn *c, pg_stmt_id which, const char *session_id, const char *role,
                       const uint8_t digest[32]) {
    char hex[2 + 64 + 1];
    bytea_hex(digest, 32, hex);
    const char *params[] = {session_id, role, hex};
    return run_done(PG(c), which, 3, params);
}

static int pg_token_insert(store_conn *c, const char *session_id, const char *role,
                           const uint8_t digest[32]) {
    return token_write(c, PS_TOKEN_INSERT, session_id, role, digest);
}

static int pg_token_set(store_conn *c, const char *session_id, const char *role,
                        const uint8_t digest[32]) {
    return token_write(c, PS_TOKEN_SET, session_id, role, digest);
}

static int pg_token_delete(store_conn *c, const char *session_id, const char *role) {
    const char *params[] = {session_id, role};
    PGresult *r = run(PG(c), PS_TOKEN_DELETE, 2, params);
    if (!r) return -1;
    int deleted = atoi(PQcmdTuples(r)) > 0;
    PQclear(r);
    return deleted;
}

static int pg_tokens_each(store_conn *c, const char *session_id,
                          void (*fn)(void *arg, const char *role, const uint8_t *digest,
                                     size_t digest_len),
                          void *arg) {
    const char *params[] = {session_id};
    PGresult *r = run(PG(c), PS_TOKENS_OF_SESSION, 1, params);
    if (!r) return -1;
    int rows = PQntuples(r);
    for (int i = 0; i < rows; i++) {
        uint8_t digest[32];
        bool ok = bytea_get(r, i, 1, digest, 32) == 0;
        fn(arg, PQgetvalue(r, i, 0), digest, ok ? 32 : 0);
    }
    PQclear(r);
    return rows;
}

static int pg_event_insert(store_conn *c, const char *session_id, const event_row *ev,
                           const char *data_json) {
    char seq[24];
    snprintf(seq, sizeof seq, "%" PRId64, ev->seq);
    const char *params[] = {session_id, seq,       ev->ts,   ev->actor,
                            ev->type,   data_json, ev->prev, ev->hash};
    return run_done(PG(c), PS_EVENT_INSERT, 8, params);
}

static json_t *pg_events_page_new(store_conn *c, const char *session_id, int64_t after,
                                  int64_t limit) {
    char a[24], l[24];
    snprintf(a, sizeof a, "%" PRId64, after);
    snprintf(l, sizeof l, "%" PRId64, limit);
    const char *params[] = {session_id, a, l};
    PGresult *r = run(PG(c), PS_EVENTS_PAGE, 3, params);
    if (!r) return NULL;
    json_t *list = json_array();
    for (int i = 0; list && i < PQntuples(r); i++) {
        json_t *data = value_json(r, i, 4);
        json_t *ev = json_pack(
            "{s:I, s:s, s:s, s:s, s:o, s:s, s:s}", "seq", (json_int_t)value_int(r, i, 0), "ts",
            PQgetvalue(r, i, 1), "actor", PQgetvalue(r, i, 2), "type", PQgetvalue(r, i, 3), "data",
            data ? data : json_null(), "prev", PQgetvalue(r, i, 5), "hash", PQgetvalue(r, i, 6));
        if (!ev || json_array_append_new(list, ev) != 0) {
            json_decref(list);
            list = NULL;
        }
    }
    PQclear(r);
    return list;
}

static int pg_idem_get(store_conn *c, const char *session_id, const char *caller, const char *key,
                       uint8_t digest[32], char **response) {
    const char *params[] = {session_id, caller, key};
    PGresult *r = run(PG(c), PS_IDEM_GET, 3, params);
    if (!r) return -1;
    int found = 0;
    if (PQntuples(r) == 1 && bytea_get(r, 0, 0, digest, 32) == 0) {
        *response = strdup(PQgetvalue(r, 0, 1));
        found = *response ? 1 : -1;
    }
    PQclear(r);
    return found;
}

static int pg_idem_insert(store_conn *c, const char *session_id, const char *caller,
                          const char *key, const uint8_t digest[32], const char *response) {
    char hex[2 + 64 + 1];
    bytea_hex(digest, 32, hex);
    const char *params[] = {session_id, caller, key, hex, response};
    return run_done(PG(c), PS_IDEM_INSERT, 5, params);
}

/* Rare: not prepared. */
static PGresult *params_exec(pgstore_conn *p, const char *sql, int n, const char *const *params) {
    revive(p);
    PGresult *r = PQexecParams(p->pg, sql, n, NULL, params, NULL, NULL, 0);
    if (!result_ok(r)) {
        set_err(p, NULL);
        keep_sqlstate(p, r);
        PQclear(r);
        return NULL;
    }
    return r;
}

static int pg_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list) {
    const char *del[] = {session_id};
    PGresult *r = params_exec(PG(c), "DELETE FROM webhooks WHERE session_id = $1", 1, del);
    if (!r) return -1;
    PQclear(r);
    for (size_t i = 0; i < list->n; i++) {
        char pos[24];
        snprintf(pos, sizeof pos, "%zu", i);
        const char *ins[] = {session_id, pos, list->hooks[i].url,
                             webhook_format_name(list->hooks[i].format),
                             list->hooks[i].mentions[0] ? list->hooks[i].mentions : NULL};
        r = params_exec(PG(c),
                        "INSERT INTO webhooks (session_id, position, url, format, mentions) "
                        "VALUES ($1, $2, $3, $4, $5)",
                        5, ins);
        if (!r) return -1;
        PQclear(r);
    }
    return 0;
}

static int pg_webhooks_rows(store_conn *c,
                            void (*row)(void *arg, const char *session_id, const char *url,
                                        const char *format, const char *mentions, int64_t version),
                            void *arg) {
    PGresult *r = params_exec(PG(c),
                              "SELECT w.session_id, w.url, w.format, s.version, w.mentions "
                              "FROM webhooks w "
                              "JOIN sessions s ON s.id = w.session_id "
                              "ORDER BY w.session_id, w.position",
                              0, NULL);
    if (!r) return -1;
    for (int i = 0; i < PQntuples(r); i++)
        row(arg, PQgetvalue(r, i, 0), PQgetvalue(r, i, 1), PQgetvalue(r, i, 2),
            PQgetisnull(r, i, 4) ? NULL : PQgetvalue(r, i, 4), value_int(r, i, 3));
    PQclear(r);
    return 0;
}

/* Sealed orders are rare: not prepared. */
static int pg_orders_put(store_conn *c, const char *session_id, const char *side,
                         const char *body) {
    const char *params[] = {session_id, side, body};
    PGresult *r = params_exec(PG(c),
                              "INSERT INTO sealed_orders (session_id, side, body) "
                              "VALUES ($1, $2, $3) ON CONFLICT (session_id, side) "
                              "DO UPDATE SET body = excluded.body",
                              3, params);
    if (!r) return -1;
    PQclear(r);
    return 0;
}

static json_t *pg_orders_rows_new(store_conn *c, const char *session_id) {
    const char *params[] = {session_id};
    PGresult *r = params_exec(PG(c),
                              "SELECT side, body FROM sealed_orders WHERE session_id = $1 "
                              "ORDER BY side",
                              1, params);
    if (!r) return NULL;
    json_t *rows = json_array();
    for (int i = 0; rows && i < PQntuples(r); i++)
        json_array_append_new(rows, json_pack("[s,s]", PQgetvalue(r, i, 0), PQgetvalue(r, i, 1)));
    PQclear(r);
    return rows;
}

static int pg_orders_clear(store_conn *c, const char *session_id) {
    const char *params[] = {session_id};
    PGresult *r = params_exec(PG(c), "DELETE FROM sealed_orders WHERE session_id = $1", 1, params);
    if (!r) return -1;
    PQclear(r);
    return 0;
}

/* ---- export and import ---------------------------------------------------------------------- */

static int pg_dump_table(store_conn *c, const store_table_def *t,
                         int (*fn)(void *arg, const json_t *row), void *arg) {
    pgstore_conn *p = PG(c);
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    for (int i = 0; t->columns[i]; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", i ? ", " : "", t->columns[i]);
    snprintf(sql + len, sizeof sql - len, " FROM %s ORDER BY %s", t->name, t->order_by);
    revive(p);
    /* Row by row: a big events table is never held whole in memory. */
    if (!PQsendQuery(p->pg, sql) || !PQsetSingleRowMode(p->pg)) {
        set_err(p, NULL);
        return -1;
    }
    int out = 0;
    bool failed = false;
    PGresult *r;
    while ((r = PQgetResult(p->pg))) {
        ExecStatusType s = PQresultStatus(r);
        if (s == PGRES_SINGLE_TUPLE && out == 0) {
            json_t *row = json_object();
            for (int i = 0; row && t->columns[i]; i++) {
                json_t *v;
                const char *text = PQgetvalue(r, 0, i);
                if (PQgetisnull(r, 0, i))
                    v = json_null();
                else if (t->blob_mask & (1u << i))
                    v = json_string(strncmp(text, "\\x", 2) == 0 ? text + 2 : text);
                else if (t->int_mask & (1u << i))
                    v = json_integer(strtoll(text, NULL, 10));
                else
                    v = json_string(text);
                if (!v || json_object_set_new(row, t->columns[i], v) != 0) {
                    json_decref(row);
                    row = NULL;
                }
            }
            out = row ? fn(arg, row) : -1;
            json_decref(row);
        } else if (s != PGRES_SINGLE_TUPLE && s != PGRES_TUPLES_OK) {
            set_err(p, NULL);
            failed = true;
        }
        PQclear(r);
    }
    return failed || out != 0 ? -1 : 0;
}

static int pg_load_row(store_conn *c, const store_table_def *t, const json_t *row) {
    char sql[1024];
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO %s (", t->name);
    int n = 0;
    for (; t->columns[n]; n++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", n ? ", " : "", t->columns[n]);
    len += (size_t)snprintf(sql + len, sizeof sql - len, ") VALUES (");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s$%d", i ? ", " : "", i + 1);
    snprintf(sql + len, sizeof sql - len, ")");
    const char *params[STORE_COLUMNS_MAX] = {0};
    char *owned[STORE_COLUMNS_MAX] = {0};
    int rc = n <= STORE_COLUMNS_MAX ? 0 : -1;
    for (int i = 0; i < n && rc == 0; i++) {
        const json_t *v = json_object_get(row, t->columns[i]);
        if (!v || json_is_null(v)) continue;
        if (t->blob_mask & (1u << i)) {
            const char *hex = json_string_value(v);
            size_t hl = hex ? strlen(hex) : 1;
            if (hl % 2 || strspn(hex, "0123456789abcdefABCDEF") != hl)
                rc = -1;
            else if ((owned[i] = malloc(hl + 3)))
                snprintf(owned[i], hl + 3, "\\x%s", hex), params[i] = owned[i];
            else
                rc = -1;
        } else if (t->int_mask & (1u << i)) {
            if (!json_is_integer(v) || !(owned[i] = malloc(24))) {
                rc = -1;
                break;
            }
            snprintf(owned[i], 24, "%" PRId64, (int64_t)json_integer_value(v));
            params[i] = owned[i];
        } else if (json_is_string(v)) {
            params[i] = json_string_value(v);
        } else {
            rc = -1;
        }
    }
    if (rc == 0) {
        PGresult *r = params_exec(PG(c), sql, n, params);
        rc = r ? 0 : -1;
        PQclear(r);
    }
    for (int i = 0; i < STORE_COLUMNS_MAX; i++)
        free(owned[i]);
    return rc;
}

const store_ops store_pg_ops = {
    .close = pg_close,
    .errmsg = pg_errmsg,
    .exec = pg_exec,
    .migrate = pg_migrate,
    .tx = pg_tx,
    .session_get = pg_session_get,
    .session_insert = pg_session_insert,
    .session_update = pg_session_update,
    .session_seed_update = pg_session_seed_update,
    .session_recount_bytes = pg_session_recount_bytes,
    .session_last_event = pg_session_last_event,
    .last_fault = pg_last_fault,
    .probe_write = pg_probe_write,
    .session_version = pg_session_version,
    .lock_sessions = pg_lock_sessions,
    .notify = pg_notify,
    .token_insert = pg_token_insert,
    .token_set = pg_token_set,
    .token_delete = pg_token_delete,
    .tokens_each = pg_tokens_each,
    .event_insert = pg_event_insert,
    .events_page_new = pg_events_page_new,
    .idem_get = pg_idem_get,
    .idem_insert = pg_idem_insert,
    .webhooks_replace = pg_webhooks_replace,
    .orders_put = pg_orders_put,
    .orders_rows_new = pg_orders_rows_new,
    .orders_clear = pg_orders_clear,
    .webhooks_rows = pg_webhooks_rows,
    .dump_table = pg_dump_table,
    .load_row = pg_load_row,
};
