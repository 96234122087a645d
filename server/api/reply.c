/* Answering and reading a request, for every route: JSON and error answers, the JSON body, query
 * parameters, session ids. The lowest file of the API: it calls nothing else of server/api/. */
#include "server/api/api_internal.h"

#include "protocol/json_in.h"
#include "protocol/json_out.h"
#include "server/core/alloc_guard.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
void respond_text(http_request *req, int status, json_out *o) {
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

bool api_handling_request_set(bool handling) {
    bool was = handling_request;
    handling_request = handling;
    return was;
}

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

/* ---- reading ------------------------------------------------------------------------------ */

/* Copies src into dst[cap], truncating like snprintf "%s" (the callers' strings are checked
 * to fit already; this is the cheap way to copy them on every request). */
void api_copy_str(char *dst, size_t cap, const char *src) {
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void respond_bad_query(http_request *req, const char *name, const char *expected) {
    api_error e = {0};
    api_error_set(&e, 400, "invalid_field",
                  json_pack("{s:s, s:s}", "field", name, "expected", expected),
                  "query parameter '%s' must be %s", name, expected);
    respond_error(req, &e);
}

/* Session ids are 32 lowercase hex digits; anything else cannot name a session. */
bool session_id_valid(const char *id) {
    if (strlen(id) != 32) return false;
    for (; *id; id++)
        if (!isxdigit((unsigned char)*id) || isupper((unsigned char)*id)) return false;
    return true;
}

void respond_no_session(http_request *req) {
    respond_simple_error(req, 404, "session_not_found", "there is no such session");
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
bool api_wants_event_stream(const http_request *req) {
    const char *accept = http_request_header(req, "accept");
    return accept && strstr(accept, "text/event-stream") != NULL;
}
