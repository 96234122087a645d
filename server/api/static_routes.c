/* Answers from memory: the web client at "/" (anything outside /v1/), the example scenarios
 * (GET /v1/scenarios, GET /v1/scenarios/{id}) and the OpenAPI document (GET /v1/openapi.json). */
#include "server/api/api_internal.h"
#include "server/api/assets.h"
#include "server/core/embedded.h"

#include "protocol/json_out.h"
#include "server/api/openapi.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The client is plain files of our own: scripts and styles only from this origin, nothing
 * framed, no referrer leaking a URL (tokens live in the fragment, which is never sent, but a
 * link's path still names the session). */
#define STATIC_HEADERS                                                                             \
    "Content-Security-Policy: default-src 'self'; script-src 'self'; style-src 'self'; "           \
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; "          \
    "form-action 'self'\r\n"                                                                       \
    "X-Content-Type-Options: nosniff\r\n"                                                          \
    "Referrer-Policy: no-referrer\r\n"                                                             \
    "Cache-Control: no-cache\r\n"

/* ---- scenarios ------------------------------------------------------------------------------ */

static const embedded_file *scenario_file(const char *id) {
    size_t n = strlen(id);
    for (size_t i = 0; i < umpire_scenario_files_count; i++) {
        const char *name = umpire_scenario_files[i].name;
        if (strncmp(name, id, n) == 0 && strcmp(name + n, ".json") == 0)
            return &umpire_scenario_files[i];
    }
    return NULL;
}

/* {"scenarios": [{"id", "ruleset", "title"}]}, sorted by id (the build embeds them sorted). A
 * scenario file that is not a session body is a build mistake: it is left out and logged by the
 * tests (tests/integration/test_web_static.py checks every file is listed). */
static char *scenario_index_new(size_t *len) {
    json_t *list = json_array();
    for (size_t i = 0; list && i < umpire_scenario_files_count; i++) {
        const embedded_file *f = &umpire_scenario_files[i];
        json_t *doc = json_loadb(f->data, f->len, 0, NULL);
        json_t *session = json_object_get(doc, "session");
        const char *rs = json_string_value(json_object_get(session, "ruleset"));
        const char *title = json_string_value(json_object_get(session, "title"));
        size_t n = strlen(f->name);
        if (rs && title && n > 5) {
            json_array_append_new(list, json_pack("{s:s%, s:s, s:s}", "id", f->name, n - 5,
                                                  "ruleset", rs, "title", title));
        }
        json_decref(doc);
    }
    json_t *doc = list ? json_pack("{s:o}", "scenarios", list) : NULL;
    char *body = doc ? json_out_compact_new(doc, len) : NULL;
    json_decref(doc);
    return body;
}

/* Answers a copy of a body built at start-up. */
static void respond_copy(http_request *req, const char *text, size_t len) {
    char *body = malloc(len + 1);
    if (!body) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    memcpy(body, text, len + 1);
    http_respond_take(req, 200, JSON_TYPE, NULL, body, len);
}

void api_get_scenarios(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)m;
    respond_copy(req, ctx->assets->scenario_index, ctx->assets->scenario_index_len);
}

void api_get_openapi(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)m;
    respond_copy(req, ctx->assets->openapi, ctx->assets->openapi_len);
}

void api_get_scenario(api_ctx *ctx, http_request *req, const route_match *m) {
    (void)ctx;
    const embedded_file *f = scenario_file(m->params[0]);
    if (!f) {
        respond_simple_error(req, 404, "scenario_not_found", "there is no such scenario");
        return;
    }
    char *body = malloc(f->len + 1);
    if (!body) {
        respond_simple_error(req, 500, "internal_error", "out of memory");
        return;
    }
    memcpy(body, f->data, f->len + 1);
    http_respond_take(req, 200, JSON_TYPE, NULL, body, f->len);
}

/* ---- the web client ------------------------------------------------------------------------- */

void api_serve_static(api_ctx *ctx, http_request *req) {
    const static_file *f = static_files_find(ctx->assets ? ctx->assets->web : NULL, req->path);
    if (!f) {
        respond_simple_error(req, 404, "route_not_found", "there is no such file or endpoint");
        return;
    }
    if (strcmp(req->method, "GET") != 0 && strcmp(req->method, "HEAD") != 0) {
        api_error e = {0};
        api_error_set(&e, 405, "method_not_allowed", json_pack("{s:s}", "allow", "GET, HEAD"),
                      "%s is not allowed here; use GET, HEAD", req->method);
        size_t len;
        char *body = api_error_body_new(&e, &len);
        api_error_clear(&e);
        http_respond_take(req, 405, JSON_TYPE, "Allow: GET, HEAD\r\n", body, len);
        return;
    }
    char headers[sizeof STATIC_HEADERS + 64];
    snprintf(headers, sizeof headers, "%sETag: %s\r\n", STATIC_HEADERS, f->etag);
    const char *inm = http_request_header(req, "if-none-match");
    if (inm && strstr(inm, f->etag)) {
        /* Content-Length of a 304 is the length the 200 would have had (RFC 9110 8.6). */
        http_respond_take(req, 304, NULL, headers, NULL, f->len);
        return;
    }
    char *body = NULL;
    if (strcmp(req->method, "GET") == 0 && f->len) {
        body = malloc(f->len);
        if (!body) {
            respond_simple_error(req, 500, "internal_error", "out of memory");
            return;
        }
        memcpy(body, f->data, f->len);
    }
    http_respond_take(req, 200, f->content_type, headers, body, f->len);
}

/* ---- start-up ------------------------------------------------------------------------------- */

int api_assets_init(api_assets *a, const char *web_root, char *err, size_t errlen) {
    memset(a, 0, sizeof *a);
    a->web =
        web_root[0] ? static_files_load_new(web_root, err, errlen) : static_files_builtin_new();
    if (!a->web) {
        if (!web_root[0]) snprintf(err, errlen, "out of memory loading the web client");
        return -1;
    }
    a->scenario_index = scenario_index_new(&a->scenario_index_len);
    if (!a->scenario_index) {
        snprintf(err, errlen, "out of memory indexing the scenarios");
        api_assets_clear(a);
        return -1;
    }
    /* The document depends only on the build (base text, ruleset table): written once. */
    json_t *doc = openapi_document_new();
    a->openapi = doc ? json_out_compact_new(doc, &a->openapi_len) : NULL;
    json_decref(doc);
    if (!a->openapi) {
        snprintf(err, errlen, "the OpenAPI document could not be built (out of memory?)");
        api_assets_clear(a);
        return -1;
    }
    return 0;
}

void api_assets_clear(api_assets *a) {
    static_files_free(a->web);
    free(a->scenario_index);
    free(a->openapi);
    memset(a, 0, sizeof *a);
}
