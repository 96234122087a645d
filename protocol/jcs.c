#include "protocol/jcs.h"

#include "protocol/utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable output buffer (jcs_out, protocol/jcs.h) ---- */

typedef jcs_out jcs_buf;

static int buf_grow(jcs_buf *b, size_t extra) {
    size_t cap = b->cap ? b->cap : 1024;
    while (cap - b->len < extra) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return 0;
        }
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return 0;
    }
    b->data = p;
    b->cap = cap;
    return 1;
}

static inline int buf_reserve(jcs_buf *b, size_t extra) {
    if (b->failed) return 0;
    if (extra <= b->cap - b->len) return 1;
    return buf_grow(b, extra);
}

static inline void buf_put(jcs_buf *b, const char *s, size_t n) {
    if (!buf_reserve(b, n)) return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
}

static inline void buf_putc(jcs_buf *b, char c) {
    if (!buf_reserve(b, 1)) return;
    b->data[b->len++] = c;
}

/* ---- strings ---- */

/* RFC 8785 section 3.2.2.2: only '"', '\\' and the C0 controls are escaped; \b \t \n \f \r use
 * their short forms, the other controls \u00xx in lowercase hex; everything else (including
 * U+007F, U+2028 and all non-ASCII) is written as is. */
static void put_string(jcs_buf *b, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    buf_putc(b, '"');
    size_t run = 0; /* start of the pending run of bytes written unchanged */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        buf_put(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t len = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 0x0f];
            len = 6;
        }
        buf_put(b, esc, len);
    }
    buf_put(b, s + run, n - run);
    buf_putc(b, '"');
}

/* ---- member order: UTF-16 code units (RFC 8785 section 3.2.3) ---- */

/* Malformed UTF-8 bytes (possible only through jansson's *_nocheck constructors) sort after every
 * character, one weight per byte, so the order stays total and deterministic. */
#define MALFORMED_WEIGHT 0x200000u

/* Decodes the shortest-form UTF-8 character at s[*i] and advances *i past it; a malformed byte
 * advances by one and yields MALFORMED_WEIGHT + byte. */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *i) {
    unsigned char c = s[*i];
    size_t need;
    uint32_t cp, min;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        need = 1, cp = c & 0x1Fu, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2, cp = c & 0x0Fu, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3, cp = c & 0x07u, min = 0x10000;
    } else {
        (*i)++;
        return MALFORMED_WEIGHT + c;
    }
    for (size_t k = 1; k <= need; k++) {
        if (*i + k >= n || (s[*i + k] & 0xC0) != 0x80) {
            (*i)++;
            return MALFORMED_WEIGHT + c;
        }
        cp = cp << 6 | (s[*i + k] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF) {
        (*i)++;
        return MALFORMED_WEIGHT + c;
    }
    *i += need + 1;
    return cp;
}

/* A character's position in UTF-16 code-unit order. That order is code-point order except that a
 * character above U+FFFF, whose first unit is a surrogate (D800..DBFF), sorts before
 * U+E000..U+FFFF; so those BMP characters are moved above U+10FFFF. */
static uint32_t utf16_weight(uint32_t cp) {
    if (cp >= 0xE000 && cp <= 0xFFFF) return cp - 0xE000 + 0x110000;
    return cp;
}

static int utf16_compare(const char *a, size_t an, const char *b, size_t bn) {
    const unsigned char *ua = (const unsigned char *)a, *ub = (const unsigned char *)b;
    size_t i = 0, j = 0;
    /* ASCII on both sides (every key the daemon writes): byte order is UTF-16 order. */
    while (i < an && j < bn && ua[i] < 0x80 && ub[j] < 0x80) {
        if (ua[i] != ub[j]) return ua[i] < ub[j] ? -1 : 1;
        i++, j++;
    }
    while (i < an && j < bn) {
        uint32_t wa = utf16_weight(utf8_next(ua, an, &i));
        uint32_t wb = utf16_weight(utf8_next(ub, bn, &j));
        if (wa != wb) return wa < wb ? -1 : 1;
    }
    if (i < an) return 1;
    if (j < bn) return -1;
    return 0;
}

typedef struct jcs_member {
    const char *key;
    size_t key_len;
    json_t *value;
} jcs_member;

static int member_compare(const void *pa, const void *pb) {
    const jcs_member *a = pa, *b = pb;
    int c = utf16_compare(a->key, a->key_len, b->key, b->key_len);
    if (c) return c;
    /* Unreachable for distinct keys (the decoding is one-to-one); keeps qsort's order total. */
    size_t n = a->key_len < b->key_len ? a->key_len : b->key_len;
    c = memcmp(a->key, b->key, n);
    if (c) return c;
    return (a->key_len > b->key_len) - (a->key_len < b->key_len);
}

/* ---- the walk: an explicit stack of open arrays and objects instead of recursion ---- */

typedef struct jcs_frame {
    json_t *container;
    int is_object;
    size_t first; /* objects: their members are pool[first .. first + count) */
    size_t count, next;
} jcs_frame;

typedef struct jcs_walk {
    jcs_buf out;
    jcs_frame *stack;
    size_t depth, cap;
    /* The sorted members of every open object, innermost last (a stack, like the frames):
     * one allocation for the whole walk instead of one per object. */
    jcs_member *pool;
    size_t pool_len, pool_cap;
} jcs_walk;

/* Insertion sort: objects here have a handful of members, where it beats qsort (which
 * allocates and calls through a pointer per comparison). */
static void sort_members(jcs_member *m, size_t n) {
    if (n > 32) {
        qsort(m, n, sizeof *m, member_compare);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        jcs_member x = m[i];
        size_t j = i;
        while (j > 0 && member_compare(&m[j - 1], &x) > 0) {
            m[j] = m[j - 1];
            j--;
        }
        m[j] = x;
    }
}

/* Pushes the object's members, sorted, onto the pool; 0, or -1 on allocation failure. */
static int push_members(jcs_walk *w, json_t *obj, size_t *first, size_t *count) {
    size_t n = json_object_size(obj);
    if (n > w->pool_cap - w->pool_len) {
        size_t cap = w->pool_cap ? w->pool_cap : 32;
        while (cap - w->pool_len < n) {
            if (cap > SIZE_MAX / 2 / sizeof *w->pool) return -1;
            cap *= 2;
        }
        jcs_member *p = realloc(w->pool, cap * sizeof *p);
        if (!p) return -1;
        w->pool = p;
        w->pool_cap = cap;
    }
    jcs_member *m = w->pool + w->pool_len;
    size_t k = 0;
    for (void *it = json_object_iter(obj); it && k < n; it = json_object_iter_next(obj, it)) {
        m[k].key = json_object_iter_key(it);
        m[k].key_len = json_object_iter_key_len(it);
        m[k].value = json_object_iter_value(it);
        k++;
    }
    sort_members(m, k);
    *first = w->pool_len;
    *count = k;
    w->pool_len += k;
    return 0;
}

static int on_stack(const jcs_walk *w, const json_t *v) {
    for (size_t i = 0; i < w->depth; i++) {
        if (w->stack[i].container == v) return 1;
    }
    return 0;
}

/* Opens an array or object: writes its opening bracket and pushes it, or writes the closed empty
 * container. A container that is already open is a cycle and fails the walk. */
static void open_container(jcs_walk *w, json_t *v) {
    int is_object = json_is_object(v);
    size_t count = is_object ? json_object_size(v) : json_array_size(v);
    buf_putc(&w->out, is_object ? '{' : '[');
    if (count == 0) {
        buf_putc(&w->out, is_object ? '}' : ']');
        return;
    }
    if (on_stack(w, v)) {
        w->out.failed = 1;
        return;
    }
    if (w->depth == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        jcs_frame *s = cap < SIZE_MAX / sizeof *s ? realloc(w->stack, cap * sizeof *s) : NULL;
        if (!s) {
            w->out.failed = 1;
            return;
        }
        w->stack = s;
        w->cap = cap;
    }
    jcs_frame *f = &w->stack[w->depth];
    f->container = v;
    f->is_object = is_object;
    f->first = 0;
    f->count = count;
    f->next = 0;
    if (is_object && push_members(w, v, &f->first, &f->count) != 0) {
        w->out.failed = 1;
        return;
    }
    w->depth++;
}

/* Writes a scalar, or opens a container whose elements the main loop then writes. */
/* Decimal digits of v into out (at least 21 bytes); the length. snprintf was 8% of the
 * writer's instructions per action (valgrind --tool=callgrind): every event is canonicalised. */
static int format_integer(char *out, json_int_t v) {
    char tmp[24];
    int n = 0, len = 0;
    /* Work on the negative side: -INT64_MIN does not fit in json_int_t. */
    json_int_t x = v < 0 ? v : -v;
    do {
        tmp[n++] = (char)('0' - (x % 10));
        x /= 10;
    } while (x != 0);
    if (v < 0) out[len++] = '-';
    while (n > 0)
        out[len++] = tmp[--n];
    out[len] = '\0';
    return len;
}

static void put_value(jcs_walk *w, json_t *v) {
    char num[32];
    int n;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
    case JSON_ARRAY:
        open_container(w, v);
        break;
    case JSON_STRING:
        put_string(&w->out, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER:
        n = format_integer(num, json_integer_value(v));
        buf_put(&w->out, num, (size_t)n);
        break;
    case JSON_TRUE:
        buf_put(&w->out, "true", 4);
        break;
    case JSON_FALSE:
        buf_put(&w->out, "false", 5);
        break;
    case JSON_NULL:
        buf_put(&w->out, "null", 4);
        break;
    case JSON_REAL:
    default:
        w->out.failed = 1; /* event data never holds reals (contract, Events) */
    }
}

/* Writes the next element of the innermost open container, or closes it when it is done. */
static void step(jcs_walk *w) {
    jcs_frame *f = &w->stack[w->depth - 1];
    if (f->next == f->count) {
        buf_putc(&w->out, f->is_object ? '}' : ']');
        if (f->is_object) w->pool_len = f->first;
        w->depth--;
        return;
    }
    if (f->next > 0) buf_putc(&w->out, ',');
    json_t *v;
    if (f->is_object) {
        const jcs_member *m = &w->pool[f->first + f->next];
        put_string(&w->out, m->key, m->key_len);
        buf_putc(&w->out, ':');
        v = m->value;
    } else {
        v = json_array_get(f->container, f->next);
    }
    f->next++;
    put_value(w, v);
}

/* Appends the canonical form of v to out (out->failed on failure). */
static void write_value(jcs_out *out, const json_t *v) {
    jcs_walk w = {0};
    w.out = *out;
    /* jansson's accessors take non-const pointers; nothing here modifies the value. */
    put_value(&w, (json_t *)v);
    while (w.depth > 0 && !w.out.failed)
        step(&w);
    free(w.stack);
    free(w.pool);
    *out = w.out;
}

char *jcs_dump_new(const json_t *v, size_t *len_out) {
    if (!v) return NULL;
    jcs_out out = {0};
    jcs_out_value(&out, v);
    return jcs_out_take(&out, len_out);
}

/* ---- composing canonical text piece by piece ---- */

void jcs_out_raw(jcs_out *out, const char *s, size_t n) {
    buf_put(out, s, n);
}

void jcs_out_string(jcs_out *out, const char *s, size_t n) {
    if (!utf8_valid(s, n, NULL)) {
        out->failed = 1; /* canonical text is UTF-8 (RFC 8785 section 3.2.2.2) */
        return;
    }
    put_string(out, s, n);
}

void jcs_out_int(jcs_out *out, int64_t v) {
    char num[24];
    int n = format_integer(num, (json_int_t)v);
    buf_put(out, num, (size_t)n);
}

void jcs_out_value(jcs_out *out, const json_t *v) {
    if (!v) {
        out->failed = 1;
        return;
    }
    write_value(out, v);
}

char *jcs_out_take(jcs_out *out, size_t *len_out) {
    buf_putc(out, '\0');
    if (out->failed) {
        jcs_out_discard(out);
        return NULL;
    }
    char *text = out->data;
    if (len_out) *len_out = out->len - 1;
    memset(out, 0, sizeof *out);
    return text;
}

void jcs_out_discard(jcs_out *out) {
    free(out->data);
    memset(out, 0, sizeof *out);
}
