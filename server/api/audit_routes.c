/* The audit endpoints: verify a session's log, and exact odds. Each runs on a bounded pool of its
 * own (server/api/work_pool.h: a long log, a large enumeration; a verify never waits behind
 * odds), writes nothing, and stops when its client has gone. */
#include "server/api/api_internal.h"
#include "server/api/odds.h"
#include "server/api/work_pool.h"
#include "server/audit/verify.h"
#include "server/core/alloc_guard.h"
#include "server/core/log.h"
#include "server/core/requests.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Events read at once by a verify: its memory is about a page of events (100 actions of 100 dice
 * each: a few MiB of JSON values), whatever the session's length. */
#define VERIFY_PAGE 100

/* ---- the pools ---------------------------------------------------------------------------- */

/* job->data is the request the job answers. */
static bool request_abandoned(work_job *job) {
    return http_request_abandoned(job->data);
}

static void respond_retry(http_request *req, int status, const char *code, json_t *details_take,
                          const char *message) {
    api_error e = {0};
    api_error_set(&e, status, code, details_take, "%s", message);
    size_t len;
    char *body = api_error_body_new(&e, &len);
    http_respond_take(req, status, JSON_TYPE, "Retry-After: 1\r\n", body, len);
    api_error_clear(&e);
}

/* Hands job to pool for req; 0, or -1 when it has answered (503 overloaded, 429 too_busy) and
 * nothing was taken. what: "odds requests", "verifications". */
static int submit(work_pool *pool, work_job *job, http_request *req, int64_t per_client,
                  const char *what) {
    job->data = req;
    job->abandoned = request_abandoned;
    work_pool_rc rc = pool ? work_pool_submit(pool, job, req->client) : WORK_POOL_FULL;
    char msg[200];
    if (rc == WORK_POOL_TOO_BUSY) {
        snprintf(msg, sizeof msg,
                 "this client already has %lld %s running or waiting; retry when one has "
                 "answered",
                 (long long)per_client, what);
        respond_retry(req, 429, "too_busy", json_pack("{s:I}", "limit", (json_int_t)per_client),
                      msg);
        return -1;
    }
    if (rc == WORK_POOL_FULL) {
        snprintf(msg, sizeof msg, "too many %s are waiting; retry shortly", what);
        respond_retry(req, 503, "overloaded", NULL, msg);
        return -1;
    }
    return 0;
}

/* The answer to a job cancelled because nobody waits for it: dropped when the client has gone;
 * a client still there sees the daemon stopping. */
static void respond_cancelled(http_request *req) {
    respond_simple_error(req, 503, "shutting_down", "the daemon is stopping; retry shortly");
}

/* ---- verify ------------------------------------------------------------------------------- */

typedef struct verify_work {
    work_job job; /* first: the pool's callbacks get it */
    api_ctx *ctx;
    http_request *req;
    char id[33];
    bool has_head;
    char head[65];
    json_t *report;
} verify_work;

/* Worker thread: its own read connection, one read transaction, so the log is one snapshot. The
 * log is read a page at a time and the verifier keeps no event, so memory does not grow with
 * the session (server/audit/pending_dice.h for the dice awaiting their seed). */
static void verify_run(work_job *job) {
    verify_work *vw = (verify_work *)job;
    alloc_guard_reset();
    char err[256];
    store_conn *c = store_conn_open(vw->ctx->db_path, vw->ctx->synchronous,
                                    vw->ctx->busy_timeout_ms, err, sizeof err);
    verifier *v = verifier_new();
    session_row s = {0};
    if (!c || !v || store_tx(c, STORE_TX_SNAPSHOT) != 0 || store_session_get(c, vw->id, &s) <= 0) {
        log_msg(LOG_ERROR, "verify %s: cannot read the session", vw->id);
        goto done;
    }
    if (vw->has_head) verifier_expect_head(v, vw->head);
    verifier_set_cancel(v, &job->cancel);
    int64_t after = 0;
    for (;;) {
        json_t *page = store_events_page_new(c, vw->id, after, VERIFY_PAGE);
        if (!page) goto done;
        size_t i, n = json_array_size(page);
        json_t *ev;
        json_array_foreach(page, i, ev) {
            if (work_job_cancelled(job)) break;
            verifier_feed(v, ev);
        }
        if (work_job_cancelled(job)) {
            json_decref(page);
            goto done;
        }
        if (n) after = json_integer_value(json_object_get(json_array_get(page, n - 1), "seq"));
        json_decref(page);
        if (n < VERIFY_PAGE) break;
    }
    verifier_finish(v, s.version, s.head);
    verifier_check_dice_state(v, s.next_nonce, s.entropy_digest,
                              strcmp(s.manual_by, "referee") == 0);
    /* A verdict reached on incompletely built values is no verdict: answer 503 instead. */
    if (!alloc_guard_failed() && !verifier_cancelled(v)) vw->report = verifier_report_new(v);
done:
    if (c) store_tx(c, STORE_TX_COMMIT);
    session_row_clear(&s);
    verifier_free(v);
    store_conn_close(c);
}

static void verify_done(work_job *job, bool cancelled) {
    verify_work *vw = (verify_work *)job;
    if (cancelled) { /* (flagged perhaps after it finished) */
        json_decref(vw->report);
        respond_cancelled(vw->req);
    } else if (vw->report)
        respond_json(vw->req, 200, vw->report, NULL);
    else
        respond_simple_error(vw->req, 503, "storage_unavailable", "the log could not be read");
    free(vw);
}

/* A query parameter of 64 lowercase hex digits: 1 found, 0 absent, -1 malformed. */
static int query_hex64(const char *query, const char *name, char out[65]) {
    size_t n = strlen(name);
    for (const char *p = query; p && *p;) {
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            const char *v = p + n + 1;
            size_t len = strcspn(v, "&");
            if (len != 64 || strspn(v, "0123456789abcdef") < 64) return -1;
            memcpy(out, v, 64);
            out[64] = '\0';
            return 1;
        }
        p = strchr(p, '&');
        if (p) p++;
    }
    return 0;
}

void api_get_verify(api_ctx *ctx, http_request *req, const route_match *m) {
    verify_work *vw = calloc(1, sizeof *vw);
    if (!vw) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    int got = query_hex64(req->query, "head", vw->head);
    if (got < 0) {
        free(vw);
        respond_bad_query(req, "head", "a chain head: 64 lowercase hex digits");
        return;
    }
    session_row s;
    if (!load_readable_session(ctx, req, m->params[0], &s)) {
        free(vw);
        return;
    }
    session_row_clear(&s);
    vw->has_head = got == 1;
    vw->ctx = ctx;
    vw->req = req;
    snprintf(vw->id, sizeof vw->id, "%s", m->params[0]);
    vw->job.run = verify_run;
    vw->job.done = verify_done;
    if (submit(ctx->verify_pool, &vw->job, req, ctx->limits.work_per_client, "verifications") != 0)
        free(vw);
}

/* ---- odds --------------------------------------------------------------------------------- */

typedef struct odds_work {
    work_job job; /* first: the pool's callbacks get it */
    http_request *req;
    const rules_action *action;
    void *decoded;
    json_t *state, *options, *unit;
    char actor[48];
    api_error err;
    json_t *answer;
} odds_work;

static void odds_work_free(odds_work *ow) {
    free(ow->decoded);
    json_decref(ow->state);
    json_decref(ow->options);
    json_decref(ow->unit);
    api_error_clear(&ow->err);
    free(ow);
}

static void odds_run(work_job *job) {
    odds_work *ow = (odds_work *)job;
    alloc_guard_reset();
    rules_ctx ctx = {.state = ow->state,
                     .options = ow->options,
                     .actor = ow->actor,
                     .unit = ow->unit,
                     .dice = NULL};
    ow->answer = odds_enumerate_cancellable_new(ow->action, ow->decoded, &ctx,
                                                ODDS_MAX_COMBINATIONS, &job->cancel, &ow->err);
    if (alloc_guard_failed()) { /* an incomplete distribution is a wrong one */
        json_decref(ow->answer);
        ow->answer = NULL;
        api_error_set(&ow->err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
    }
}

static void odds_done(work_job *job, bool cancelled) {
    odds_work *ow = (odds_work *)job;
    if (cancelled) { /* (flagged perhaps after it finished) */
        json_decref(ow->answer);
        respond_cancelled(ow->req);
    } else if (ow->answer)
        respond_json(ow->req, 200, ow->answer, NULL);
    else if (ow->err.status)
        respond_error(ow->req, &ow->err);
    else
        respond_simple_error(ow->req, 503, "overloaded", "the odds could not be computed");
    odds_work_free(ow);
}

/* Decodes the action of an odds request against a ruleset; fills ow. 0, or -1 with err. */
static int decode_odds_action(const ruleset *rs, const json_t *body, odds_work *ow,
                              action_envelope *env, api_error *err) {
    if (action_envelope_decode(body, env, err) != 0) return -1;
    ow->action = ruleset_action(rs, env->type);
    if (!ow->action) {
        api_error_set(err, 422, "unknown_action", NULL, "ruleset '%s' has no action '%s'", rs->id,
                      env->type);
        return -1;
    }
    ow->decoded = calloc(1, ow->action->decoded_size);
    if (!ow->decoded) {
        api_error_set(err, 500, "internal_error", NULL, "out of memory");
        return -1;
    }
    return ow->action->decode(env->fields, ow->decoded, err);
}

static void queue_odds(api_ctx *ctx, http_request *req, odds_work *ow) {
    ow->req = req;
    ow->job.run = odds_run;
    ow->job.done = odds_done;
    if (submit(ctx->odds_pool, &ow->job, req, ctx->limits.work_per_client, "odds requests") != 0)
        odds_work_free(ow);
}

/* POST /v1/rulesets/{rs}/odds: everything inline; "options" and "setup" may ride along for the
 * rulesets whose actions need a state. */
void api_post_ruleset_odds(api_ctx *ctx, http_request *req, const route_match *m) {
    const ruleset *rs = ruleset_find(m->params[0]);
    if (!rs) {
        respond_simple_error(req, 404, "ruleset_not_found",
                             "there is no such ruleset (GET /v1/rulesets lists them)");
        return;
    }
    json_t *body = json_body_new(req);
    if (!body) return;
    odds_work *ow = calloc(1, sizeof *ow);
    api_error err = {0};
    action_envelope env = {0};
    json_t *options = json_incref(json_object_get(body, "options")),
           *setup = json_incref(json_object_get(body, "setup"));
    json_object_del(body, "options");
    json_object_del(body, "setup");
    int rc = -1;
    if (!ow) {
        api_error_set(&err, 500, "internal_error", NULL, "out of memory");
    } else if ((options && !json_is_object(options)) || (setup && !json_is_object(setup))) {
        api_error_field(&err, options && !json_is_object(options) ? "options" : "setup",
                        "an object");
    } else {
        ow->options = options ? json_incref(options) : json_object();
        json_t *empty = json_object();
        ow->state = rs->init_state(ow->options, setup ? setup : empty, &err);
        json_decref(empty);
        if (ow->state) rc = decode_odds_action(rs, body, ow, &env, &err);
        /* The acting unit comes from the inline setup when there is one (rulesets whose actions
         * name their units, e.g. vaevictis-corbach-1760); without a setup, a ruleset takes
         * everything inline (magic-realm) and `unit` is only a label. */
        if (rc == 0 && env.has_unit && setup) {
            const json_t *u = rules_state_unit(ow->state, env.unit);
            ow->unit = u ? json_deep_copy(u) : NULL;
            if (!ow->unit) {
                api_error_set(&err, 422, "unknown_unit", json_pack("{s:s}", "unit", env.unit),
                              "there is no unit '%s' in the setup", env.unit);
                rc = -1;
            }
        }
    }
    if (ow) snprintf(ow->actor, sizeof ow->actor, "referee");
    json_decref(options);
    json_decref(setup);
    json_decref(body);
    action_envelope_clear(&env);
    if (rc != 0) {
        if (ow) odds_work_free(ow);
        respond_error(req, &err);
        return;
    }
    queue_odds(ctx, req, ow);
}

/* POST /v1/sessions/{id}/odds: the action against the session's current state. */
void api_post_session_odds(api_ctx *ctx, http_request *req, const route_match *m) {
    session_row s;
    if (!load_readable_session(ctx, req, m->params[0], &s)) return;
    json_t *body = json_body_new(req);
    if (!body) {
        session_row_clear(&s);
        return;
    }
    odds_work *ow = calloc(1, sizeof *ow);
    api_error err = {0};
    action_envelope env = {0};
    const ruleset *rs = ruleset_find(s.ruleset);
    int rc = -1;
    if (!ow || !rs) {
        api_error_set(&err, 500, "internal_error", NULL, "the session's ruleset is unavailable");
    } else if ((rc = decode_odds_action(rs, body, ow, &env, &err)) == 0 && env.has_unit) {
        const json_t *u = rules_state_unit(s.state, env.unit);
        ow->unit = u ? json_deep_copy(u) : NULL;
        if (!ow->unit) {
            api_error_set(&err, 422, "unknown_unit", json_pack("{s:s}", "unit", env.unit),
                          "there is no unit '%s' in this session", env.unit);
            rc = -1;
        }
    }
    if (rc == 0) {
        /* Deep copies: the worker thread must share no jansson value with the loop thread. */
        ow->state = json_deep_copy(s.state);
        ow->options = json_deep_copy(s.options);
        snprintf(ow->actor, sizeof ow->actor, "referee");
    }
    json_decref(body);
    action_envelope_clear(&env);
    session_row_clear(&s);
    if (rc != 0) {
        if (ow) odds_work_free(ow);
        respond_error(req, &err);
        return;
    }
    queue_odds(ctx, req, ow);
}
