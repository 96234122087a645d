/* What the files of the API share: the route row, the read gate's view, answering (reply.c),
 * authorising (gate.c), submitting writes (submit.c) and the handlers the route table names
 * (*_routes.c). Loop thread only.
 *
 * Calls go one way: routes.c -> *_routes.c -> gate.c, submit.c -> reply.c. */
#ifndef UMPIRE_API_INTERNAL_H
#define UMPIRE_API_INTERNAL_H

#include "protocol/api_error.h"
#include "protocol/json_out.h"
#include "server/api/api.h"
#include "server/store/store.h"

#include <jansson.h>
#include <stdbool.h>

#define JSON_TYPE  "application/json; charset=utf-8"
#define MAX_PARAMS 2

typedef struct route_match {
    const char *params[MAX_PARAMS];
    char storage[MAX_PARAMS][80];
} route_match;

/* What a session route reads from the database, read before its handler runs (the read gate,
 * server/api/gate.c): on a reader thread for PostgreSQL, so the handler itself never waits on the
 * database. authorize(), load_readable_session*() and the events page answer from it. */
typedef struct session_view {
    char id[33];
    bool token_checked; /* token_found / role hold the token's lookup */
    int token_found;    /* store_token_role's answer */
    char role[48];
    bool token_cached;        /* the role came from ctx->tokens: nothing read */
    uint8_t token_digest[32]; /* SHA-256 of the bearer token, if any (for ctx->tokens) */
    bool session_read;        /* session_found / session hold the row's lookup */
    int session_found;        /* store_session_get's answer */
    session_row session;
    bool events_read; /* events: the page after events_after, at most events_limit; NULL error */
    int64_t events_after, events_limit;
    json_t *events;
} session_view;

typedef void (*route_fn)(api_ctx *ctx, http_request *req, const route_match *m);

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
    api_rate_kind rate; /* the client's rate it counts against (config [limits]), or NONE */
} route;

/* ---- server/api/reply.c ---- */

/* Answers: each takes ownership of what it is given (body_take, e's details). */
void respond_json(http_request *req, int status, json_t *body_take, const char *headers);
/* Answers the text written into o (the out-of-memory answer if writing it failed). */
void respond_text(http_request *req, int status, json_out *o);
void respond_error(http_request *req, api_error *e);
void respond_simple_error(http_request *req, int status, const char *code, const char *message);
void respond_no_session(http_request *req);
/* 400 invalid_field for a query parameter: details {"field": name, "expected": expected}. */
void respond_bad_query(http_request *req, const char *name, const char *expected);

bool session_id_valid(const char *id);
/* The JSON object body, or NULL when it has answered 415/400. */
json_t *json_body_new(http_request *req);
/* A query parameter as an integer in [min, max]: 0 (absent leaves *out), -1 bad. */
int query_int(const char *query, const char *name, int64_t min, int64_t max, int64_t *out);
/* True when the client asks for Server-Sent Events (Accept: text/event-stream). */
bool api_wants_event_stream(const http_request *req);
/* Copies src into dst[cap], truncating like snprintf "%s". */
void api_copy_str(char *dst, size_t cap, const char *src);
/* Sets whether a route is running synchronously on the loop thread (then an allocation failure
 * while reading the request turns a 4xx into 503 out_of_memory); returns the previous value. */
bool api_handling_request_set(bool handling);

/* ---- server/api/gate.c ---- */

/* The bearer token of Authorization, or NULL when absent or malformed. */
const char *api_bearer_token(const http_request *req);
/* Runs rt's handler for req behind its gate: the reads of rt->gate first. */
void api_run_gated(api_ctx *ctx, http_request *req, const route *rt, const route_match *m);
/* 1 to go on with role set; 0 when it has answered (404/401/503). */
int authorize(api_ctx *ctx, http_request *req, const char *id, bool public_ok, char *role,
              size_t rolelen);
/* The events page the read gate fetched for GET /events with these bounds (taken; the caller
 * decrefs it), or NULL when it could not be read (answer 503). */
json_t *api_events_page_take(api_ctx *ctx, const char *id, int64_t after, int64_t limit);
/* 1 with *s loaded (the caller clears it); 0 when it has answered. */
int load_readable_session(api_ctx *ctx, http_request *req, const char *id, session_row *s);
/* As load_readable_session, also writing the caller's role ("" for an anonymous reader). */
int load_readable_session_role(api_ctx *ctx, http_request *req, const char *id, session_row *s,
                               char *role, size_t rolelen);

/* ---- server/api/submit.c ---- */

/* Hands job to the writer; answers when it is committed (job->done, when not set, answers with
 * the job's body and tells live subscribers and webhooks), or at once with 503. */
void api_submit(api_ctx *ctx, http_request *req, write_job *job);
/* A job of kind on session_id for the authenticated role, or NULL when it has answered 500 (out
 * of memory). */
write_job *api_session_job_new(http_request *req, write_kind kind, const char *session_id,
                               const char *role);

/* ---- the handlers of the route table ---- */

/* server/api/session_routes.c */
void api_post_sessions(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_session(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_events(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_action(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_reveal(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_entropy(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api/audit_routes.c */
void api_get_verify(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_ruleset_odds(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_session_odds(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api/webhook_routes.c */
void api_put_webhooks(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_webhooks(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api/static_routes.c */
void api_get_scenarios(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_scenario(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_openapi(api_ctx *ctx, http_request *req, const route_match *m);
/* Any path outside /v1/: a file of the web client, or 404. */
void api_serve_static(api_ctx *ctx, http_request *req);
/* server/api/log_routes.c */
void api_get_log(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api/token_routes.c */
void api_post_token_rotate(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_token_revoke(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api/orders_routes.c */
void api_put_orders(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_orders_close(api_ctx *ctx, http_request *req, const route_match *m);

#endif
