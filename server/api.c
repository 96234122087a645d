#include "server/api.h"
#include "server/api_internal.h"

#include "protocol/api_error.h"
#include "protocol/json_in.h"
#include "protocol/json_out.h"
#include "protocol/requests.h"
#include "rules/ruleset.h"
#include "server/alloc_guard.h"
#include "server/crypto.h"
#include "server/entropy.h"
#include "server/log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef UMPIRE_VERSION
#define UMPIRE_VERSION "0.0.0"
#endif

#define JSON_TYPE "application/json; charset=utf-8"
#define TOKEN_MAX 128

/* ---- answering ---------------------------------------------------------------------------- */

void respond_json(http_request *req, int status, json_t *body_take, const char *headers) {
    size_t len = 0;
    char *body = body_take ? json_out_compact_new(body_take, &len) : NULL;
    json_decref(body_take);
    if (!body) {
        static const char oom[] = "{\"error\":{\"code\":\"internal_error\",\"message\":\"out of "
                                  "memory\",\"details\":{}}}";
        http_respond_take(req, 500, JSON_TYPE, NULL, strdup(oom), strlen(oom));
        return;
    }
    http_respond_take(req, status, JSON_TYPE, headers, body, len);
}

/* Answers the text written into o (the out-of-memory answer if writing it failed). */
static void respond_text(http_request *req, int status, json_out *o) {
    size_t len = 0;
    char *body = json_out_finish(o, &len);
    if (!body) {
        respond_json(req, status, NULL, NULL); /* the out-of-memory answer */
        return;
    }
    http_respond_take(req, status, JSON_TYPE, NULL, body, len);
}

/* True while api_handle runs a route synchronously: only then does the loop thread's
 * allocation flag describe the request being answered (async completions answer later). */
static bool handling_request;

void respond_error(http_request *req, api_error *e) {
    if (handling_request && alloc_guard_failed() && e->status < 500) {
        /* The request was judged on values jansson could not finish building: say so. */
        api_error_set(e, 503, "out_of_memory", NULL,
                      "the daemon ran out of memory reading the request; nothing was written");
    }
    size_t len;
    char *body = api_error_body_new(e, &len);
    const char *headers = e->status == 401 ? "WWW-Authenticate: Bearer\r\n" : NULL;
    http_respond_take(req, e->status, JSON_TYPE, headers, body, len);
    api_error_clear(e);
}

void respond_simple_error(http_request *req, int status, const char *code, const char *message) {
    api_error e = {0};
    api_error_set(&e, status, code, NULL, "%s", message);
    respond_error(req, &e);
}

/* ---- request helpers ---------------------------------------------------------------------- */

/* Copies src into dst[cap], truncating like snprintf "%s" (the callers' strings are checked
 * to fit already; this is the cheap way to copy them on every request). */
static void copy_str(char *dst, size_t cap, const char *src) {
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* The bearer token, or NULL when absent or malformed. */
static const char *bearer_token(const http_request *req) {
    const char *h = http_request_header(req, "authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0) return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    size_t n = strlen(h);
    return n > 0 && n <= TOKEN_MAX ? h : NULL;
}

/* Session ids are 32 lowercase hex digits; anything else cannot name a session. */
void respond_bad_query(http_request *req, const char *name, const char *expected) {
    api_error e = {0};
    api_error_set(&e, 400, "invalid_field",
                  json_pack("{s:s, s:s}", "field", name, "expected", expected),
                  "query parameter '%s' must be %s", name, expected);
    respond_error(req, &e);
}

bool session_id_valid(const char *id) {
    if (strlen(id) != 32) return false;
    for (; *id; id++)
        if (!isxdigit((unsigned char)*id) || isupper((unsigned char)*id)) return false;
    return true;
}

void respond_no_session(http_request *req) {
    respond_simple_error(req, 404, "session_not_found", "there is no such session");
}

/* Authenticates the request for a session. Writes the role ("referee" / "side:x", or "" for an
 * anonymous reader of a public session). 1 to go on; 0 when it has answered (404/401/503).
 * Answers from what the read gate found (run_gated): the role of a token already found in the
 * database comes from ctx->tokens (a cached token proves the session exists, so 404 and 401
 * come out as before); an unknown token is always looked up in the database. */
int authorize(api_ctx *ctx, http_request *req, const char *id, bool public_ok, char *role,
              size_t rolelen) {
    if (!session_id_valid(id)) {
        respond_no_session(req);
        return 0;
    }
    const char *token = bearer_token(req);
    role[0] = '\0';
    const session_view *v = ctx->view;
    if (!v || !v->token_checked || strcmp(v->id, id) != 0) {
        /* A route that reads a session without its gate (the route table): a bug. */
        log_msg(LOG_ERROR, "%s %s: token not read before the handler", req->method, req->path);
        respond_simple_error(req, 500, "internal_error", "the request could not be authorised");
        return 0;
    }
    int found = v->token_found;
    if (found == 1) copy_str(role, rolelen, v->role);
    if (found == STORE_NO_SESSION) {
        respond_no_session(req);
        return 0;
    }
    if (found < 0) {
        respond_simple_error(req, 503, "storage_unavailable", "the database could not be read");
        return 0;
    }
    if (!token && public_ok) return 1;
    if (!token) {
        respond_simple_error(req, 401, "unauthorized",
                             "this request needs an Authorization: Bearer token of the session");
        return 0;
    }
    if (!found) {
        respond_simple_error(req, 401, "unauthorized", "the token is not one of this session's");
        return 0;
    }
    /* Found in the database: true for good (server/token_cache.h), so remembered. */
    if (!v->token_cached) token_cache_put(ctx->tokens, id, v->token_digest, role);
    return 1;
}

static bool is_json_content(const http_request *req) {
    const char *ct = http_request_header(req, "content-type");
    if (!ct || strncasecmp(ct, "application/json", 16) != 0) return false;
    return ct[16] == '\0' || ct[16] == ';' || ct[16] == ' ';
}

/* Parses the JSON object body; answers 415/400 itself and returns NULL on failure. */
json_t *json_body_new(http_request *req) {
    if (!is_json_content(req)) {
        respond_simple_error(req, 415, "unsupported_media_type",
                             "the body must be JSON, sent with Content-Type: application/json");
        return NULL;
    }
    api_error e = {0};
    json_t *body = json_in_parse_object_new(req->body, req->body_len, &e);
    if (!body) respond_error(req, &e);
    return body;
}

/* ---- writes: hand a job to the writer, answer when it is committed ----------------------- */

static void on_job_done(write_job *job) {
    http_request *req = job->user;
    api_ctx *ctx = job->owner;
    /* Subscribers learn of committed events only: the writer calls this after COMMIT. */
    if (job->status >= 200 && job->status < 300 && !job->replayed && job->session_id[0]) {
        live_publish(ctx->live, job->session_id);
        webhooks_publish(ctx->webhooks, job->session_id);
    }
    const char *headers = job->replayed ? "Idempotent-Replay: true\r\n" : NULL;
    http_respond_take(req, job->status, JSON_TYPE, headers, job->body, job->body_len);
    job->body = NULL;
    write_job_free(job);
}

void api_submit(api_ctx *ctx, http_request *req, write_job *job) {
    if (!job->done) job->done = on_job_done;
    job->user = req;
    job->owner = ctx;
    if (alloc_guard_failed()) {
        write_job_free(job);
        respond_simple_error(
            req, 503, "out_of_memory",
            "the daemon ran out of memory reading the request; nothing was written");
        return;
    }
    if (writer_submit(ctx->writer, job) != 0) {
        write_job_free(job);
        respond_simple_error(req, 503, "overloaded",
                             "the daemon has too many writes queued; nothing was written, retry");
    }
}

/* ---- handlers ----------------------------------------------------------------------------- */

/* What json_pack + json_dumps made of {"status": "ok", "version": UMPIRE_VERSION}, as a constant:
 * the health check is what load balancers poll, and building and serialising the same two-member
 * object on every probe cost more than all of the HTTP work. UMPIRE_VERSION is a plain version
 * number (Makefile's VERSION), with nothing to escape. */
static const char health_body[] = "{\"status\":\"ok\",\"version\":\"" UMPIRE_VERSION "\"}";

static void get_health(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)ctx, (void)m;
    char *body = malloc(sizeof health_body - 1);
    if (!body) {
        respond_json(req, 500, NULL, NULL); /* the out-of-memory answer */
        return;
    }
    memcpy(body, health_body, sizeof health_body - 1);
    http_respond_take(req, 200, JSON_TYPE, NULL, body, sizeof health_body - 1);
}

static void get_rulesets(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)ctx, (void)m;
    json_t *list = json_array();
    for (size_t i = 0; i < ruleset_count(); i++)
        json_array_append_new(list, ruleset_summary_new(ruleset_at(i)));
    respond_json(req, 200, json_pack("{s:o}", "rulesets", list), NULL);
}

static void get_ruleset(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)ctx;
    const ruleset *rs = ruleset_find(m->params[0]);
    if (!rs) {
        respond_simple_error(req, 404, "ruleset_not_found",
                             "there is no such ruleset (GET /v1/rulesets lists them)");
        return;
    }
    respond_json(req, 200, ruleset_describe_new(rs), NULL);
}

static void post_sessions(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)m;
    json_t *body = json_body_new(req);
    if (!body) return;
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

/* Loads a session the request may read: its token's, or anyone's when public. 1 with *s
 * loaded (the caller clears it); 0 when it has answered (404/401/503). */
int load_readable_session(api_ctx *ctx, http_request *req, const char *id, session_row *s) {
    char role[48];
    return load_readable_session_role(ctx, req, id, s, role, sizeof role);
}

int load_readable_session_role(api_ctx *ctx, http_request *req, const char *id, session_row *s,
                               char *role, size_t rolelen) {
    if (!session_id_valid(id)) {
        respond_no_session(req);
        return 0;
    }
    session_view *v = ctx->view;
    if (!v || !v->session_read || strcmp(v->id, id) != 0) {
        log_msg(LOG_ERROR, "%s %s: session not read before the handler", req->method, req->path);
        respond_simple_error(req, 500, "internal_error", "the session could not be read");
        return 0;
    }
    int found = v->session_found;
    *s = v->session; /* the caller's now */
    memset(&v->session, 0, sizeof v->session);
    v->session_found = found > 0 ? 0 : found;
    if (found < 0) {
        respond_simple_error(req, 503, "storage_unavailable", "the database could not be read");
        return 0;
    }
    if (found == 0) {
        respond_no_session(req);
        return 0;
    }
    if (!authorize(ctx, req, id, strcmp(s->visibility, "public") == 0, role, rolelen)) {
        session_row_clear(s);
        return 0;
    }
    return 1;
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
static void get_session(api_ctx *ctx, http_request *req, const route_match *m) {
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

/* Reads a non-negative integer query parameter; 0 ok (absent leaves *out), -1 bad. */
int query_int(const char *query, const char *name, int64_t min, int64_t max, int64_t *out) {
    size_t n = strlen(name);
    for (const char *p = query; p && *p;) {
        if (strncmp(p, name, n) == 0 && p[n] == '=') {
            char *end;
            const char *v = p + n + 1;
            if (!isdigit((unsigned char)*v)) return -1;
            long long x = strtoll(v, &end, 10);
            if ((*end != '\0' && *end != '&') || x < min || x > max) return -1;
            *out = x;
            return 0;
        }
        p = strchr(p, '&');
        if (p) p++;
    }
    return 0;
}

/* True when the client asks for Server-Sent Events. */
static bool wants_event_stream(const http_request *req) {
    const char *accept = http_request_header(req, "accept");
    return accept && strstr(accept, "text/event-stream") != NULL;
}

static void get_events(api_ctx *ctx, http_request *req, const route_match *m) {
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
    if (!load_readable_session(ctx, req, id, &s)) return;
    if (wants_event_stream(req)) {
        /* Last-Event-ID (a reconnecting EventSource) wins over ?after=. */
        const char *last = http_request_header(req, "last-event-id");
        if (last && *last) {
            char *end;
            long long v = strtoll(last, &end, 10);
            if (*end == '\0' && v >= 0) after = v;
        }
        session_row_clear(&s);
        live_subscribe(ctx->live, req, id, after);
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

static void post_action(api_ctx *ctx, http_request *req, const route_match *m) {
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
    write_job *job = write_job_new(WRITE_ACTION);
    if (!job) {
        json_decref(body);
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    api_error e = {0};
    /* The parsed body becomes the job's fields as it is: nothing on this thread uses it after. */
    if (action_envelope_decode_take(body, &job->action, &e) != 0) {
        write_job_free(job);
        respond_error(req, &e);
        return;
    }
    copy_str(job->session_id, sizeof job->session_id, id);
    copy_str(job->role, sizeof job->role, role);
    if (key) {
        job->has_idempotency_key = true;
        copy_str(job->idempotency_key, sizeof job->idempotency_key, key);
        crypto_sha256(req->body, req->body_len, job->body_digest);
    }
    api_submit(ctx, req, job);
}

/* Any token of the session may ask for a reveal: each side can check the dice rolled so far
 * without waiting on the referee. */
static void post_reveal(api_ctx *ctx, http_request *req, const route_match *m) {
    const char *id = m->params[0];
    char role[48];
    if (!authorize(ctx, req, id, false, role, sizeof role)) return;
    write_job *job = write_job_new(WRITE_REVEAL);
    if (!job) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    copy_str(job->session_id, sizeof job->session_id, id);
    copy_str(job->role, sizeof job->role, role);
    api_submit(ctx, req, job);
}

/* A side's or the referee's own entropy, mixed into every later die (server/entropy.h). */
static void post_entropy(api_ctx *ctx, http_request *req, const route_match *m) {
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
    write_job *job = write_job_new(WRITE_ENTROPY);
    if (!job) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    copy_str(job->session_id, sizeof job->session_id, id);
    copy_str(job->role, sizeof job->role, role);
    copy_str(job->entropy_seed, sizeof job->entropy_seed, er.seed);
    job->has_expect_version = er.has_expect_version;
    job->expect_version = er.expect_version;
    api_submit(ctx, req, job);
}

/* ---- the route table ---------------------------------------------------------------------- */

/* What a route reads before its handler runs (the read gate, below). */
typedef enum {
    GATE_NONE,    /* nothing of a session */
    GATE_AUTH,    /* the bearer token's role in session params[0] */
    GATE_SESSION, /* the session row, and the token's role when the session exists */
    GATE_EVENTS,  /* as GATE_SESSION, and the page of events GET /events asks for */
} gate_kind;

typedef struct route {
    const char *method;
    const char *pattern; /* segments; ":" captures one */
    route_fn fn;
    gate_kind gate;
} route;

static const route routes[] = {
    {"GET", "/v1/health", get_health, GATE_NONE},
    {"GET", "/v1/rulesets", get_rulesets, GATE_NONE},
    {"GET", "/v1/rulesets/:", get_ruleset, GATE_NONE},
    {"POST", "/v1/sessions", post_sessions, GATE_NONE},
    {"GET", "/v1/sessions/:", get_session, GATE_SESSION},
    {"POST", "/v1/sessions/:/actions", post_action, GATE_AUTH},
    {"GET", "/v1/sessions/:/events", get_events, GATE_EVENTS},
    {"POST", "/v1/sessions/:/reveal", post_reveal, GATE_AUTH},
    {"POST", "/v1/sessions/:/entropy", post_entropy, GATE_AUTH},
    {"GET", "/v1/sessions/:/verify", api_get_verify, GATE_SESSION},
    {"GET", "/v1/sessions/:/log", api_get_log, GATE_SESSION},
    {"POST", "/v1/rulesets/:/odds", api_post_ruleset_odds, GATE_NONE},
    {"POST", "/v1/sessions/:/odds", api_post_session_odds, GATE_SESSION},
    {"PUT", "/v1/sessions/:/webhooks", api_put_webhooks, GATE_AUTH},
    {"GET", "/v1/sessions/:/webhooks", api_get_webhooks, GATE_AUTH},
    {"GET", "/v1/openapi.json", api_get_openapi, GATE_NONE},
    {"GET", "/v1/scenarios", api_get_scenarios, GATE_NONE},
    {"GET", "/v1/scenarios/:", api_get_scenario, GATE_NONE},
};

#define NROUTES (sizeof routes / sizeof routes[0])

/* Matches path against pattern segment by segment; captures ":" segments into m. Literal
 * segments are compared character by character, so a route fails at the first character that
 * differs (most fail within "/v1/x"): no per-segment length scans. */
static bool match_path(const char *pattern, const char *path, route_match *m) {
    int nparams = 0;
    while (*pattern && *path) {
        if (*pattern != '/' || *path != '/') return false;
        pattern++, path++;
        if (*pattern == ':') {
            size_t plen = (size_t)(strchrnul(path, '/') - path);
            if (plen == 0 || plen >= sizeof m->storage[0] || nparams == MAX_PARAMS) return false;
            memcpy(m->storage[nparams], path, plen);
            m->storage[nparams][plen] = '\0';
            m->params[nparams] = m->storage[nparams];
            nparams++;
            pattern++;
            path += plen;
            continue;
        }
        for (; *pattern && *pattern != '/'; pattern++, path++)
            if (*pattern != *path) return false;
        if (*path && *path != '/') return false; /* the path's segment is longer */
    }
    return *pattern == '\0' && *path == '\0';
}

/* ---- the read gate ---------------------------------------------------------------------------
 *
 * A session route's database reads run before its handler, in one db_reads call (server/
 * db_reads.h): inline for SQLite, on a reader thread for PostgreSQL. The handler then runs with
 * ctx->view set, and authorize() / load_readable_session*() / the events page answer from it:
 * handlers keep their order of checks (a bad query parameter is still 400 before 404) and never
 * wait on the database themselves. */

typedef struct gate_read {
    api_ctx *ctx;
    http_request *req;
    route_fn fn;
    route_match m;
    gate_kind kind;
    bool heap;         /* malloc'd (pool reads); inline reads use the caller's stack */
    const char *token; /* the request's bearer token (req outlives the read), or NULL */
    session_view view;
} gate_read;

/* The reader thread (or, inline, the loop thread): nothing here touches loop-thread state. */
static void gate_run(store_conn *conn, void *arg) {
    gate_read *g = arg;
    session_view *v = &g->view;
    if (g->kind >= GATE_SESSION) {
        v->session_read = true;
        v->session_found = store_session_get(conn, v->id, &v->session);
        if (v->session_found <= 0) return;
    }
    if (!v->token_checked) {
        v->token_checked = true;
        v->token_found = store_token_role(conn, v->id, g->token, v->role, sizeof v->role);
    }
    if (g->kind == GATE_EVENTS && v->events_limit > 0) {
        v->events_read = true;
        v->events = store_events_page_new(conn, v->id, v->events_after, v->events_limit);
    }
}

static void gate_done(void *arg) {
    gate_read *g = arg;
    api_ctx *ctx = g->ctx;
    session_view *outer = ctx->view;
    bool was_handling = handling_request;
    if (g->heap) alloc_guard_reset(); /* a later loop turn: this request's own flag */
    ctx->view = &g->view;
    handling_request = true;
    g->fn(ctx, g->req, &g->m);
    handling_request = was_handling;
    ctx->view = outer;
    session_row_clear(&g->view.session);
    json_decref(g->view.events);
    if (g->heap) free(g);
}

json_t *api_events_page_take(api_ctx *ctx, const char *id, int64_t after, int64_t limit) {
    session_view *v = ctx->view;
    if (!v || !v->events_read || strcmp(v->id, id) != 0 || v->events_after != after ||
        v->events_limit != limit)
        return NULL;
    json_t *events = v->events;
    v->events = NULL;
    return events;
}

/* Runs fn for req behind its gate (see above). */
/* The token's role from ctx->tokens into v, if it is there: hashed and looked up once a
 * request, here. */
static void view_from_token_cache(api_ctx *ctx, const char *token, session_view *v) {
    if (!token) return;
    crypto_sha256(token, strlen(token), v->token_digest);
    if (token_cache_get(ctx->tokens, v->id, v->token_digest, v->role, sizeof v->role))
        v->token_cached = v->token_checked = true, v->token_found = 1;
}

static void run_gated(api_ctx *ctx, http_request *req, const route *rt, const route_match *m) {
    const char *id = m->params[0];
    const char *token = bearer_token(req);
    if (!session_id_valid(id)) { /* nothing to read: the handler answers 404 */
        rt->fn(ctx, req, m);
        return;
    }
    session_view first = {0};
    copy_str(first.id, sizeof first.id, id);
    view_from_token_cache(ctx, token, &first);
    if (rt->gate == GATE_AUTH && first.token_cached) {
        /* The action path: a known token is all the handler needs, and nothing is read. */
        session_view *outer = ctx->view;
        ctx->view = &first;
        rt->fn(ctx, req, m);
        ctx->view = outer;
        return;
    }
    gate_read local, *g = &local;
    bool inline_reads = db_reads_inline(ctx->reads);
    if (!inline_reads && !(g = malloc(sizeof *g))) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->req = req;
    g->fn = rt->fn;
    g->m = *m;
    for (int i = 0; i < MAX_PARAMS; i++)
        if (m->params[i]) g->m.params[i] = g->m.storage[i]; /* into the copy, not m */
    g->kind = rt->gate;
    g->heap = !inline_reads;
    g->token = token;
    /* The token cache's answer goes with the read: the cache may lose the token before a pool
     * read returns. */
    g->view = first;
    if (rt->gate == GATE_EVENTS && !wants_event_stream(req)) {
        /* The handler's defaults and bounds; a bad value reads nothing (the handler says 400). */
        int64_t after = 0, limit = 100;
        if (query_int(req->query, "after", 0, INT64_MAX, &after) == 0 &&
            query_int(req->query, "limit", 1, 1000, &limit) == 0) {
            g->view.events_after = after;
            g->view.events_limit = limit;
        }
    }
    if (db_reads_submit(ctx->reads, gate_run, gate_done, g) != 0) {
        if (g->heap) free(g);
        respond_simple_error(req, 503, "overloaded",
                             "the daemon has too many reads queued; retry shortly");
    }
}

void api_handle(http_request *req, void *user) {
    api_ctx *ctx = user;
    alloc_guard_reset();
    if (strncmp(req->path, "/v1/", 4) != 0 && strcmp(req->path, "/v1") != 0) {
        api_serve_static(ctx, req);
        return;
    }
    route_match m = {0};
    char allow[64] = "";
    for (size_t i = 0; i < NROUTES; i++) {
        if (!match_path(routes[i].pattern, req->path, &m)) continue;
        if (strcmp(routes[i].method, req->method) == 0) {
            handling_request = true;
            if (routes[i].gate == GATE_NONE)
                routes[i].fn(ctx, req, &m);
            else
                run_gated(ctx, req, &routes[i], &m);
            handling_request = false;
            return;
        }
        size_t len = strlen(allow);
        snprintf(allow + len, sizeof allow - len, "%s%s", len ? ", " : "", routes[i].method);
    }
    if (allow[0]) {
        char headers[96];
        snprintf(headers, sizeof headers, "Allow: %s\r\n", allow);
        api_error e = {0};
        api_error_set(&e, 405, "method_not_allowed", json_pack("{s:s}", "allow", allow),
                      "%s is not allowed here; use %s", req->method, allow);
        size_t len;
        char *body = api_error_body_new(&e, &len);
        api_error_clear(&e);
        http_respond_take(req, 405, JSON_TYPE, headers, body, len);
        return;
    }
    respond_simple_error(req, 404, "route_not_found", "there is no such endpoint under /v1");
}
