#include "server/store/session_write.h"

#include "protocol/api_error.h"
#include "protocol/jcs.h"
#include "rules/dice_source.h"
#include "rules/common/orders.h"
#include "rules/common/resolve.h"
#include "rules/ruleset.h"
#include "server/audit/chain.h"
#include "server/core/alloc_guard.h"
#include "server/core/crypto.h"
#include "server/core/log.h"
#include "server/dice/entropy.h"
#include "server/dice/seeded_source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void answer_json(write_job *job, int status, json_t *body_take) {
    free(job->body);
    /* Answers of writes hold no real numbers: the JCS writer is the faster serialiser. */
    job->body = body_take ? jcs_dump_new(body_take, NULL) : NULL;
    json_decref(body_take);
    if (!job->body) {
        api_error e = {0};
        api_error_set(&e, 500, "internal_error", NULL, "out of memory while answering");
        job->status = 500;
        job->body = api_error_body_new(&e, &job->body_len);
        api_error_clear(&e);
        return;
    }
    job->status = status;
    job->body_len = strlen(job->body);
}

static void answer_error(write_job *job, api_error *e) {
    free(job->body);
    job->status = e->status;
    job->body = api_error_body_new(e, &job->body_len);
    api_error_clear(e);
}

static void answer_storage_error(write_job *job, store_conn *conn) {
    api_error e = {0};
    job->fault = store_last_fault(conn); /* what /v1/health reports (server/store/writer.h) */
    log_msg(LOG_ERROR, "storage error in session %s: %s", job->session_id, store_errmsg(conn));
    api_error_set(&e, 503, "storage_unavailable", NULL,
                  "the database could not store the change; nothing was written, try again");
    answer_error(job, &e);
}

/* Where the next event goes: the session's version, head and bytes of event data, updated in
 * place by each append. */
typedef struct chain_end {
    int64_t version;
    char head[65];
    int64_t data_bytes;
} chain_end;

static chain_end chain_end_of(const session_row *s) {
    chain_end e = {.version = s->version, .data_bytes = s->data_bytes};
    memcpy(e.head, s->head, sizeof e.head);
    return e;
}

/* Appends one event after `end`, its data already in canonical form (hashed, and stored as it
 * was hashed); moves `end` on and adds {"hash","seq","type"} of it to the canonical array
 * `written` (the caller opens and closes it). 0 or -1. */
static int append_event(store_conn *conn, const char *session_id, chain_end *end, const char *ts,
                        const char *actor, const char *type, const char *data_jcs, size_t len,
                        jcs_out *written) {
    int64_t *version = &end->version;
    char *head = end->head;
    char hash[65];
    int64_t seq = *version + 1;
    if (!type || !data_jcs || chain_event_hash_jcs(head, seq, ts, actor, type, data_jcs, len, hash))
        return -1;
    event_row row = {seq, ts, actor, type, head, hash, NULL, data_jcs};
    if (store_event_insert(conn, session_id, &row) != 0) return -1;
    if (written->len > 1) jcs_out_lit(written, ","); /* after the "[" */
    jcs_out_lit(written, "{\"hash\":\"");
    jcs_out_raw(written, hash, 64);
    jcs_out_lit(written, "\",\"seq\":");
    jcs_out_int(written, seq);
    jcs_out_lit(written, ",\"type\":");
    jcs_out_string(written, type, strlen(type));
    jcs_out_lit(written, "}");
    *version = seq;
    memcpy(head, hash, 65);
    end->data_bytes += (int64_t)len;
    return written->failed ? -1 : 0;
}

/* Appends events [{"type","data"}...] (a JSON array) with append_event. 0 or -1. */
static int append_events(store_conn *conn, const char *session_id, chain_end *end, const char *ts,
                         const char *actor, const json_t *events, jcs_out *written) {
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        size_t len = 0;
        char *data_jcs = jcs_dump_new(json_object_get(ev, "data"), &len);
        int rc =
            append_event(conn, session_id, end, ts, actor,
                         json_string_value(json_object_get(ev, "type")), data_jcs, len, written);
        free(data_jcs);
        if (rc != 0) return -1;
    }
    return 0;
}

/* A 2xx answer from composed canonical text (answer_json's out-of-memory rule if it failed). */
static void answer_text(write_job *job, int status, jcs_out *text) {
    free(job->body);
    job->body = jcs_out_take(text, &job->body_len);
    if (!job->body) {
        answer_json(job, status, NULL);
        return;
    }
    job->status = status;
}

static void random_hex(char *out, size_t nbytes) {
    uint8_t buf[32];
    if (crypto_random_bytes(buf, nbytes) != 0) abort(); /* no CSPRNG: never hand out weak ids */
    crypto_hex_encode(buf, nbytes, out);
}

/* A row read from the database against its last event: the head the writer would extend must be
 * the hash of the last stored event, at the row's version. One indexed read per cache miss
 * (cached rows were checked when read, and only the writer changes them). 0 when they match; -1
 * with the job answered (503 storage_corrupt, nothing written; or a storage error). */
static int check_chain_end(store_conn *conn, const session_row *row, write_job *job) {
    int64_t seq = 0;
    char hash[65] = "";
    int found = store_session_last_event(conn, row->id, &seq, hash);
    if (found < 0) {
        answer_storage_error(job, conn);
        return -1;
    }
    if (found && seq == row->version && strcmp(hash, row->head) == 0) return 0;
    log_msg(LOG_ERROR,
            "session %s: its chain does not match its head (the row says version %lld, head "
            "%.16s...; the last event is %lld, hash %.16s...): refusing to append to it",
            row->id, (long long)row->version, row->head, (long long)(found ? seq : 0),
            found ? hash : "(none)");
    api_error err = {0};
    api_error_set(&err, 503, "storage_corrupt",
                  json_pack("{s:I, s:I}", "version", (json_int_t)row->version, "last_seq",
                            (json_int_t)(found ? seq : 0)),
                  "the session's stored chain does not match its head: the database was "
                  "damaged or changed outside the daemon; nothing was written (the operator "
                  "must restore it)");
    answer_error(job, &err);
    job->untouched = true; /* nothing of it was written: its batch may commit */
    return -1;
}

/* The job's session from the cache, read from the database on a miss (and checked, above).
 * Borrowed: the caller changes it only after the job's writes succeeded. NULL when the job is
 * answered (404, 503 storage_corrupt, or a storage error). */
static session_row *load_session(store_conn *conn, session_cache *cache, write_job *job) {
    session_row *cached = session_cache_borrow(cache, job->session_id);
    if (cached) return cached;
    session_row row;
    int found = store_session_get(conn, job->session_id, &row);
    if (found < 0) {
        answer_storage_error(job, conn);
        return NULL;
    }
    if (found == 0) {
        api_error err = {0};
        api_error_set(&err, 404, "session_not_found", NULL, "there is no such session");
        answer_error(job, &err);
        return NULL;
    }
    if (check_chain_end(conn, &row, job) != 0) {
        session_row_clear(&row); /* not cached: every later write checks it again */
        return NULL;
    }
    session_cache_put_take(cache, &row);
    cached = session_cache_borrow(cache, job->session_id);
    if (!cached) answer_storage_error(job, conn); /* no memory to cache it */
    return cached;
}

/* expect_version (optional) against the session's version: true with the 409 in err when they
 * differ. */
static bool version_conflict(bool has_expected, int64_t expected, const session_row *s,
                             api_error *err) {
    if (!has_expected || expected == s->version) return false;
    api_error_set(
        err, 409, "version_conflict",
        json_pack("{s:I, s:I}", "expected", (json_int_t)expected, "actual", (json_int_t)s->version),
        "the session is at version %lld, not %lld", (long long)s->version, (long long)expected);
    return true;
}

/* ---- the session's bounds (config [limits], server/store/writer.h) ---------------------- */

static void state_error(const writer_limits *lim, int64_t len, bool would, api_error *err) {
    api_error_set(err, 413, "state_too_large",
                  json_pack("{s:I, s:I}", "max_state_bytes", (json_int_t)lim->max_state_bytes,
                            "state_bytes", (json_int_t)len),
                  "the session's state %s %lld bytes, more than this daemon's limit of %lld "
                  "(limits.max_state_bytes); nothing was written",
                  would ? "would be" : "is", (long long)len, (long long)lim->max_state_bytes);
}

/* The canonical JSON length of state (as stored) into *len: 0, or -1 out of memory. */
static int state_size(const json_t *state, int64_t *len) {
    size_t n = 0;
    char *text = jcs_dump_new(state, &n);
    if (!text) return -1;
    free(text);
    *len = (int64_t)n;
    return 0;
}

/* 1 with the 413 in err when state's canonical JSON (as stored) passes max_state_bytes, 0 when it
 * fits, -1 out of memory. *len (if not NULL) gets the size. */
static int state_too_large(const writer_limits *lim, const json_t *state, int64_t *len,
                           api_error *err) {
    int64_t n = 0;
    if (lim->max_state_bytes <= 0 && !len) return 0;
    if (state_size(state, &n) != 0) return -1;
    if (len) *len = n;
    if (lim->max_state_bytes <= 0 || n <= lim->max_state_bytes) return 0;
    state_error(lim, n, true, err);
    return 1;
}

/* True with the 422 in err when the session holds max_events_per_session events already, or
 * adding `adding` bytes of event data would pass max_session_bytes. */
static bool session_full(const writer_limits *lim, const session_row *s, int64_t adding,
                         api_error *err) {
    if (lim->max_events_per_session > 0 && s->version >= lim->max_events_per_session) {
        api_error_set(err, 422, "session_full",
                      json_pack("{s:I, s:I}", "max_events_per_session",
                                (json_int_t)lim->max_events_per_session, "events",
                                (json_int_t)s->version),
                      "the session holds %lld events, this daemon's limit "
                      "(limits.max_events_per_session); nothing was written",
                      (long long)s->version);
        return true;
    }
    if (lim->max_session_bytes > 0 && s->data_bytes + adding > lim->max_session_bytes) {
        api_error_set(err, 422, "session_full",
                      json_pack("{s:I, s:I, s:I}", "max_session_bytes",
                                (json_int_t)lim->max_session_bytes, "session_bytes",
                                (json_int_t)s->data_bytes, "adding", (json_int_t)adding),
                      "the session's events would hold %lld bytes of data, more than this "
                      "daemon's limit of %lld (limits.max_session_bytes); nothing was written",
                      (long long)(s->data_bytes + adding), (long long)lim->max_session_bytes);
        return true;
    }
    return false;
}

/* Bytes of the data of events [{"type","data"}...] (NULL: none) as they would be stored; -1 out
 * of memory. Rare (a module's extra events), so serialised twice. */
static int64_t extra_events_bytes(const json_t *events) {
    int64_t total = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(events, i, ev) {
        size_t len = 0;
        char *text = jcs_dump_new(json_object_get(ev, "data"), &len);
        if (!text) return -1;
        free(text);
        total += (int64_t)len;
    }
    return total;
}

/* ---- create ------------------------------------------------------------------------------ */

static void run_create(store_conn *conn, const writer_limits *lim, write_job *job) {
    const create_request *req = &job->create;
    session_row row = {0};
    random_hex(row.id, 16);
    snprintf(job->session_id, sizeof job->session_id, "%s", row.id);
    snprintf(row.ruleset, sizeof row.ruleset, "%s", req->rs->id);
    row.ruleset_version = req->rs->version;
    snprintf(row.title, sizeof row.title, "%s", req->title);
    row.sides = req->sides;
    snprintf(row.visibility, sizeof row.visibility, "%s", req->public_ ? "public" : "private");
    row.options = req->options;
    snprintf(row.dice_mode, sizeof row.dice_mode, "%s", dice_mode_name(req->mode));
    if (req->manual_by_referee) snprintf(row.manual_by, sizeof row.manual_by, "referee");
    row.next_nonce = 1;
    row.seed_first_nonce = 1;
    row.state = req->state;
    api_error err = {0};
    int big = state_too_large(lim, row.state, &row.state_bytes, &err);
    if (big) {
        if (big < 0)
            answer_storage_error(job, conn);
        else
            answer_error(job, &err);
        job->session_id[0] = '\0'; /* no session was made */
        return;
    }

    json_t *dice = json_pack("{s:s}", "mode", dice_mode_name(req->mode));
    if (req->manual_by_referee) json_object_set_new(dice, "manual_by", json_string("referee"));
    if (req->mode != DICE_MODE_MANUAL) {
        if (req->mode == DICE_MODE_SERVER) {
            if (crypto_random_bytes(row.seed, 32) != 0) abort();
        } else {
            memcpy(row.seed, req->seed, 32);
        }
        row.has_seed = true;
        uint8_t digest[32];
        crypto_sha256(row.seed, 32, digest);
        crypto_hex_encode(digest, 32, row.commitment);
        json_object_set_new(dice, "commitment", json_string(row.commitment));
    }
    json_t *created_dice = json_deep_copy(dice);
    if (req->mode == DICE_MODE_SEEDED) {
        /* Seeded dice are public from the start: the log carries the seed. */
        char seed_hex[65];
        crypto_hex_encode(row.seed, 32, seed_hex);
        json_object_set_new(created_dice, "seed", json_string(seed_hex));
    }
    json_t *events = json_pack("[{s:s, s:{s:s, s:s, s:i, s:s, s:O, s:s, s:O, s:O, s:o}}]", "type",
                               "session_created", "data", "id", row.id, "ruleset", row.ruleset,
                               "ruleset_version", row.ruleset_version, "title", row.title, "sides",
                               row.sides, "visibility", row.visibility, "options", row.options,
                               "setup", req->setup, "dice", created_dice);

    /* The row first (events and tokens refer to it), then event 1, which sets version and
     * head, then the tokens: 256 random bits each, returned once, stored as digests only. */
    row.version = 0;
    memcpy(row.head, CHAIN_ZERO_HASH, 65);
    log_now_rfc3339(row.created_at);
    chain_end end = chain_end_of(&row);
    jcs_out written = {0}; /* the answer does not list the creation event */
    int rc = store_session_insert(conn, &row);
    if (rc == 0) rc = append_events(conn, row.id, &end, row.created_at, "server", events, &written);
    jcs_out_discard(&written);
    row.version = end.version;
    memcpy(row.head, end.head, sizeof row.head);
    row.data_bytes = end.data_bytes;
    if (rc == 0) rc = store_session_write_row(conn, &row);

    char token[65];
    uint8_t digest[32];
    json_t *tokens = json_object(), *side_tokens = json_object();
    random_hex(token, 32);
    crypto_sha256(token, 64, digest);
    json_object_set_new(tokens, "referee", json_string(token));
    if (rc == 0) rc = store_token_insert(conn, row.id, "referee", digest);
    size_t i;
    json_t *side;
    json_array_foreach(row.sides, i, side) {
        char role[48];
        snprintf(role, sizeof role, "side:%s", json_string_value(side));
        random_hex(token, 32);
        crypto_sha256(token, 64, digest);
        json_object_set_new(side_tokens, json_string_value(side), json_string(token));
        if (rc == 0) rc = store_token_insert(conn, row.id, role, digest);
    }
    json_object_set_new(tokens, "sides", side_tokens);
    json_decref(events);
    if (rc != 0) {
        json_decref(tokens);
        json_decref(dice);
        answer_storage_error(job, conn);
        return;
    }
    answer_json(job, 201,
                json_pack("{s:{s:s, s:s, s:I, s:s}, s:o, s:o}", "session", "id", row.id, "ruleset",
                          row.ruleset, "version", (json_int_t)row.version, "head", row.head,
                          "tokens", tokens, "dice", dice));
}

/* ---- action ------------------------------------------------------------------------------ */

/* The checks that precede resolution; 0 to go on, -1 with err set. */
static int check_action(const session_row *s, const write_job *job, const rules_action **action,
                        const json_t **unit, api_error *err) {
    const action_envelope *env = &job->action;
    const ruleset *rs = ruleset_find(s->ruleset);
    if (!rs) {
        api_error_set(err, 409, "not_applicable", NULL,
                      "this daemon no longer has the session's ruleset '%s'", s->ruleset);
        return -1;
    }
    /* A client's action is one of the ruleset's; the writer's own reveal of sealed orders too. */
    *action = job->kind == WRITE_ORDERS ? rules_action_find(rs, env->type)
                                        : ruleset_action(rs, env->type);
    if (!*action) {
        json_t *names = json_array();
        for (size_t i = 0; i < rs->nactions; i++)
            json_array_append_new(names, json_string(rs->actions[i].type));
        api_error_set(err, 422, "unknown_action", json_pack("{s:o}", "actions", names),
                      "ruleset '%s' has no action '%s'", rs->id, env->type);
        return -1;
    }
    *unit = NULL;
    if (env->has_unit) {
        *unit = rules_state_unit(s->state, env->unit);
        if (!*unit) {
            api_error_set(err, 422, "unknown_unit", json_pack("{s:s}", "unit", env->unit),
                          "there is no unit '%s' in this session", env->unit);
            return -1;
        }
        const char *side = json_string_value(json_object_get(*unit, "side"));
        if (strncmp(job->role, "side:", 5) == 0 && (!side || strcmp(side, job->role + 5) != 0)) {
            api_error_set(err, 403, "forbidden", json_pack("{s:s}", "unit", env->unit),
                          "unit '%s' belongs to side '%s', not to %s", env->unit, side ? side : "?",
                          job->role + 5);
            return -1;
        }
    }
    bool manual = strcmp(s->dice_mode, "manual") == 0;
    if (!manual && env->has_dice) {
        api_error_set(err, 422, "dice_not_allowed", NULL,
                      "this session rolls its own dice (%s mode): send no dice list", s->dice_mode);
        return -1;
    }
    if (manual && env->has_dice && strcmp(s->manual_by, "referee") == 0 &&
        strcmp(job->role, "referee") != 0) {
        api_error_set(err, 403, "forbidden", json_pack("{s:s}", "manual_by", "referee"),
                      "in this session only the referee types the dice: send the action without "
                      "dice and the referee will roll them at the table");
        return -1;
    }
    return 0;
}

/* The action as the event records it: type, unit and the ruleset's encoding of its fields. */
static json_t *recorded_action_new(const rules_action *a, const action_envelope *env,
                                   const void *decoded) {
    json_t *rec = a->encode(decoded);
    if (!rec) return NULL;
    json_object_set_new(rec, "type", json_string(env->type));
    if (env->has_unit) json_object_set_new(rec, "unit", json_string(env->unit));
    return rec;
}

static void run_action(store_conn *conn, session_cache *cache, const writer_limits *lim,
                       write_job *job) {
    const action_envelope *env = &job->action;
    api_error err = {0};
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    void *decoded = NULL;
    dice_source *ds = NULL;
    rules_outcome out = {0};
    jcs_out written = {0};
    char *stored = NULL, *result_jcs = NULL, *summary_jcs = NULL, *data_jcs = NULL;
    size_t result_len = 0, summary_len = 0;

    /* The key first: a retry of an action that already succeeded must get its stored answer,
     * even though expect_version no longer matches. */
    if (job->has_idempotency_key) {
        uint8_t digest[32];
        int got = store_idem_get(conn, s->id, job->role, job->idempotency_key, digest, &stored);
        if (got < 0) goto storage_fail;
        if (got > 0) {
            if (!crypto_ct_equal(digest, job->body_digest, 32)) {
                api_error_set(&err, 422, "idempotency_key_reused", NULL,
                              "this Idempotency-Key was used with a different request body");
                goto fail;
            }
            job->status = 200;
            job->body = stored;
            job->body_len = strlen(stored);
            job->replayed = true;
            stored = NULL;
            goto done;
        }
    }
    if (version_conflict(env->has_expect_version, env->expect_version, s, &err)) goto fail;
    /* Before any die: a full session refuses without rolling, and so does one whose state
     * already passed its bound (an action that drew secret dice commits whatever it adds:
     * below). */
    if (session_full(lim, s, 0, &err)) goto fail;
    if (lim->max_state_bytes > 0 && s->state_bytes > lim->max_state_bytes) {
        state_error(lim, s->state_bytes, false, &err);
        goto fail;
    }
    const rules_action *action;
    const json_t *unit;
    if (check_action(s, job, &action, &unit, &err) != 0) goto fail;
    decoded = calloc(1, action->decoded_size);
    if (!decoded) goto storage_fail;
    if (action->decode(env->fields, decoded, &err) != 0) goto fail;

    bool manual = strcmp(s->dice_mode, "manual") == 0;
    ds = manual ? dice_source_new_manual(env->dice, env->ndice)
                : dice_source_new_seeded(s->seed, s->id, (uint64_t)s->next_nonce);
    if (!ds) goto storage_fail;
    if (!manual) dice_source_set_entropy(ds, s->entropy_digest);
    rules_ctx ctx = {
        .state = s->state, .options = s->options, .actor = job->role, .unit = unit, .dice = ds};
    if (rules_resolve(ruleset_find(s->ruleset), action, &ctx, decoded, &out, &err) != 0) {
        if (!manual && dice_source_die_count(ds) > 0) {
            /* rules/ruleset.h: a module decides legality before its first die. One that refuses
             * after rolling would let the caller read the next secret die and take it back;
             * its message (which may name the die) is logged, never answered. */
            log_msg(LOG_ERROR, "session %s: ruleset %s refused '%s' after rolling %zu dice: %s",
                    s->id, s->ruleset, env->type, dice_source_die_count(ds), err.message);
            api_error_clear(&err);
            api_error_set(&err, 500, "internal_error", NULL,
                          "the rules refused this action after rolling dice, which they must "
                          "never do; nothing was written and the fault is logged");
            job->untouched = true; /* resolved before any write: the batch may commit */
        }
        goto fail;
    }
    if (dice_source_unsatisfied(ds)) {
        /* A claim (rules/common/claims.h) rolls nothing now: its dice come with the accept. */
        bool claim = json_is_true(json_object_get(out.result, "pending"));
        api_error_set(&err, 422, "dice_required",
                      json_pack("{s:o, s:I}", "needed", dice_source_needed_new(ds), "supplied",
                                (json_int_t)dice_source_supplied(ds)),
                      claim ? "this action becomes a claim and rolls no dice now: send it without "
                              "dice; the dice come with its accept"
                            : "this action needs the dice listed in details.needed, one value per "
                              "die, in order");
        goto fail;
    }
    /* The event's data and the answer are composed in canonical form from parts canonicalised
     * once (the result and the summary appear in both), members in RFC 8785 order:
     * data {action, dice, result, ruleset_version, summary};
     * answer {events, head, result, summary, version}. */
    const ruleset *rs = ruleset_find(s->ruleset);
    json_t *recorded = recorded_action_new(action, env, decoded);
    jcs_out o = {0};
    jcs_out_value(&o, out.result);
    result_jcs = jcs_out_take(&o, &result_len);
    jcs_out_string(&o, out.summary, strlen(out.summary));
    summary_jcs = jcs_out_take(&o, &summary_len);
    jcs_out_lit(&o, "{\"action\":");
    jcs_out_value(&o, recorded);
    json_decref(recorded);
    jcs_out_lit(&o, ",\"dice\":");
    dice_source_records_jcs(ds, &o);
    jcs_out_lit(&o, ",\"result\":");
    if (result_jcs) jcs_out_raw(&o, result_jcs, result_len);
    jcs_out_lit(&o, ",\"ruleset_version\":");
    jcs_out_int(&o, rs->version);
    jcs_out_lit(&o, ",\"summary\":");
    if (summary_jcs) jcs_out_raw(&o, summary_jcs, summary_len);
    jcs_out_lit(&o, "}");
    size_t data_len = 0;
    data_jcs = jcs_out_take(&o, &data_len);
    if (!result_jcs || !summary_jcs || !data_jcs) goto storage_fail;

    /* The session's event bounds, now that what it would store is known (nothing is written
     * yet). Once a secret die is drawn the action commits with what the dice decided (rules/
     * ruleset.h): refusing now would show whether the dice made it too large, a bit about a
     * die the caller could then take back. So such an action may pass the bound once; the
     * check before the first die (above) refuses the session's next action. Manual dice are
     * the caller's own, and an action that rolled nothing decides nothing by dice. The state's
     * size is learned when the row is written (session_cache_flush: the state is serialised
     * there anyway, once per batch), and checked before the next action's first die. */
    bool secret_dice = !manual && dice_source_die_count(ds) > 0;
    int64_t extra = extra_events_bytes(out.extra_events);
    if (extra < 0) goto storage_fail;
    if (!secret_dice && session_full(lim, s, (int64_t)data_len + extra, &err)) goto fail;
    chain_end end = chain_end_of(s);
    int64_t next_nonce = manual ? s->next_nonce : (int64_t)dice_source_next_nonce(ds);
    char ts[32];
    log_now_rfc3339(ts);
    jcs_out_lit(&written, "[");
    /* The session row itself is written once per batch (session_cache.h). */
    if (append_event(conn, s->id, &end, ts, job->role, env->type, data_jcs, data_len, &written) !=
            0 ||
        (out.extra_events &&
         append_events(conn, s->id, &end, ts, job->role, out.extra_events, &written)))
        goto storage_fail;
    jcs_out_lit(&written, "]");
    size_t written_len = 0;
    char *events_jcs = jcs_out_take(&written, &written_len);
    jcs_out_lit(&o, "{\"events\":");
    if (events_jcs) jcs_out_raw(&o, events_jcs, written_len);
    free(events_jcs);
    jcs_out_lit(&o, ",\"head\":\"");
    jcs_out_raw(&o, end.head, 64);
    jcs_out_lit(&o, "\",\"result\":");
    jcs_out_raw(&o, result_jcs, result_len);
    jcs_out_lit(&o, ",\"summary\":");
    jcs_out_raw(&o, summary_jcs, summary_len);
    jcs_out_lit(&o, ",\"version\":");
    jcs_out_int(&o, end.version);
    jcs_out_lit(&o, "}");
    if (!events_jcs) o.failed = 1;
    answer_text(job, 200, &o);
    if (job->status == 200 && job->has_idempotency_key &&
        store_idem_insert(conn, s->id, job->role, job->idempotency_key, job->body_digest,
                          job->body) != 0)
        goto storage_fail;
    if (alloc_guard_failed()) goto storage_fail; /* something built above may be incomplete */
    if (job->status == 200) {
        /* Every write of the job succeeded: the cached row follows. */
        s->version = end.version;
        job->version = end.version;
        memcpy(s->head, end.head, sizeof end.head);
        s->data_bytes = end.data_bytes;
        s->next_nonce = next_nonce;
        json_decref(s->state);
        s->state = out.new_state;
        out.new_state = NULL;
        session_cache_mark_dirty(cache, s->id);
    }
    goto done;

storage_fail:
    answer_storage_error(job, conn);
    goto done;
fail:
    answer_error(job, &err);
done:
    free(stored);
    free(decoded);
    dice_source_free(ds);
    rules_outcome_clear(&out);
    jcs_out_discard(&written);
    free(result_jcs);
    free(summary_jcs);
    free(data_jcs);
}

/* ---- reveal and players' entropy: one event the caller asks the server for -------------- */

/* What append_for_caller wrote: the session's version and head after it, and the canonical
 * [{"hash","seq","type"}] of the events (owned). */
typedef struct appended {
    int64_t version;
    char head[65];
    int64_t data_bytes;
    char *events_jcs;
    size_t events_len;
} appended;

/* Appends events ([{"type","data"}]) after the session's head, as the caller's (job->role). 0, or
 * -1 (a storage error or out of memory: nothing of it may be acknowledged). */
static int append_for_caller(store_conn *conn, const session_row *s, const write_job *job,
                             const json_t *events, appended *a) {
    jcs_out written = {0};
    char ts[32];
    chain_end end = chain_end_of(s);
    log_now_rfc3339(ts);
    jcs_out_lit(&written, "[");
    int rc = events ? append_events(conn, s->id, &end, ts, job->role, events, &written) : -1;
    a->version = end.version;
    memcpy(a->head, end.head, sizeof a->head);
    a->data_bytes = end.data_bytes;
    if (rc != 0) {
        jcs_out_discard(&written);
        return -1;
    }
    jcs_out_lit(&written, "]");
    a->events_jcs = jcs_out_take(&written, &a->events_len);
    return a->events_jcs ? 0 : -1;
}

/* The 200 answer {<before>"events":[...],"head":"...",<after>"version":n}: before and after are
 * canonical members, each ending with a comma (RFC 8785 order is the caller's care). */
static void answer_appended(write_job *job, const char *before, const char *after,
                            const appended *a) {
    jcs_out o = {0};
    jcs_out_lit(&o, "{");
    jcs_out_raw(&o, before, strlen(before));
    jcs_out_lit(&o, "\"events\":");
    jcs_out_raw(&o, a->events_jcs, a->events_len);
    jcs_out_lit(&o, ",\"head\":\"");
    jcs_out_raw(&o, a->head, 64);
    jcs_out_lit(&o, "\",");
    jcs_out_raw(&o, after, strlen(after));
    jcs_out_lit(&o, "\"version\":");
    jcs_out_int(&o, a->version);
    jcs_out_lit(&o, "}");
    answer_text(job, 200, &o);
}

/* After a 200: the cached row follows the events (true), or nothing changes (false). */
static bool cache_follows(session_cache *cache, session_row *s, write_job *job, const appended *a) {
    if (job->status != 200) return false;
    s->version = a->version;
    job->version = a->version;
    memcpy(s->head, a->head, sizeof s->head);
    s->data_bytes = a->data_bytes;
    session_cache_mark_dirty(cache, s->id);
    return true;
}

static void run_reveal(store_conn *conn, session_cache *cache, write_job *job) {
    api_error err = {0};
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    if (strcmp(s->dice_mode, "server") != 0 || !s->has_seed) {
        api_error_set(&err, 409, "not_applicable", NULL,
                      "only server-mode dice have a secret seed to reveal (this session: %s)",
                      s->dice_mode);
        answer_error(job, &err);
        return;
    }
    if (s->next_nonce <= s->seed_first_nonce) {
        /* Bounds reveals by dice: one per seed that rolled something. */
        api_error_set(&err, 409, "nothing_to_reveal",
                      json_pack("{s:I}", "next_nonce", (json_int_t)s->next_nonce),
                      "no die has been rolled under the current seed yet: there is nothing to "
                      "reveal");
        answer_error(job, &err);
        return;
    }
    uint8_t next_seed[32], digest[32];
    char seed_hex[65], next_commitment[65];
    if (crypto_random_bytes(next_seed, 32) != 0) abort();
    crypto_sha256(next_seed, 32, digest);
    crypto_hex_encode(digest, 32, next_commitment);
    crypto_hex_encode(s->seed, 32, seed_hex);
    json_int_t last_nonce = (json_int_t)s->next_nonce - 1;
    json_t *events = json_pack("[{s:s, s:{s:s, s:s, s:I, s:s}}]", "type", "dice_seed_revealed",
                               "data", "seed", seed_hex, "commitment", s->commitment, "last_nonce",
                               last_nonce, "next_commitment", next_commitment);
    appended a = {0};
    if (append_for_caller(conn, s, job, events, &a) != 0 ||
        store_session_seed_update(conn, s->id, next_seed, next_commitment, s->next_nonce) != 0) {
        answer_storage_error(job, conn);
    } else {
        /* {dice, events, head, revealed, version}, in RFC 8785 order. */
        jcs_out before = {0}, after = {0};
        jcs_out_lit(&before, "\"dice\":{\"commitment\":\"");
        jcs_out_raw(&before, next_commitment, 64);
        jcs_out_lit(&before, "\",\"mode\":\"server\"},");
        jcs_out_lit(&after, "\"revealed\":{\"commitment\":");
        jcs_out_string(&after, s->commitment, strlen(s->commitment));
        jcs_out_lit(&after, ",\"last_nonce\":");
        jcs_out_int(&after, last_nonce);
        jcs_out_lit(&after, ",\"seed\":\"");
        jcs_out_raw(&after, seed_hex, 64);
        jcs_out_lit(&after, "\"},");
        char *b = jcs_out_take(&before, NULL), *t = jcs_out_take(&after, NULL);
        if (b && t)
            answer_appended(job, b, t, &a);
        else
            answer_storage_error(job, conn);
        free(b);
        free(t);
    }
    if (alloc_guard_failed()) answer_storage_error(job, conn);
    if (cache_follows(cache, s, job, &a)) {
        memcpy(s->seed, next_seed, 32);
        memcpy(s->commitment, next_commitment, sizeof s->commitment);
        s->seed_first_nonce = s->next_nonce;
        /* The fresh seed was drawn after the contributions were known: they end here
         * (server/dice/entropy.h). */
        json_decref(s->entropy);
        s->entropy = NULL;
        s->entropy_digest[0] = '\0';
    }
    free(a.events_jcs);
    json_decref(events);
}

static void run_entropy(store_conn *conn, session_cache *cache, write_job *job) {
    api_error err = {0};
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    if (!s->has_seed || strcmp(s->dice_mode, "manual") == 0) {
        api_error_set(&err, 409, "not_applicable", NULL,
                      "this session's dice are typed at the table (%s mode): there is no seed to "
                      "mix a contribution into",
                      s->dice_mode);
        answer_error(job, &err);
        return;
    }
    if (version_conflict(job->has_expect_version, job->expect_version, s, &err)) {
        answer_error(job, &err);
        return;
    }
    if (entropy_pending(s->entropy, job->role, s->next_nonce)) {
        /* Once between two dice: bounds the events one caller can append. */
        api_error_set(&err, 409, "entropy_pending",
                      json_pack("{s:I}", "next_nonce", (json_int_t)s->next_nonce),
                      "your contribution is already in force for the next die; you may change "
                      "it after a die is rolled");
        answer_error(job, &err);
        return;
    }
    json_t *entropy = entropy_with_new(s->entropy, job->role, job->entropy_seed, s->next_nonce);
    json_t *in_force = entropy ? entropy_in_force_new(entropy) : NULL;
    char digest[65];
    json_t *events = NULL;
    if (in_force && entropy_digest_of_in_force(in_force, digest) == 0)
        events = json_pack("[{s:s, s:{s:s, s:s, s:O, s:s}}]", "type", "entropy_contributed", "data",
                           "role", job->role, "seed", job->entropy_seed, "in_force", in_force,
                           "digest", digest);
    appended a = {0};
    if (append_for_caller(conn, s, job, events, &a) != 0) {
        answer_storage_error(job, conn);
    } else {
        /* {entropy: {digest, in_force}, events, head, version}, in RFC 8785 order. */
        jcs_out before = {0};
        jcs_out_lit(&before, "\"entropy\":{\"digest\":\"");
        jcs_out_raw(&before, digest, 64);
        jcs_out_lit(&before, "\",\"in_force\":");
        jcs_out_value(&before, in_force);
        jcs_out_lit(&before, "},");
        char *b = jcs_out_take(&before, NULL);
        if (b)
            answer_appended(job, b, "", &a);
        else
            answer_storage_error(job, conn);
        free(b);
    }
    if (alloc_guard_failed()) answer_storage_error(job, conn);
    if (cache_follows(cache, s, job, &a)) {
        json_decref(s->entropy);
        s->entropy = entropy;
        entropy = NULL;
        memcpy(s->entropy_digest, digest, sizeof digest);
    }
    free(a.events_jcs);
    json_decref(entropy);
    json_decref(in_force);
    json_decref(events);
}

/* ---- webhooks: stored beside the session, not in its event stream -------------------------- */

static bool side_of_session(const session_row *s, const char *name);

static void run_webhooks(store_conn *conn, session_cache *cache, write_job *job) {
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    /* A hook's mentions name sides of the session (nothing is stored otherwise). */
    for (size_t i = 0; i < job->webhooks->n; i++) {
        const char *text = job->webhooks->hooks[i].mentions;
        json_t *mentions = text[0] ? json_loads(text, 0, NULL) : NULL;
        const char *side;
        json_t *v;
        json_object_foreach(mentions, side, v) {
            if (side_of_session(s, side)) continue;
            api_error err = {0};
            char field[48];
            snprintf(field, sizeof field, "webhooks[%zu].mentions", i);
            api_error_set(
                &err, 422, "unknown_side",
                json_pack("{s:s, s:s, s:O}", "field", field, "side", side, "sides", s->sides),
                "webhooks[%zu].mentions names '%s', which is not a side of this session", i, side);
            json_decref(mentions);
            answer_error(job, &err);
            return;
        }
        json_decref(mentions);
    }
    /* Other nodes reload the list when this commits (server/store/pg_listen.h; SQLite: nothing). */
    if (store_webhooks_replace(conn, s->id, job->webhooks) != 0 ||
        store_notify_webhooks(conn, s->id) != 0) {
        answer_storage_error(job, conn);
        return;
    }
    /* The loop thread answers with the dispatcher's view once the list is committed. */
    job->status = 200;
    job->version = s->version;
}

/* ---- tokens: the referee rotates a role's token, or revokes a side's --------------------- */

/* True when name is one of the session's sides. */
static bool side_of_session(const session_row *s, const char *name) {
    size_t i;
    json_t *side;
    json_array_foreach(s->sides, i, side) {
        if (json_is_string(side) && strcmp(json_string_value(side), name) == 0) return true;
    }
    return false;
}

/* True when role ("referee" or "side:<name>") is one of the session's. */
static bool role_of_session(const session_row *s, const char *role) {
    if (strcmp(role, "referee") == 0) return true;
    return strncmp(role, "side:", 5) == 0 && side_of_session(s, role + 5);
}

/* The checks of a token change, before anything is written: 0 to go on, -1 with err set (or
 * with the job answered: a storage error, *answered). */
static int check_token_change(store_conn *conn, const session_row *s, const writer_limits *lim,
                              write_job *job, api_error *err, bool *answered) {
    const char *role = job->token_role;
    if (!role_of_session(s, role)) {
        json_t *roles = json_array();
        json_array_append_new(roles, json_string("referee"));
        size_t i;
        json_t *side;
        json_array_foreach(s->sides, i, side) {
            json_array_append_new(roles, json_sprintf("side:%s", json_string_value(side)));
        }
        api_error_set(err, 422, "unknown_role",
                      json_pack("{s:s, s:o}", "role", role, "roles", roles),
                      "'%s' is not a role of this session (details.roles lists them)", role);
        return -1;
    }
    if (job->token_revoke && strcmp(role, "referee") == 0) {
        api_error_set(err, 409, "not_applicable", NULL,
                      "the referee's token cannot be revoked (a session always has a referee): "
                      "rotate it instead");
        return -1;
    }
    if (version_conflict(job->has_expect_version, job->expect_version, s, err)) return -1;
    if (session_full(lim, s, 0, err)) return -1;
    if (!job->token_revoke) return 0;
    int has = store_token_exists(conn, s->id, role);
    if (has < 0) {
        answer_storage_error(job, conn);
        *answered = true;
        return -1;
    }
    if (!has) {
        api_error_set(err, 409, "not_applicable", json_pack("{s:s}", "role", role),
                      "%s has no token to revoke (already revoked); rotate it to give it one",
                      role);
        return -1;
    }
    return 0;
}

/* Rotate: a new token for the role (returned once, stored as its digest); revoke: the side's
 * token is deleted. Either is an event on the chain, token_rotated / token_revoked {role}, never
 * with the token; other nodes forget the session's cached tokens when it commits. */
static void run_tokens(store_conn *conn, session_cache *cache, const writer_limits *lim,
                       write_job *job) {
    api_error err = {0};
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    bool answered = false;
    if (check_token_change(conn, s, lim, job, &err, &answered) != 0) {
        if (!answered) answer_error(job, &err);
        return;
    }
    const char *role = job->token_role;
    json_t *events =
        json_pack("[{s:s, s:{s:s}}]", "type", job->token_revoke ? "token_revoked" : "token_rotated",
                  "data", "role", role);
    int64_t adding = events ? extra_events_bytes(events) : -1;
    if (adding >= 0 && session_full(lim, s, adding, &err)) {
        json_decref(events);
        answer_error(job, &err);
        return;
    }
    char token[65] = "";
    if (!job->token_revoke) {
        random_hex(token, 32);
        crypto_sha256(token, 64, job->token_digest);
    }
    appended a = {0};
    int rc = adding < 0          ? -1
             : job->token_revoke ? (store_token_delete(conn, s->id, role) == 1 ? 0 : -1)
                                 : store_token_set(conn, s->id, role, job->token_digest);
    if (rc == 0) rc = append_for_caller(conn, s, job, events, &a);
    if (rc == 0) rc = store_notify_tokens(conn, s->id);
    if (rc != 0) {
        answer_storage_error(job, conn);
    } else {
        /* {events, head, role[, token], version}, in RFC 8785 order. */
        jcs_out after = {0};
        jcs_out_lit(&after, "\"role\":");
        jcs_out_string(&after, role, strlen(role));
        if (!job->token_revoke) {
            jcs_out_lit(&after, ",\"token\":\"");
            jcs_out_raw(&after, token, 64);
            jcs_out_lit(&after, "\"");
        }
        jcs_out_lit(&after, ",");
        char *t = jcs_out_take(&after, NULL);
        if (t)
            answer_appended(job, "", t, &a);
        else
            answer_storage_error(job, conn);
        free(t);
    }
    if (alloc_guard_failed()) answer_storage_error(job, conn);
    cache_follows(cache, s, job, &a);
    memset(token, 0, sizeof token);
    free(a.events_jcs);
    json_decref(events);
}

/* ---- sealed orders (rules/common/orders.h) ------------------------------------------------ */

/* The reveal's fields from the stored rows of this step and turn, in the order of play:
 * {step, turn, orders: [{side, salt, actions}], closed?} (new reference). Rows of another step or
 * turn (left by a referee's ruling out of sequence) are not this step's orders. */
static json_t *reveal_fields_new(const seq_turn *t, const char *step, const json_t *rows,
                                 bool closed) {
    json_t *orders = json_array();
    for (int i = 0; orders && i < t->norder; i++) {
        size_t k;
        const json_t *row;
        json_array_foreach(rows, k, row) {
            if (strcmp(json_string_value(json_array_get(row, 0)), t->order[i]) != 0) continue;
            json_t *body = json_loads(json_string_value(json_array_get(row, 1)), 0, NULL);
            const char *bstep = json_string_value(json_object_get(body, "step"));
            if (body && bstep && strcmp(bstep, step) == 0 &&
                json_integer_value(json_object_get(body, "turn")) == t->number)
                json_array_append_new(orders,
                                      json_pack("{s:s, s:O, s:O}", "side", t->order[i], "salt",
                                                json_object_get(body, "salt"), "actions",
                                                json_object_get(body, "orders")));
            json_decref(body);
        }
    }
    json_t *f = json_pack("{s:s, s:i, s:o}", "step", step, "turn", t->number, "orders", orders);
    if (f && closed) json_object_set_new(f, "closed", json_true());
    return f;
}

/* The reveal's answer, run_action's, with the seal's members when a seal completed the step. */
static void answer_revealed(write_job *job, const char *sealed_events, json_t *seal) {
    json_t *body = json_loadb(job->body, job->body_len, 0, NULL);
    json_t *events = json_object_get(body, "events");
    if (!body || !json_is_array(events)) {
        json_decref(body);
        return; /* run_action's answer stands (it answered without memory) */
    }
    if (sealed_events) {
        json_t *before = json_loads(sealed_events, 0, NULL);
        if (before) {
            json_array_extend(before, events);
            json_object_set_new(body, "events", before);
        }
    }
    json_object_update(body, seal);
    json_object_set_new(body, "revealed", json_true());
    answer_json(job, 200, body);
}

/* PUT /v1/sessions/{id}/orders/{step} (a side seals) and POST .../close (the referee closes):
 * the seal is checked, its commitment goes on the chain (orders_sealed, without the orders) and
 * the orders into the private table; once every acting side has sealed, or when the referee
 * closes, the reveal is resolved in the same job as an action (run_action, dice drawn only now)
 * and the private rows are deleted. */
static void run_orders(store_conn *conn, session_cache *cache, const writer_limits *lim,
                       write_job *job) {
    api_error err = {0};
    session_row *s = load_session(conn, cache, job);
    if (!s) return;
    const ruleset *rs = ruleset_find(s->ruleset);
    json_t *recorded = NULL, *rows = NULL, *fields = NULL, *seal = NULL, *sealed_state = NULL,
           *events = NULL;
    char *body = NULL;
    appended a = {0};
    seq_turn t;
    const char *step = rs ? orders_step_now(rs, s->state, &t) : NULL;
    if (!rs) {
        api_error_set(&err, 409, "not_applicable", NULL,
                      "this daemon no longer has the session's ruleset '%s'", s->ruleset);
        goto fail;
    }
    if (version_conflict(job->action.has_expect_version, job->action.expect_version, s, &err) ||
        session_full(lim, s, 0, &err))
        goto fail;
    if (job->orders_close) {
        if (strcmp(job->role, "referee") != 0) {
            api_error_set(&err, 403, "forbidden", NULL,
                          "only the referee closes a step of sealed orders");
            goto fail;
        }
        if (!step || strcmp(step, job->action.type) != 0) {
            if (step)
                api_error_set(&err, 409, "wrong_step",
                              json_pack("{s:s, s:i}", "step", step, "turn", t.number),
                              "the step being sealed now is '%s', not '%s'", step,
                              job->action.type);
            else
                api_error_set(&err, 409, "no_sealed_step", NULL,
                              "no phase of sealed orders is being played now");
            goto fail;
        }
    } else {
        if (orders_check(rs, s->state, s->options, job->role, job->action.type, job->action.fields,
                         &recorded, &err) != 0)
            goto fail;
        const char *side = job->role + 5;
        uint8_t salt[32];
        char salt_hex[65], commitment[65], summary[300];
        if (crypto_random_bytes(salt, sizeof salt) != 0) abort(); /* no CSPRNG: no secret */
        crypto_hex_encode(salt, sizeof salt, salt_hex);
        if (chain_orders_commitment(salt_hex, recorded, commitment) != 0) goto storage_fail;
        orders_sealed_summary(rs, s->state, side, summary, sizeof summary);
        events = json_pack("[{s:s, s:{s:s, s:s, s:s, s:s, s:i}}]", "type", "orders_sealed", "data",
                           "commitment", commitment, "side", side, "step", step, "summary", summary,
                           "turn", t.number);
        json_t *row = json_pack("{s:O, s:s, s:s, s:i}", "orders", recorded, "salt", salt_hex,
                                "step", step, "turn", t.number);
        size_t blen = 0;
        body = row ? jcs_dump_new(row, &blen) : NULL;
        json_decref(row);
        seal = json_pack("{s:s, s:O, s:s, s:s}", "commitment", commitment, "orders", recorded,
                         "salt", salt_hex, "step", step);
        sealed_state = orders_sealed_state_new(rs, s->state, side);
        if (!events || !body || !seal || !sealed_state) goto storage_fail;
        if (append_for_caller(conn, s, job, events, &a) != 0 ||
            store_orders_put(conn, s->id, side, body) != 0)
            goto storage_fail;
        if (alloc_guard_failed()) goto storage_fail;
        if (!orders_all_sealed(rs, sealed_state)) {
            /* {commitment, events, head, orders, revealed: false, salt, step, version} */
            json_t *ans =
                json_pack("{s:o?, s:s, s:I, s:b}", "events", json_loads(a.events_jcs, 0, NULL),
                          "head", a.head, "version", (json_int_t)a.version, "revealed", 0);
            if (!ans || !json_object_get(ans, "events") || json_object_update(ans, seal) != 0) {
                json_decref(ans);
                goto storage_fail;
            }
            answer_json(job, 200, ans);
            if (cache_follows(cache, s, job, &a)) {
                json_decref(s->state);
                s->state = sealed_state;
                sealed_state = NULL;
            }
            goto done;
        }
    }

    /* The reveal. The seal (if any) is written; the cached row follows it for run_action, and is
     * put back as it was if the reveal cannot be written (the savepoint takes both back). */
    rows = store_orders_rows_new(conn, s->id);
    if (!rows || store_orders_clear(conn, s->id) != 0) goto storage_fail;
    fields = reveal_fields_new(&t, step, rows, job->orders_close);
    if (!fields) goto storage_fail;
    int64_t version0 = s->version, bytes0 = s->data_bytes;
    char head0[65];
    memcpy(head0, s->head, sizeof head0);
    json_t *state0 = json_incref(s->state);
    if (seal) {
        s->version = a.version;
        memcpy(s->head, a.head, sizeof s->head);
        s->data_bytes = a.data_bytes;
        json_decref(s->state);
        s->state = json_incref(sealed_state);
    }
    action_envelope_clear(&job->action);
    snprintf(job->action.type, sizeof job->action.type, "%s", ORDERS_REVEALED);
    job->action.fields = json_incref(fields);
    job->has_idempotency_key = false;
    run_action(conn, cache, lim, job);
    if (job->status != 200) {
        s->version = version0;
        memcpy(s->head, head0, sizeof s->head);
        s->data_bytes = bytes0;
        json_decref(s->state);
        s->state = state0;
        goto done;
    }
    json_decref(state0); /* run_action moved the cached row on and marked it dirty */
    if (seal) {
        answer_revealed(job, a.events_jcs, seal);
    } else {
        json_t *closed = json_pack("{s:s}", "step", step);
        answer_revealed(job, NULL, closed);
        json_decref(closed);
    }
    goto done;

storage_fail:
    answer_storage_error(job, conn);
    goto done;
fail:
    answer_error(job, &err);
done:
    free(a.events_jcs);
    free(body);
    json_decref(recorded);
    json_decref(rows);
    json_decref(fields);
    json_decref(seal);
    json_decref(sealed_state);
    json_decref(events);
}

void session_write_run(store_conn *conn, session_cache *cache, const writer_limits *lim,
                       write_job *job) {
    switch (job->kind) {
    case WRITE_CREATE_SESSION:
        run_create(conn, lim, job);
        break;
    case WRITE_ACTION:
        run_action(conn, cache, lim, job);
        break;
    case WRITE_TOKENS:
        run_tokens(conn, cache, lim, job);
        break;
    case WRITE_REVEAL:
        run_reveal(conn, cache, job);
        break;
    case WRITE_WEBHOOKS:
        run_webhooks(conn, cache, job);
        break;
    case WRITE_ENTROPY:
        run_entropy(conn, cache, job);
        break;
    case WRITE_ORDERS:
        run_orders(conn, cache, lim, job);
        break;
    }
}
