/* The session routes: create a session, read it and its events (a page, or a live stream),
 * act, reveal the seed, contribute entropy. Each decodes and authorises on the loop thread and
 * hands the write to the writer (server/api/submit.c). */
#include "server/api/api_internal.h"

#include "protocol/json_out.h"
#include "server/core/crypto.h"
#include "server/core/requests.h"
#include "server/dice/entropy.h"

#include <stdlib.h>
#include <string.h>

/* limits.session_creation = "key": only the operator's key creates sessions. 1 to go on, 0 when
 * it has answered 401. */
static int creation_allowed(api_ctx *ctx, http_request *req) {
    if (!ctx->limits.session_creation_key) return 1;
    const char *token = api_bearer_token(req), *key = ctx->limits.operator_key;
    size_t n = token ? strlen(token) : 0;
    if (token && key && key[0] && n == strlen(key) && crypto_ct_equal(token, key, n)) return 1;
    respond_simple_error(req, 401, "operator_key_required",
                         "this server creates sessions for its operator only: send "
                         "Authorization: Bearer <operator key>");
    return 0;
}

/* 1 when the body's setup fits limits.max_setup_bytes (as compact JSON); 0 when it has answered
 * 413 setup_too_large. */
static int setup_fits(api_ctx *ctx, http_request *req, const json_t *body) {
    const json_t *setup = json_object_get(body, "setup");
    size_t size = setup ? json_dumpb(setup, NULL, 0, JSON_COMPACT) : 0;
    int64_t max = ctx->limits.max_setup_bytes;
    if (max <= 0 || size <= (size_t)max) return 1;
    api_error e = {0};
    api_error_set(&e, 413, "setup_too_large",
                  json_pack("{s:s, s:I, s:I}", "field", "setup", "limit", (json_int_t)max, "size",
                            (json_int_t)size),
                  "the setup is %zu bytes of JSON; this server takes at most %lld", size,
                  (long long)max);
    respond_error(req, &e);
    return 0;
}

void api_post_sessions(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)m;
    if (!creation_allowed(ctx, req)) return;
    json_t *body = json_body_new(req);
    if (!body) return;
    if (!setup_fits(ctx, req, body)) {
        json_decref(body);
        return;
    }
    write_job *job = write_job_new(WRITE_CREATE_SESSION);
    api_error e = {0};
    int rc = job ? create_request_decode(body, &job->create, &e) : -1;
    json_decref(body);
    if (rc != 0) {
        write_job_free(job);
        if (!e.status) api_error_set(&e, 500, "internal_error", NULL, "out of memory");
        respond_error(req, &e);
        return;
    }
    api_submit(ctx, req, job);
}

/* Writes `,"name":` (or `"name":` first) and the value. Member names are constants. */
static void member_string(json_out *o, const char *sep_name, const char *value) {
    json_out_text(o, sep_name);
    json_out_string(o, value);
}

static void member_integer(json_out *o, const char *sep_name, json_int_t value) {
    json_out_text(o, sep_name);
    json_out_integer(o, value);
}

/* {"session": {id, ruleset, ruleset_version, title, sides, visibility, version, head,
 * created_at, dice: {mode, next_nonce[, commitment][, manual_by][, entropy: {digest, in_force}]}},
 * "state": ...}, written straight from the
 * row: the text json_pack'ing those members and serialising them made, without building and
 * freeing a jansson value for each one. */
void api_get_session(api_ctx *ctx, http_request *req, const route_match *m) {
    session_row s;
    char role[48];
    if (!load_readable_session_role(ctx, req, m->params[0], &s, role, sizeof role)) return;
    json_out o = {0};
    member_string(&o, "{\"session\":{\"id\":", s.id);
    member_string(&o, ",\"ruleset\":", s.ruleset);
    member_integer(&o, ",\"ruleset_version\":", s.ruleset_version);
    member_string(&o, ",\"title\":", s.title);
    json_out_text(&o, ",\"sides\":");
    json_out_value(&o, s.sides);
    member_string(&o, ",\"visibility\":", s.visibility);
    member_integer(&o, ",\"version\":", s.version);
    member_string(&o, ",\"head\":", s.head);
    member_string(&o, ",\"created_at\":", s.created_at);
    member_string(&o, ",\"dice\":{\"mode\":", s.dice_mode);
    member_integer(&o, ",\"next_nonce\":", s.next_nonce);
    if (s.commitment[0]) member_string(&o, ",\"commitment\":", s.commitment);
    if (s.manual_by[0]) member_string(&o, ",\"manual_by\":", s.manual_by);
    if (s.entropy_digest[0]) {
        /* The players' contributions in force: public, like the events that made them. */
        json_t *in_force = entropy_in_force_new(s.entropy);
        member_string(&o, ",\"entropy\":{\"digest\":", s.entropy_digest);
        json_out_text(&o, ",\"in_force\":");
        json_out_value(&o, in_force);
        json_out_text(&o, "}");
        if (!in_force) o.failed = true;
        json_decref(in_force);
    }
    json_out_text(&o, "}},\"state\":");
    json_out_value(&o, s.state);
    if (strcmp(role, "referee") == 0 && ctx->webhooks) {
        /* Delivery state is the referee's: the URLs are secrets (a Discord URL is a key). */
        json_t *hooks = webhooks_describe_new(ctx->webhooks, s.id);
        json_out_text(&o, ",\"webhooks\":");
        json_out_value(&o, hooks);
        if (!hooks) o.failed = true;
        json_decref(hooks);
    }
    json_out_text(&o, "}");
    session_row_clear(&s);
    respond_text(req, 200, &o);
}

void api_get_events(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    int64_t after = 0, limit = 100;
    if (query_int(req->query, "after", 0, INT64_MAX, &after) != 0) {
        respond_bad_query(req, "after", "an integer >= 0");
        return;
    }
    if (query_int(req->query, "limit", 1, 1000, &limit) != 0) {
        respond_bad_query(req, "limit", "an integer from 1 to 1000");
        return;
    }
    session_row s;
    char role[48];
    if (!load_readable_session_role(ctx, req, id, &s, role, sizeof role)) return;
    if (api_wants_event_stream(req)) {
        /* Last-Event-ID (a reconnecting EventSource) wins over ?after=. */
        const char *last = http_request_header(req, "last-event-id");
        if (last && *last) {
            char *end;
            long long v = strtoll(last, &end, 10);
            if (*end == '\0' && v >= 0) after = v;
        }
        session_row_clear(&s);
        live_subscribe(ctx->live, req, id, role, after);
        return;
    }
    json_t *events = api_events_page_take(ctx, id, after, limit);
    if (!events) {
        session_row_clear(&s);
        respond_simple_error(req, 503, "storage_unavailable", "the database could not be read");
        return;
    }
    size_t n = json_array_size(events);
    json_int_t next = n ? json_integer_value(json_object_get(json_array_get(events, n - 1), "seq"))
                        : (json_int_t)after;
    respond_json(req, 200,
                 json_pack("{s:o, s:I, s:s, s:I}", "events", events, "version",
                           (json_int_t)s.version, "head", s.head, "next_after", next),
                 NULL);
    session_row_clear(&s);
}

void api_post_action(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    const char *key = http_request_header(req, "idempotency-key");
    if (key && !idempotency_key_valid(key)) {
        api_error e = {0};
        api_error_set(&e, 400, "invalid_field",
                      json_pack("{s:s, s:s}", "field", "Idempotency-Key", "expected",
                                "1 to 128 printable ASCII characters"),
                      "the Idempotency-Key header must be 1 to 128 printable ASCII characters");
        respond_error(req, &e);
        return;
    }
    json_t *body = json_body_new(req);
    if (!body) return;
    write_job *job = api_session_job_new(req, WRITE_ACTION, id, role);
    if (!job) {
        json_decref(body);
        return;
    }
    api_error e = {0};
    /* The parsed body becomes the job's fields as it is: nothing on this thread uses it after. */
    if (action_envelope_decode_take(body, &job->action, &e) != 0) {
        write_job_free(job);
        respond_error(req, &e);
        return;
    }
    if (key) {
        job->has_idempotency_key = true;
        api_copy_str(job->idempotency_key, sizeof job->idempotency_key, key);
        crypto_sha256(req->body, req->body_len, job->body_digest);
    }
    api_submit(ctx, req, job);
}

/* Any token of the session may ask for a reveal: each side can check the dice rolled so far
 * without waiting on the referee. */
void api_post_reveal(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    write_job *job = api_session_job_new(req, WRITE_REVEAL, id, role);
    if (job) api_submit(ctx, req, job);
}

/* A side's or the referee's own entropy, mixed into every later die (server/dice/entropy.h). */
void api_post_entropy(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    json_t *body = json_body_new(req);
    if (!body) return;
    entropy_request er;
    api_error e = {0};
    int rc = entropy_request_decode(body, &er, &e);
    json_decref(body);
    if (rc != 0) {
        respond_error(req, &e);
        return;
    }
    write_job *job = api_session_job_new(req, WRITE_ENTROPY, id, role);
    if (!job) return;
    api_copy_str(job->entropy_seed, sizeof job->entropy_seed, er.seed);
    job->has_expect_version = er.has_expect_version;
    job->expect_version = er.expect_version;
    api_submit(ctx, req, job);
}
