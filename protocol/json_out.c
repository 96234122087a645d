#include "protocol/json_out.h"

#include "protocol/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct out {
    char *buf;
    size_t len, cap;
    bool failed;
} out;

static bool reserve(out *o, size_t extra) {
    if (o->failed) return false;
    if (o->cap - o->len >= extra) return true;
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
    char digits[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) digits[n++] = '-';
    if (!reserve(o, n)) return;
    while (n)
        o->buf[o->len++] = digits[--n];
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

/* A string, escaped as jansson escapes it: '"', '\\' and the control characters (the short
 * forms where JSON has them, else \u00XX with uppercase hex); everything else, UTF-8 included, as
 * it is. Bytes of multi-byte sequences are never below 0x80, so looking at bytes suffices. */
static void put_string(out *o, const char *s, size_t len) {
    static const char hex[] = "0123456789ABCDEF";
    const unsigned char *u = (const unsigned char *)s;
    bool ascii = true;
    for (size_t i = 0; i < len; i++)
        ascii &= u[i] < 0x80;
    if (!ascii && !utf8_valid(s, len, NULL)) { /* json_dumps refuses these */
        o->failed = true;
        return;
    }
    put_char(o, '"');
    size_t run = 0; /* start of the bytes not written yet */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = u[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        put(o, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"':
        case '\\':
            esc[1] = (char)c;
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        put(o, esc, n);
    }
    put(o, s + run, len - run);
    put_char(o, '"');
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

char *json_out_compact_new(const json_t *v, size_t *len) {
    out o = {0};
    put_value(&o, v, 0);
    put_char(&o, '\0');
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    if (len) *len = o.len - 1;
    return o.buf;
}
