/* What the handler files of the API share (server/api.c, server/api_audit.c): answering,
 * authenticating and decoding. Loop thread only. */
#ifndef UMPIRE_API_INTERNAL_H
#define UMPIRE_API_INTERNAL_H

#include "protocol/api_error.h"
#include "server/api.h"
#include "server/store.h"

#include <jansson.h>
#include <stdbool.h>

#define JSON_TYPE  "application/json; charset=utf-8"
#define MAX_PARAMS 2

typedef struct route_match {
    const char *params[MAX_PARAMS];
    char storage[MAX_PARAMS][80];
} route_match;

/* What a session route reads from the database, read before its handler runs (server/api.c,
 * "the read gate"): on a reader thread for PostgreSQL, so the handler itself never waits on the
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

/* Answers: each takes ownership of what it is given (body_take, e's details). */
void respond_json(http_request *req, int status, json_t *body_take, const char *headers);
void respond_error(http_request *req, api_error *e);
void respond_simple_error(http_request *req, int status, const char *code, const char *message);
void respond_no_session(http_request *req);
/* 400 invalid_field for a query parameter: details {"field": name, "expected": expected}. */
void respond_bad_query(http_request *req, const char *name, const char *expected);

bool session_id_valid(const char *id);
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
/* Hands job to the writer; answers when it is committed (job->done, when not set, answers with
 * the job's body and tells live subscribers and webhooks), or at once with 503. */
void api_submit(api_ctx *ctx, http_request *req, write_job *job);
/* The JSON object body, or NULL when it has answered 415/400. */
json_t *json_body_new(http_request *req);
/* A query parameter as an integer in [min, max]: 0 (absent leaves *out), -1 bad. */
int query_int(const char *query, const char *name, int64_t min, int64_t max, int64_t *out);

/* server/api_audit.c */
void api_get_verify(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_ruleset_odds(api_ctx *ctx, http_request *req, const route_match *m);
void api_post_session_odds(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api_webhooks.c */
void api_put_webhooks(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_webhooks(api_ctx *ctx, http_request *req, const route_match *m);
/* server/api_static.c */
void api_get_scenarios(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_scenario(api_ctx *ctx, http_request *req, const route_match *m);
void api_get_openapi(api_ctx *ctx, http_request *req, const route_match *m);
/* Any path outside /v1/: a file of the web client, or 404. */
void api_serve_static(api_ctx *ctx, http_request *req);
/* server/api_log.c */
void api_get_log(api_ctx *ctx, http_request *req, const route_match *m);

#endif
