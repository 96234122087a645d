#include "protocol/api_error.h"

#include "protocol/json_out.h"
#include "protocol/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void api_error_set(api_error *e, int status, const char *code, json_t *details_take,
                   const char *fmt, ...) {
    json_decref(e->details);
    e->status = status;
    snprintf(e->code, sizeof e->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    /* Messages may quote the request (a parser's "near '...'"), and the body must be valid
     * JSON: jansson refuses invalid UTF-8, and truncation may have cut a sequence. */
    utf8_sanitize(e->message);
    e->details = details_take;
}

void api_error_field(api_error *e, const char *path, const char *expected) {
    api_error_set(e, 400, "invalid_field",
                  json_pack("{s:s, s:s}", "field", path, "expected", expected),
                  "field '%s' must be %s", path, expected);
}

void api_error_clear(api_error *e) {
    json_decref(e->details);
    memset(e, 0, sizeof *e);
}

char *api_error_body_new(const api_error *e, size_t *len_out) {
    json_t *details = e->details ? json_incref(e->details) : json_object();
    json_t *body = json_pack("{s:{s:s, s:s, s:o}}", "error", "code", e->code, "message", e->message,
                             "details", details);
    size_t len = 0;
    char *s = body ? json_out_compact_new(body, &len) : NULL;
    json_decref(body);
    if (len_out) *len_out = len;
    return s;
}
