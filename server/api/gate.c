/* The read gate. A session route's database reads run before its handler, in one db_reads call
 * (server/ db_reads.h): inline for SQLite, on a reader thread for PostgreSQL. The handler then runs
 * with ctx->view set, and authorize() / load_readable_session*() / the events page answer from it:
 * handlers keep their order of checks (a bad query parameter is still 400 before 404) and never
 * wait on the database themselves. */

#include "server/api/api_internal.h"

#include "server/core/alloc_guard.h"
#include "server/core/crypto.h"
#include "server/core/log.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TOKEN_MAX 128

const char *api_bearer_token(const http_request *req) {
    const char *h = http_request_header(req, "authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0) return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    size_t n = strlen(h);
    return n > 0 && n <= TOKEN_MAX ? h : NULL;
}

/* Authenticates the request for a session. Writes the role ("referee" / "side:x", or "" for an
 * anonymous reader of a public session). 1 to go on; 0 when it has answered (404/401/503).
 * Answers from what the read gate found (api_run_gated): the role of a token already found in the
 * database comes from ctx->tokens (a cached token proves the session exists, so 404 and 401
 * come out as before); an unknown token is always looked up in the database. */
int authorize(api_ctx *ctx, http_request *req, const char *id, bool public_ok, char *role,
              size_t rolelen) {
    if (!session_id_valid(id)) {
        respond_no_session(req);
        return 0;
    }
    const char *token = api_bearer_token(req);
    role[0] = '\0';
    const session_view *v = ctx->view;
    if (!v || !v->token_checked || strcmp(v->id, id) != 0) {
        /* A route that reads a session without its gate (the route table): a bug. */
        log_msg(LOG_ERROR, "%s %s: token not read before the handler", req->method, req->path);
        respond_simple_error(req, 500, "internal_error", "the request could not be authorised");
        return 0;
    }
    int found = v->token_found;
    if (found == 1) api_copy_str(role, rolelen, v->role);
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
    /* Found in the database: true for good (server/api/token_cache.h), so remembered. */
    if (!v->token_cached) token_cache_put(ctx->tokens, id, v->token_digest, role);
    return 1;
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
    bool was_handling = api_handling_request_set(true);
    if (g->heap) alloc_guard_reset(); /* a later loop turn: this request's own flag */
    ctx->view = &g->view;
    g->fn(ctx, g->req, &g->m);
    api_handling_request_set(was_handling);
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

/* The token's role from ctx->tokens into v, if it is there: hashed and looked up once a
 * request, here. */
static void view_from_token_cache(api_ctx *ctx, const char *token, session_view *v) {
    if (!token) return;
    crypto_sha256(token, strlen(token), v->token_digest);
    if (token_cache_get(ctx->tokens, v->id, v->token_digest, v->role, sizeof v->role))
        v->token_cached = v->token_checked = true, v->token_found = 1;
}

/* Runs fn for req behind its gate (see above). */
void api_run_gated(api_ctx *ctx, http_request *req, const route *rt, const route_match *m) {
    const char *id = m->params[0];
    const char *token = api_bearer_token(req);
    if (!session_id_valid(id)) { /* nothing to read: the handler answers 404 */
        rt->fn(ctx, req, m);
        return;
    }
    session_view first = {0};
    api_copy_str(first.id, sizeof first.id, id);
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
    if (rt->gate == GATE_EVENTS && !api_wants_event_stream(req)) {
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
