/* The route table, in the manner of Redis's command table: one row per endpoint with its
 * handler and what its read gate reads first (server/api/gate.c). api_handle() matches the path
 * and method and runs the row; the handlers live in the *_routes.c files beside this one. */
#include "server/api/api.h"
#include "server/api/api_internal.h"

#include "rules/common/resolve.h"
#include "rules/ruleset.h"
#include "server/core/alloc_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UMPIRE_VERSION
#define UMPIRE_VERSION "0.0.0"
#endif

/* ---- the small routes --------------------------------------------------------------------- */

/* What json_pack + json_dumps made of {"status": "ok", "version": UMPIRE_VERSION}, as a constant:
 * the health check is what load balancers poll, and building and serialising the same two-member
 * object on every probe cost more than all of the HTTP work. UMPIRE_VERSION is a plain version
 * number (Makefile's VERSION), with nothing to escape. */
static const char health_body[] = "{\"status\":\"ok\",\"version\":\"" UMPIRE_VERSION "\"}";

/* When the store refuses writes (server/store/writer.h: an atomic the writer keeps, no database
 * round trip here), constants too, indexed by store_fault: 503 with what is wrong. */
#define DEGRADED(what)                                                                             \
    "{\"status\":\"degraded\",\"storage\":\"" what "\",\"version\":\"" UMPIRE_VERSION "\"}"
static const char *const degraded_body[] = {
    [STORE_FAULT_READ_ONLY] = DEGRADED("read_only"),
    [STORE_FAULT_FULL] = DEGRADED("full"),
    [STORE_FAULT_FAILING] = DEGRADED("failing"),
};

static void get_health(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)m;
    store_fault f = ctx->writer ? writer_storage(ctx->writer) : STORE_FAULT_NONE;
    const char *text = f == STORE_FAULT_NONE ? health_body : degraded_body[f];
    size_t len = strlen(text);
    char *body = malloc(len);
    if (!body) {
        respond_json(req, 500, NULL, NULL); /* the out-of-memory answer */
        return;
    }
    memcpy(body, text, len);
    http_respond_take(req, f == STORE_FAULT_NONE ? 200 : 503, JSON_TYPE, NULL, body, len);
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
    respond_json(req, 200, rules_describe_new(rs), NULL);
}

/* ---- the route table ---------------------------------------------------------------------- */

static const route routes[] = {
    {"GET", "/v1/health", get_health, GATE_NONE, API_RATE_NONE},
    {"GET", "/v1/rulesets", get_rulesets, GATE_NONE, API_RATE_NONE},
    {"GET", "/v1/rulesets/:", get_ruleset, GATE_NONE, API_RATE_NONE},
    {"POST", "/v1/sessions", api_post_sessions, GATE_NONE, API_RATE_CREATE},
    {"GET", "/v1/sessions/:", api_get_session, GATE_SESSION, API_RATE_NONE},
    {"POST", "/v1/sessions/:/actions", api_post_action, GATE_AUTH, API_RATE_ACTIONS},
    {"GET", "/v1/sessions/:/events", api_get_events, GATE_EVENTS, API_RATE_NONE},
    {"POST", "/v1/sessions/:/reveal", api_post_reveal, GATE_AUTH, API_RATE_ACTIONS},
    {"POST", "/v1/sessions/:/entropy", api_post_entropy, GATE_AUTH, API_RATE_ACTIONS},
    {"GET", "/v1/sessions/:/verify", api_get_verify, GATE_SESSION, API_RATE_VERIFY},
    {"GET", "/v1/sessions/:/log", api_get_log, GATE_SESSION, API_RATE_NONE},
    {"POST", "/v1/rulesets/:/odds", api_post_ruleset_odds, GATE_NONE, API_RATE_ODDS},
    {"POST", "/v1/sessions/:/odds", api_post_session_odds, GATE_SESSION, API_RATE_ODDS},
    {"PUT", "/v1/sessions/:/webhooks", api_put_webhooks, GATE_AUTH, API_RATE_WEBHOOKS},
    {"GET", "/v1/sessions/:/webhooks", api_get_webhooks, GATE_AUTH, API_RATE_NONE},
    {"POST", "/v1/sessions/:/tokens/rotate", api_post_token_rotate, GATE_AUTH, API_RATE_ACTIONS},
    {"POST", "/v1/sessions/:/tokens/revoke", api_post_token_revoke, GATE_AUTH, API_RATE_ACTIONS},
    {"PUT", "/v1/sessions/:/orders/:", api_put_orders, GATE_AUTH, API_RATE_ACTIONS},
    {"POST", "/v1/sessions/:/orders/:/close", api_post_orders_close, GATE_AUTH, API_RATE_ACTIONS},
    {"GET", "/v1/openapi.json", api_get_openapi, GATE_NONE, API_RATE_NONE},
    {"GET", "/v1/scenarios", api_get_scenarios, GATE_NONE, API_RATE_NONE},
    {"GET", "/v1/scenarios/:", api_get_scenario, GATE_NONE, API_RATE_NONE},
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

/* True when the client is over its rate for this kind of request: answered 429 with
 * Retry-After, nothing read or written (config [limits]). */
static bool rate_limited(api_ctx *ctx, http_request *req, api_rate_kind kind) {
    if (kind == API_RATE_NONE || !ctx->rates) return false;
    int64_t wait = client_rates_take(ctx->rates, req->client, kind, uv_now(ctx->loop));
    if (wait == 0) return false;
    const api_rate *r = &ctx->limits.rates[kind];
    char headers[64];
    snprintf(headers, sizeof headers, "Retry-After: %lld\r\n", (long long)wait);
    api_error e = {0};
    api_error_set(&e, 429, "rate_limited",
                  json_pack("{s:I, s:I, s:I}", "per_minute", (json_int_t)r->per_minute, "burst",
                            (json_int_t)r->burst, "retry_after", (json_int_t)wait),
                  "too many requests of this kind from your address (%lld a minute, %lld at "
                  "once); retry in %lld s",
                  (long long)r->per_minute, (long long)r->burst, (long long)wait);
    size_t len;
    char *body = api_error_body_new(&e, &len);
    api_error_clear(&e);
    http_respond_take(req, 429, JSON_TYPE, headers, body, len);
    return true;
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
            if (rate_limited(ctx, req, routes[i].rate)) return;
            api_handling_request_set(true);
            if (routes[i].gate == GATE_NONE)
                routes[i].fn(ctx, req, &m);
            else
                api_run_gated(ctx, req, &routes[i], &m);
            api_handling_request_set(false);
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
