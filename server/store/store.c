/* The storage interface: opens the backend the database name picks (the backend table,
 * server/store/store_backends.c) and dispatches to it through its ops. What both backends share
 * at this level lives here: the constant-time token check, the export/import table definitions,
 * the webhook list assembly. The row helpers the backends themselves call are in
 * server/store/store_rows.c, so that no backend calls back into this file. */
#include "server/store/store.h"

#include "protocol/jcs.h"
#include "server/core/crypto.h"
#include "server/dice/entropy.h"
#include "server/store/store_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

store_conn *store_conn_open(const char *db, const char *synchronous, int64_t busy_timeout_ms,
                            char *err, size_t errlen) {
    return store_backend_for(db)->open(db, synchronous, busy_timeout_ms, err, errlen);
}

void store_conn_close(store_conn *c) {
    if (c) c->ops->close(c);
}

const char *store_errmsg(store_conn *c) {
    return c->ops->errmsg(c);
}

int store_exec(store_conn *c, const char *sql) {
    return c->ops->exec(c, sql);
}

int store_migrate(store_conn *c, char *err, size_t errlen) {
    return c->ops->migrate(c, err, errlen);
}

int store_tx(store_conn *c, store_tx_id t) {
    return c->ops->tx(c, t);
}

int store_session_get(store_conn *c, const char *id, session_row *out) {
    int found = c->ops->session_get(c, id, out);
    if (found == 1 && entropy_digest(out->entropy, out->entropy_digest) != 0) {
        session_row_clear(out);
        return -1;
    }
    return found;
}

int store_session_insert(store_conn *c, const session_row *row) {
    return c->ops->session_insert(c, row);
}

int store_session_update(store_conn *c, const char *id, int64_t version, const char *head,
                         const json_t *state, int64_t next_nonce, const json_t *entropy) {
    char *text = store_dump_json_new(state);
    char *entropy_text = entropy ? store_dump_json_new(entropy) : NULL;
    int rc = text && (entropy_text || !entropy)
                 ? c->ops->session_update(c, id, version, head, text, next_nonce, entropy_text, -1)
                 : -1;
    free(text);
    free(entropy_text);
    return rc;
}

int store_session_write_row(store_conn *c, session_row *r) {
    char *text = store_dump_json_new(r->state);
    char *entropy_text = r->entropy ? store_dump_json_new(r->entropy) : NULL;
    int rc = text && (entropy_text || !r->entropy)
                 ? c->ops->session_update(c, r->id, r->version, r->head, text, r->next_nonce,
                                          entropy_text, r->data_bytes)
                 : -1;
    if (rc == 0) r->state_bytes = (int64_t)strlen(text); /* what limits.max_state_bytes reads */
    free(text);
    free(entropy_text);
    return rc;
}

int store_session_recount_bytes(store_conn *c, const char *id) {
    return c->ops->session_recount_bytes(c, id);
}

int store_session_last_event(store_conn *c, const char *id, int64_t *seq, char hash[65]) {
    return c->ops->session_last_event(c, id, seq, hash);
}

store_fault store_last_fault(store_conn *c) {
    return c->ops->last_fault(c);
}

store_fault store_probe_write(store_conn *c) {
    return c->ops->probe_write(c);
}

const char *store_fault_name(store_fault f) {
    static const char *const names[] = {"ok", "read_only", "full", "failing"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "failing";
}

int store_session_seed_update(store_conn *c, const char *id, const uint8_t seed[32],
                              const char *commitment, int64_t first_nonce) {
    return c->ops->session_seed_update(c, id, seed, commitment, first_nonce);
}

int64_t store_session_version(store_conn *c, const char *id) {
    return c->ops->session_version(c, id);
}

int store_lock_sessions(store_conn *c, const char (*ids)[33], size_t n, int64_t *versions) {
    return n ? c->ops->lock_sessions(c, ids, n, versions) : 0;
}

int store_notify(store_conn *c, const char *session_id, int64_t version) {
    char payload[64];
    snprintf(payload, sizeof payload, "%.32s %lld", session_id, (long long)version);
    return c->ops->notify(c, "umpire_events", payload);
}

int store_notify_webhooks(store_conn *c, const char *session_id) {
    return c->ops->notify(c, "umpire_webhooks", session_id);
}

int store_notify_tokens(store_conn *c, const char *session_id) {
    return c->ops->notify(c, "umpire_tokens", session_id);
}

int store_token_insert(store_conn *c, const char *session_id, const char *role,
                       const uint8_t digest[32]) {
    return c->ops->token_insert(c, session_id, role, digest);
}

int store_token_set(store_conn *c, const char *session_id, const char *role,
                    const uint8_t digest[32]) {
    return c->ops->token_set(c, session_id, role, digest);
}

int store_token_delete(store_conn *c, const char *session_id, const char *role) {
    return c->ops->token_delete(c, session_id, role);
}

typedef struct role_match {
    const char *role;
    bool found;
} role_match;

static void match_role(void *arg, const char *role, const uint8_t *digest, size_t len) {
    role_match *m = arg;
    (void)digest, (void)len;
    if (strcmp(role, m->role) == 0) m->found = true;
}

int store_token_exists(store_conn *c, const char *session_id, const char *role) {
    role_match m = {.role = role};
    return c->ops->tokens_each(c, session_id, match_role, &m) < 0 ? -1 : m.found;
}

typedef struct token_match {
    uint8_t digest[32];
    bool have_token;
    char *role;
    size_t rolelen;
    int found;
} token_match;

/* Compares against every token of the session, in constant time each, without stopping early:
 * the time taken does not depend on which (if any) token matched. */
static void match_token(void *arg, const char *role, const uint8_t *digest, size_t len) {
    token_match *m = arg;
    if (len != 32) return;
    if (crypto_ct_equal(digest, m->digest, 32) && m->have_token) {
        size_t n = strnlen(role, m->rolelen - 1);
        memcpy(m->role, role, n);
        m->role[n] = '\0';
        m->found = 1;
    }
}

int store_token_role(store_conn *c, const char *session_id, const char *token, char *role,
                     size_t rolelen) {
    token_match m = {.have_token = token != NULL, .role = role, .rolelen = rolelen};
    /* A NULL token matches nothing but still tells whether the session exists. */
    crypto_sha256(token ? token : "", token ? strlen(token) : 0, m.digest);
    int rows = c->ops->tokens_each(c, session_id, match_token, &m);
    if (rows < 0) return -1;
    return rows ? m.found : STORE_NO_SESSION;
}

int store_event_insert(store_conn *c, const char *session_id, const event_row *ev) {
    char *data = ev->data_text ? NULL : store_dump_json_new(ev->data);
    const char *text = ev->data_text ? ev->data_text : data;
    int rc = text ? c->ops->event_insert(c, session_id, ev, text) : -1;
    free(data);
    return rc;
}

json_t *store_events_page_new(store_conn *c, const char *session_id, int64_t after, int64_t limit) {
    return c->ops->events_page_new(c, session_id, after, limit);
}

int store_idem_get(store_conn *c, const char *session_id, const char *caller, const char *key,
                   uint8_t digest[32], char **response) {
    return c->ops->idem_get(c, session_id, caller, key, digest, response);
}

int store_idem_insert(store_conn *c, const char *session_id, const char *caller, const char *key,
                      const uint8_t digest[32], const char *response) {
    return c->ops->idem_insert(c, session_id, caller, key, digest, response);
}

int store_orders_put(store_conn *c, const char *session_id, const char *side, const char *body) {
    return c->ops->orders_put(c, session_id, side, body);
}

json_t *store_orders_rows_new(store_conn *c, const char *session_id) {
    return c->ops->orders_rows_new(c, session_id);
}

int store_orders_clear(store_conn *c, const char *session_id) {
    return c->ops->orders_clear(c, session_id);
}

int store_webhooks_replace(store_conn *c, const char *session_id, const webhook_list *list) {
    return c->ops->webhooks_replace(c, session_id, list);
}

typedef struct webhooks_gather {
    void (*fn)(void *arg, const char *session_id, const webhook_list *list, int64_t version);
    void *arg;
    webhook_list *list;
    char current[33];
    int64_t version;
} webhooks_gather;

static void gather_row(void *arg, const char *sid, const char *url, const char *format,
                       const char *mentions, int64_t version) {
    webhooks_gather *g = arg;
    if (!sid || !url || !format || strlen(sid) != 32) return;
    if (strcmp(sid, g->current) != 0) {
        if (g->current[0] && g->list->n) g->fn(g->arg, g->current, g->list, g->version);
        memset(g->list, 0, sizeof *g->list);
        memcpy(g->current, sid, 33);
        g->version = version;
    }
    webhook_format f;
    if (g->list->n == WEBHOOKS_MAX || strlen(url) > WEBHOOK_URL_MAX ||
        webhook_format_parse(format, &f) != 0 ||
        (mentions && strlen(mentions) >= WEBHOOK_MENTIONS_TEXT_MAX))
        return; /* not written by this daemon: skipped rather than trusted */
    webhook_spec *h = &g->list->hooks[g->list->n];
    memcpy(h->url, url, strlen(url) + 1);
    h->format = f;
    snprintf(h->mentions, sizeof h->mentions, "%s", mentions ? mentions : "");
    g->list->n++;
}

int store_webhooks_each(store_conn *c,
                        void (*fn)(void *arg, const char *session_id, const webhook_list *list,
                                   int64_t version),
                        void *arg) {
    webhooks_gather g = {.fn = fn, .arg = arg, .list = calloc(1, sizeof *g.list)};
    if (!g.list) return -1;
    int rc = c->ops->webhooks_rows(c, gather_row, &g);
    if (rc == 0 && g.current[0] && g.list->n) fn(arg, g.current, g.list, g.version);
    free(g.list);
    return rc;
}

/* ---- export and import ---------------------------------------------------------------------- */

static const char *const sessions_cols[] = {"id",
                                            "ruleset",
                                            "ruleset_version",
                                            "title",
                                            "sides",
                                            "visibility",
                                            "options",
                                            "dice_mode",
                                            "dice_seed",
                                            "dice_commitment",
                                            "next_nonce",
                                            "version",
                                            "head",
                                            "state",
                                            "created_at",
                                            "dice_manual_by",
                                            "entropy",
                                            "seed_first_nonce",
                                            "data_bytes",
                                            NULL};
static const char *const tokens_cols[] = {"session_id", "role", "digest", NULL};
static const char *const events_cols[] = {"session_id", "seq",  "ts",   "actor", "type",
                                          "data",       "prev", "hash", NULL};
static const char *const idem_cols[] = {"session_id",  "caller",   "key",
                                        "body_digest", "response", NULL};
static const char *const webhooks_cols[] = {"session_id", "position", "url",
                                            "format",     "mentions", NULL};
static const char *const orders_cols[] = {"session_id", "side", "body", NULL};

/* Bits: column index. Types follow migrations/0001_init.sql to 0006_sealed_orders.sql. */
static const store_table_def table_defs[] = {
    {"sessions", sessions_cols, 1u << 8,
     (1u << 2) | (1u << 10) | (1u << 11) | (1u << 17) | (1u << 18), "id"},
    {"tokens", tokens_cols, 1u << 2, 0, "session_id, role"},
    {"events", events_cols, 0, 1u << 1, "session_id, seq"},
    {"idempotency", idem_cols, 1u << 3, 0, "session_id, caller, key"},
    {"webhooks", webhooks_cols, 0, 1u << 1, "session_id, position"},
    {"sealed_orders", orders_cols, 0, 0, "session_id, side"},
};

const char *const store_dump_tables[] = {"sessions", "tokens",        "events", "idempotency",
                                         "webhooks", "sealed_orders", NULL};

static const store_table_def *table_def(const char *name) {
    for (size_t i = 0; i < sizeof table_defs / sizeof table_defs[0]; i++)
        if (strcmp(table_defs[i].name, name) == 0) return &table_defs[i];
    return NULL;
}

int store_dump_table(store_conn *c, const char *table, int (*fn)(void *arg, const json_t *row),
                     void *arg) {
    const store_table_def *t = table_def(table);
    return t ? c->ops->dump_table(c, t, fn, arg) : -1;
}

/* Copies row with column set to value_take (a copy: row is the caller's). NULL without memory. */
static json_t *row_with_new(const json_t *row, const char *column, json_t *value_take) {
    json_t *filled = json_copy((json_t *)row);
    if (filled && json_object_set_new(filled, column, value_take) == 0) return filled;
    json_decref(filled);
    return NULL;
}

/* What a row exported before migrations 0003 and 0004 lacks, as they fill it in. */
static json_t *row_before_0004_new(const char *table, const json_t *row) {
    json_t *filled = NULL;
    /* A key of an old export has no caller: '' matches none (it answers no retry, rather than
     * another caller's); the current seed's first nonce is taken as 1. */
    if (strcmp(table, "idempotency") == 0 && !json_object_get(row, "caller"))
        return row_with_new(row, "caller", json_string(""));
    if (strcmp(table, "sessions") != 0) return NULL;
    if (!json_object_get(row, "seed_first_nonce"))
        filled = row_with_new(row, "seed_first_nonce", json_integer(1));
    /* The import counts the bytes again once the events are in (store_session_recount_bytes). */
    if (!json_object_get(filled ? filled : row, "data_bytes")) {
        json_t *more = row_with_new(filled ? filled : row, "data_bytes", json_integer(0));
        json_decref(filled);
        filled = more;
    }
    return filled;
}

int store_load_row(store_conn *c, const char *table, const json_t *row) {
    const store_table_def *t = table_def(table);
    if (!t || !json_is_object(row)) return -1;
    json_t *filled = row_before_0004_new(table, row);
    int rc = c->ops->load_row(c, t, filled ? filled : row);
    json_decref(filled);
    return rc;
}
