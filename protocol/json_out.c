#include "protocol/json_out.h"

#include "protocol/decimal.h"
#include "protocol/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef json_out out;

/* Makes room for the buffer to hold extra more bytes (doubling). */
static bool grow(out *o, size_t extra) {
    size_t cap = o->cap ? o->cap : 256;
    while (cap - o->len < extra) {
        if (cap > SIZE_MAX / 2) {
            o->failed = true;
            return false;
        }
        cap *= 2;
    }
    char *p = realloc(o->buf, cap);
    if (!p) {
        o->failed = true;
        return false;
    }
    o->buf = p;
    o->cap = cap;
    return true;
}

static inline bool reserve(out *o, size_t extra) {
    if (o->failed) return false;
    return o->cap - o->len >= extra || grow(o, extra);
}

static void put(out *o, const char *s, size_t n) {
    if (!reserve(o, n)) return;
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void put_char(out *o, char c) {
    if (!reserve(o, 1)) return;
    o->buf[o->len++] = c;
}

/* %lld, as jansson writes integers. */
static void put_integer(out *o, json_int_t v) {
    char text[1 + DECIMAL_U64_MAX];
    size_t n = 0;
    if (v < 0) text[n++] = '-';
    n += decimal_u64(text + n, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    if (!reserve(o, n)) return;
    memcpy(o->buf + o->len, text, n);
    o->len += n;
}

/* Reals are rare in answers (odds): jansson itself writes them, so they come out exactly as
 * before (its shortest round-trip form). */
static void put_real(out *o, const json_t *v) {
    char text[100];
    size_t n = json_dumpb(v, text, sizeof text, JSON_ENCODE_ANY);
    if (n == 0 || n > sizeof text) {
        o->failed = true;
        return;
    }
    put(o, text, n);
}

/* The escape of c (a byte below 0x20, '"' or '\\') at d, as jansson writes it: the short forms
 * where JSON has them, else \u00XX with uppercase hex. Returns its end. */
static char *put_escape(char *d, unsigned char c) {
    static const char hex[] = "0123456789ABCDEF";
    *d++ = '\\';
    switch (c) {
    case '"':
    case '\\':
        *d++ = (char)c;
        break;
    case '\b':
        *d++ = 'b';
        break;
    case '\f':
        *d++ = 'f';
        break;
    case '\n':
        *d++ = 'n';
        break;
    case '\r':
        *d++ = 'r';
        break;
    case '\t':
        *d++ = 't';
        break;
    default:
        memcpy(d, "u00", 3);
        d[3] = hex[c >> 4];
        d[4] = hex[c & 15];
        d += 5;
    }
    return d;
}

/* What put_string does with each byte: copy it (0), escape it (ESC), or copy it as part of a
 * multi-byte UTF-8 sequence, to be validated (HIGH). */
enum { ESC = 1, HIGH = 2 };
static const unsigned char byte_class[256] = {
    [0x00 ... 0x1f] = ESC, ['"'] = ESC, ['\\'] = ESC, [0x80 ... 0xff] = HIGH};

/* A string, quoted and escaped as jansson does; everything but '"', '\\' and the control
 * characters, UTF-8 included, as it is (bytes of multi-byte sequences are never below 0x80, so
 * looking at bytes suffices). A string that is not valid UTF-8 fails, as in json_dumps. */
static void put_string(out *o, const char *s, size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    if (!reserve(o, len + 2)) return;
    char *d = o->buf + o->len;
    bool high = false;
    *d++ = '"';
    for (size_t i = 0; i < len;) {
        size_t run = i;
        while (i < len && !byte_class[u[i]])
            i++;
        memcpy(d, s + run, i - run);
        d += i - run;
        if (i == len) break;
        if (byte_class[u[i]] == HIGH) {
            high = true;
            *d++ = s[i++];
            continue;
        }
        o->len = (size_t)(d - o->buf);
        if (!reserve(o, 6 + (len - i - 1) + 1)) return; /* the escape, the rest, the quote */
        d = put_escape(o->buf + o->len, u[i++]);
    }
    *d++ = '"';
    o->len = (size_t)(d - o->buf);
    if (high && !utf8_valid(s, len, NULL)) o->failed = true;
}

static void put_value(out *o, const json_t *v, int depth);

static void put_object(out *o, const json_t *v, int depth) {
    put_char(o, '{');
    bool first = true;
    for (void *it = json_object_iter((json_t *)v); it && !o->failed;
         it = json_object_iter_next((json_t *)v, it)) {
        if (!first) put_char(o, ',');
        first = false;
        put_string(o, json_object_iter_key(it), json_object_iter_key_len(it));
        put_char(o, ':');
        put_value(o, json_object_iter_value(it), depth + 1);
    }
    put_char(o, '}');
}

static void put_array(out *o, const json_t *v, int depth) {
    put_char(o, '[');
    size_t n = json_array_size(v);
    for (size_t i = 0; i < n && !o->failed; i++) {
        if (i) put_char(o, ',');
        put_value(o, json_array_get(v, i), depth + 1);
    }
    put_char(o, ']');
}

static void put_value(out *o, const json_t *v, int depth) {
    if (!v || depth > JSON_OUT_MAX_DEPTH) {
        o->failed = true;
        return;
    }
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        put_object(o, v, depth);
        break;
    case JSON_ARRAY:
        put_array(o, v, depth);
        break;
    case JSON_STRING:
        put_string(o, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        put_integer(o, json_integer_value(v));
        break;
    case JSON_REAL:
        put_real(o, v);
        break;
    case JSON_TRUE:
        put(o, "true", 4);
        break;
    case JSON_FALSE:
        put(o, "false", 5);
        break;
    case JSON_NULL:
        put(o, "null", 4);
        break;
    default:
        o->failed = true;
    }
}

char *json_out_finish(json_out *o, size_t *len) {
    put_char(o, '\0');
    if (o->failed) {
        free(o->buf);
        *o = (json_out){0};
        return NULL;
    }
    if (len) *len = o->len - 1;
    char *text = o->buf;
    *o = (json_out){0};
    return text;
}

void json_out_text(json_out *o, const char *text) {
    put(o, text, strlen(text));
}

void json_out_string(json_out *o, const char *s) {
    put_string(o, s, strlen(s));
}

void json_out_integer(json_out *o, json_int_t v) {
    put_integer(o, v);
}

void json_out_value(json_out *o, const json_t *v) {
    put_value(o, v, 0);
}

char *json_out_compact_new(const json_t *v, size_t *len) {
    json_out o = {0};
    put_value(&o, v, 0);
    return json_out_finish(&o, len);
}
