/* The campaign log renderers: jsonl (lossless), a Markdown diary and a self-contained HTML page.
 * Markdown and HTML share one set of content functions over a small writer whose block and
 * escaping primitives differ per format, so the two always say the same thing. */
#include "server/audit/campaign_log.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- growable output buffer ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool failed;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->failed || n == 0) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) {
    sb_put(b, s, strlen(s));
}

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof small) {
        b->failed = true; /* only ever used for numbers and short fixed text */
        return;
    }
    sb_put(b, small, (size_t)n);
}

/* The chunk: the buffer's text ("" when nothing was written), or NULL if anything failed. */
static char *sb_finish(sbuf *b, size_t *len) {
    if (!b->failed && !b->p) b->p = calloc(1, 1);
    if (b->failed || !b->p) {
        free(b->p);
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = b->len;
    return b->p;
}

/* ---- UTF-8 and escaping ---- */

/* Length of the valid UTF-8 sequence (2 to 4 bytes, no overlong form, no surrogate, at most
 * U+10FFFF) that starts at s, or 0 if the bytes there are not one. */
static size_t utf8_len(const unsigned char *s) {
    size_t n;
    unsigned long min;
    if (s[0] >= 0xC2 && s[0] <= 0xDF)
        n = 2, min = 0x80;
    else if ((s[0] & 0xF0) == 0xE0)
        n = 3, min = 0x800;
    else if (s[0] >= 0xF0 && s[0] <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    unsigned long cp = s[0] & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

typedef void (*put_ascii_fn)(sbuf *b, char c);

/* Writes the non-ASCII character at p: a valid UTF-8 sequence as it is, else U+FFFD for its
 * first byte. Returns the bytes consumed. */
static size_t put_utf8(sbuf *b, const unsigned char *p) {
    size_t n = utf8_len(p);
    if (n == 0) {
        sb_puts(b, "\xEF\xBF\xBD");
        return 1;
    }
    sb_put(b, (const char *)p, n);
    return n;
}

/* Writes s: valid UTF-8 passes through, each ASCII character goes through put_ascii, and a byte
 * that is not valid UTF-8 becomes U+FFFD. */
static void put_escaped(sbuf *b, const char *s, put_ascii_fn put_ascii) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80)
            put_ascii(b, (char)*p++);
        else
            p += put_utf8(b, p);
    }
}

static bool is_control(char c) {
    return (unsigned char)c < 0x20 || c == 0x7F;
}

static bool is_alnum_ascii(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Whether the ASCII character s[i] needs a backslash in Markdown text. Always: whatever can open
 * code, emphasis, an HTML tag or entity, a table cell, strikethrough or a heading closer. "_"
 * unless inside a word (snake_case cannot emphasise). "]" before "(" or at the end (no inline
 * link or image can form; a bare "[4,5]" stays as it is, as there are no link definitions).
 * At the start of a block also "[" (a link definition, a task box), "-", "+" and "=" (a list,
 * a heading underline). */
static bool md_needs_escape(const char *s, size_t i, bool block_start) {
    static const char always[] = "\\`*<>&#|~";
    char c = s[i];
    if (strchr(always, c)) return true;
    switch (c) {
    case '_':
        return i == 0 || !is_alnum_ascii(s[i - 1]) || !is_alnum_ascii(s[i + 1]);
    case ']':
        return s[i + 1] == '(' || s[i + 1] == '\0';
    case '[':
    case '-':
    case '+':
    case '=':
        return block_start && i == 0;
    default:
        return false;
    }
}

/* Markdown text. Control characters (a newline would start a new block) read as a space. When
 * the text begins a block (a paragraph, a list item), leading blanks are dropped (they could
 * make a code block) and "12." / "12)" is escaped (an ordered list). */
static void md_put_text(sbuf *b, const char *s, bool block_start) {
    if (block_start) {
        while (*s && (*s == ' ' || is_control(*s)))
            s++;
        size_t digits = strspn(s, "0123456789");
        if (digits && (s[digits] == '.' || s[digits] == ')')) {
            sb_put(b, s, digits);
            sb_put(b, "\\", 1);
            sb_put(b, s + digits, 1);
            s += digits + 1;
            block_start = false;
        }
    }
    for (size_t i = 0; s[i];) {
        if ((unsigned char)s[i] >= 0x80) {
            i += put_utf8(b, (const unsigned char *)s + i);
            continue;
        }
        char c = is_control(s[i]) ? ' ' : s[i];
        if (md_needs_escape(s, i, block_start)) sb_put(b, "\\", 1);
        sb_put(b, &c, 1);
        i++;
    }
}

/* Inside a Markdown code span everything is literal; only control characters are mapped. */
static void code_put_ascii(sbuf *b, char c) {
    if (is_control(c)) c = ' ';
    sb_put(b, &c, 1);
}

static void html_put_ascii(sbuf *b, char c) {
    switch (c) {
    case '&':
        sb_puts(b, "&amp;");
        break;
    case '<':
        sb_puts(b, "&lt;");
        break;
    case '>':
        sb_puts(b, "&gt;");
        break;
    case '"':
        sb_puts(b, "&quot;");
        break;
    case '\'':
        sb_puts(b, "&#39;");
        break;
    default:
        code_put_ascii(b, c);
        break;
    }
}

/* ---- reading events (every accessor copes with NULL and wrong types) ---- */

static const char *get_str(const json_t *obj, const char *key) {
    return json_string_value(json_object_get(obj, key));
}

/* "2026-11-21T19:34:12.250Z" reads as "2026-11-21 19:34:12 UTC"; false for any other shape. */
static bool ts_pretty(const char *ts, char out[24]) {
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    if (!ts) return false;
    for (size_t i = 0; i < sizeof shape - 1; i++) {
        char want = shape[i], c = ts[i];
        bool ok = want == 'd'   ? c >= '0' && c <= '9'
                  : want == 'T' ? c == 'T' || c == 't'
                                : c == want;
        if (!ok) return false;
    }
    const char *p = ts + sizeof shape - 1;
    if (*p == '.') {
        size_t frac = strspn(++p, "0123456789");
        if (frac == 0) return false;
        p += frac;
    }
    if ((*p != 'Z' && *p != 'z') || p[1] != '\0') return false;
    memcpy(out, ts, 10);
    out[10] = ' ';
    memcpy(out + 11, ts + 11, 8);
    memcpy(out + 19, " UTC", 5);
    return true;
}

/* Who acted, as the diary says it: "side:knight" is "knight", "referee" is "the referee". */
static const char *actor_words(const char *actor) {
    if (!actor) return "someone";
    if (strncmp(actor, "side:", 5) == 0) return actor + 5;
    if (strcmp(actor, "referee") == 0) return "the referee";
    if (strcmp(actor, "server") == 0) return "the server";
    return actor;
}

/* ---- the writer: one set of primitives, two formats ---- */

typedef struct writer {
    sbuf b;
    campaign_log_format f;
    bool block_start; /* Markdown: the next text begins a block */
} writer;

typedef enum { BLK_H1, BLK_H2, BLK_H3, BLK_P, BLK_UL, BLK_LI } block;

static const struct {
    const char *md_open, *md_close, *html_open, *html_close;
    bool md_starts_block;
} blocks[] = {
    [BLK_H1] = {"# ", "\n\n", "<h1>", "</h1>\n", false},
    [BLK_H2] = {"## ", "\n\n", "<h2>", "</h2>\n", false},
    [BLK_H3] = {"### ", "\n\n", "<h3>", "</h3>\n", false},
    [BLK_P] = {"", "\n\n", "<p>", "</p>\n", true},
    [BLK_UL] = {"", "\n", "<ul>\n", "</ul>\n", false},
    [BLK_LI] = {"- ", "\n", "<li>", "</li>\n", true},
};

static bool is_html(const writer *w) {
    return w->f == CAMPAIGN_LOG_HTML;
}

static void w_open(writer *w, block k) {
    sb_puts(&w->b, is_html(w) ? blocks[k].html_open : blocks[k].md_open);
    w->block_start = blocks[k].md_starts_block;
}

static void w_close(writer *w, block k) {
    sb_puts(&w->b, is_html(w) ? blocks[k].html_close : blocks[k].md_close);
    w->block_start = false;
}

/* Fixed text of ours, the same in both formats (never user data). */
static void w_lit(writer *w, const char *s) {
    sb_puts(&w->b, s);
    if (*s) w->block_start = false;
}

/* Raw markup for one format only. */
static void w_html(writer *w, const char *s) {
    if (is_html(w)) sb_puts(&w->b, s);
}

static void w_md(writer *w, const char *s) {
    if (!is_html(w)) sb_puts(&w->b, s);
}

/* A user-provided (or otherwise untrusted) string, escaped for the format. */
static void w_text(writer *w, const char *s) {
    if (!s) return;
    if (is_html(w))
        put_escaped(&w->b, s, html_put_ascii);
    else
        md_put_text(&w->b, s, w->block_start);
    if (*s) w->block_start = false;
}

/* A string shown as code (hashes, notation, commands). Markdown uses a code span only when the
 * string can sit in one literally (no backtick, not empty, no blank at either end). */
static void w_code(writer *w, const char *s) {
    if (!s) return;
    size_t n = strlen(s);
    if (is_html(w)) {
        sb_puts(&w->b, "<code>");
        put_escaped(&w->b, s, html_put_ascii);
        sb_puts(&w->b, "</code>");
    } else if (n == 0 || strchr(s, '`') || s[0] == ' ' || s[n - 1] == ' ') {
        w_text(w, s);
    } else {
        sb_put(&w->b, "`", 1);
        put_escaped(&w->b, s, code_put_ascii);
        sb_put(&w->b, "`", 1);
    }
    w->block_start = false;
}

static void w_strong_open(writer *w) {
    w_lit(w, is_html(w) ? "<strong>" : "**");
}

static void w_strong_close(writer *w) {
    w_lit(w, is_html(w) ? "</strong>" : "**");
}

/* A label of ours in bold: "**Dice:**". */
static void w_label(writer *w, const char *s) {
    w_strong_open(w);
    w_lit(w, s);
    w_strong_close(w);
}

static void w_llong(writer *w, long long v) {
    sb_printf(&w->b, "%lld", v);
    w->block_start = false;
}

/* An integer of the log, or "?" when the value is not one. */
static void w_int(writer *w, const json_t *v) {
    if (json_is_integer(v))
        w_llong(w, (long long)json_integer_value(v));
    else
        w_lit(w, "?");
}

/* A timestamp: "2026-11-21 19:34:12 UTC" (HTML inside <time datetime="...">), an unusual one
 * as it is, a missing one as "time unknown". */
static void w_time(writer *w, const char *ts) {
    char pretty[24];
    if (!ts) {
        w_lit(w, "time unknown");
        return;
    }
    bool ok = ts_pretty(ts, pretty);
    if (is_html(w)) {
        sb_puts(&w->b, "<time datetime=\"");
        put_escaped(&w->b, ts, html_put_ascii);
        sb_puts(&w->b, "\">");
    }
    if (ok)
        w_lit(w, pretty);
    else
        w_text(w, ts);
    w_html(w, "</time>");
}

/* ---- the renderer ---- */

struct campaign_log {
    campaign_log_format format;
    char *session_id; /* NULL until known */
    bool begun, heading_done;
    size_t events;
    char *head; /* the last event's hash, or NULL */
};

int campaign_log_format_parse(const char *name, campaign_log_format *out) {
    static const char *const names[] = {"jsonl", "markdown", "html"};
    static const campaign_log_format formats[] = {CAMPAIGN_LOG_JSONL, CAMPAIGN_LOG_MARKDOWN,
                                                  CAMPAIGN_LOG_HTML};
    for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(name, names[i]) == 0) {
            if (out) *out = formats[i];
            return 0;
        }
    }
    return -1;
}

const char *campaign_log_content_type(campaign_log_format f) {
    switch (f) {
    case CAMPAIGN_LOG_MARKDOWN:
        return "text/markdown; charset=utf-8";
    case CAMPAIGN_LOG_HTML:
        return "text/html; charset=utf-8";
    case CAMPAIGN_LOG_JSONL:
    default:
        return "application/x-ndjson; charset=utf-8";
    }
}

campaign_log *campaign_log_new(campaign_log_format f, const char *session_id) {
    campaign_log *log = calloc(1, sizeof *log);
    if (!log) return NULL;
    log->format = f;
    if (session_id && !(log->session_id = strdup(session_id))) {
        free(log);
        return NULL;
    }
    return log;
}

void campaign_log_free(campaign_log *log) {
    if (!log) return;
    free(log->session_id);
    free(log->head);
    free(log);
}

/* ---- jsonl ---- */

static const char *const event_keys[] = {"seq", "ts", "actor", "type", "data", "prev", "hash"};
#define NEVENT_KEYS (sizeof event_keys / sizeof event_keys[0])

/* Compact JSON of any value, data's keys sorted; strings are UTF-8 as jansson holds them. */
static void jsonl_value(sbuf *b, const json_t *v) {
    char *text = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
    if (!text) {
        b->failed = true;
        return;
    }
    sb_puts(b, text);
    free(text);
}

static void jsonl_member(sbuf *b, bool *first, const char *key, const json_t *v) {
    json_t *k = json_string(key);
    if (!k) {
        b->failed = true;
        return;
    }
    if (!*first) sb_put(b, ",", 1);
    *first = false;
    jsonl_value(b, k);
    json_decref(k);
    sb_put(b, ":", 1);
    jsonl_value(b, v);
}

static bool is_event_key(const char *key) {
    for (size_t i = 0; i < NEVENT_KEYS; i++)
        if (strcmp(key, event_keys[i]) == 0) return true;
    return false;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Members beyond the seven of an event, sorted by key, so that nothing given is dropped. */
static void jsonl_extra_members(sbuf *b, bool *first, const json_t *event) {
    size_t n = 0, cap = json_object_size(event);
    const char **extra = malloc(sizeof *extra * (cap ? cap : 1));
    if (!extra) {
        b->failed = true;
        return;
    }
    const char *key;
    const json_t *v;
    json_object_foreach((json_t *)event, key, v) {
        if (!is_event_key(key)) extra[n++] = key;
    }
    qsort(extra, n, sizeof *extra, cmp_str);
    for (size_t i = 0; i < n; i++)
        jsonl_member(b, first, extra[i], json_object_get(event, extra[i]));
    free(extra);
}

static void jsonl_event(sbuf *b, const json_t *event) {
    if (!json_is_object(event)) {
        jsonl_value(b, event);
        sb_put(b, "\n", 1);
        return;
    }
    bool first = true;
    sb_put(b, "{", 1);
    for (size_t i = 0; i < NEVENT_KEYS; i++) {
        const json_t *v = json_object_get(event, event_keys[i]);
        if (v) jsonl_member(b, &first, event_keys[i], v);
    }
    jsonl_extra_members(b, &first, event);
    sb_put(b, "}\n", 2);
}

/* ---- document parts ---- */

static const char html_head_start[] =
    "<!DOCTYPE html>\n"
    "<html lang=\"en\">\n"
    "<head>\n"
    "<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<style>\n"
    ":root{color-scheme:light dark}\n"
    "body{margin:0;background:#fbfaf7;color:#1f1d1a;"
    "font:1rem/1.55 system-ui,-apple-system,\"Segoe UI\",Roboto,sans-serif}\n"
    "main{max-width:44rem;margin:0 auto;padding:1rem}\n"
    "h1{font-size:1.6rem;line-height:1.25;margin:.5rem 0 1rem}\n"
    "h2{font-size:1.2rem;margin:2rem 0 .5rem;padding-bottom:.2rem;border-bottom:1px solid "
    "#d9d3c4}\n"
    "h3{font-size:1rem;margin:0 0 .3rem;color:#5b5549}\n"
    "p{margin:.4rem 0}\n"
    "ul{margin:.3rem 0;padding-left:1.3rem}\n"
    ".entry{margin:1rem 0;padding:.2rem 0 .2rem .8rem;border-left:3px solid #b08d57}\n"
    ".entry.reveal{border-left-color:#5b7fa6}\n"
    ".entry.other{border-left-color:#b9b3a5}\n"
    "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.88em;"
    "overflow-wrap:anywhere;word-break:break-all}\n"
    "footer{margin-top:2rem;padding-top:.5rem;border-top:1px solid #d9d3c4;font-size:.95rem}\n"
    "@media (prefers-color-scheme:dark){body{background:#161513;color:#e9e5db}"
    "h2,footer{border-color:#3c3931}h3{color:#bab3a2}}\n"
    "</style>\n";

static void put_begin(campaign_log *log, writer *w) {
    if (log->begun) return;
    log->begun = true;
    w_html(w, html_head_start);
}

/* The HTML title and the end of the document head; nothing in Markdown. */
static void put_page_title(writer *w, const char *title) {
    if (!is_html(w)) return;
    sb_puts(&w->b, "<title>");
    put_escaped(&w->b, title, html_put_ascii);
    sb_puts(&w->b, " · Umpire campaign log</title>\n</head>\n<body>\n<main>\n<header>\n");
}

static void put_title(writer *w, const char *title) {
    if (!title || !*title) title = "Untitled session";
    put_page_title(w, title);
    w_open(w, BLK_H1);
    w_text(w, title);
    w_close(w, BLK_H1);
}

/* "Campaign log of Umpire session `id`, ruleset generic (version 1), begun <time>." */
static void put_intro(writer *w, const char *id, const json_t *data, const char *ts) {
    const char *ruleset = get_str(data, "ruleset");
    const json_t *version = json_object_get(data, "ruleset_version");
    w_open(w, BLK_P);
    w_lit(w, id ? "Campaign log of Umpire session " : "Campaign log of an Umpire session");
    w_code(w, id);
    if (ruleset) {
        w_lit(w, ", ruleset ");
        w_text(w, ruleset);
        if (json_is_integer(version)) {
            w_lit(w, " (version ");
            w_int(w, version);
            w_lit(w, ")");
        }
    }
    if (ts) {
        w_lit(w, ", begun ");
        w_time(w, ts);
    }
    w_lit(w, ".");
    w_close(w, BLK_P);
}

static void put_dice_mode(writer *w, const json_t *dice) {
    const char *mode = get_str(dice, "mode"), *commitment = get_str(dice, "commitment");
    const char *seed = get_str(dice, "seed");
    if (!mode) return;
    w_open(w, BLK_P);
    w_label(w, "Dice:");
    w_lit(w, " ");
    w_text(w, mode);
    if (strcmp(mode, "server") == 0)
        w_lit(w,
              " mode: the server rolls from a secret seed it committed to before the first roll");
    else if (strcmp(mode, "seeded") == 0)
        w_lit(w, " mode: every die follows from a seed public from the start");
    else if (strcmp(mode, "manual") == 0)
        w_lit(w, " mode: the dice were rolled at the table and entered by hand");
    else
        w_lit(w, " mode");
    w_lit(w, ".");
    if (seed) {
        w_lit(w, " Seed ");
        w_code(w, seed);
        w_lit(w, ".");
    }
    if (commitment) {
        w_lit(w, " Commitment ");
        w_code(w, commitment);
        w_lit(w, ".");
    }
    w_close(w, BLK_P);
}

static void put_sides(writer *w, const json_t *sides) {
    if (json_array_size(sides) == 0) return;
    w_open(w, BLK_P);
    w_label(w, "Sides:");
    for (size_t i = 0; i < json_array_size(sides); i++) {
        w_lit(w, i ? ", " : " ");
        w_text(w, json_string_value(json_array_get(sides, i)));
    }
    w_close(w, BLK_P);
}

static void put_units(writer *w, const json_t *units) {
    if (json_array_size(units) == 0) return;
    w_open(w, BLK_P);
    w_label(w, "Units:");
    w_close(w, BLK_P);
    w_open(w, BLK_UL);
    for (size_t i = 0; i < json_array_size(units); i++) {
        const json_t *unit = json_array_get(units, i);
        const char *id = get_str(unit, "id"), *side = get_str(unit, "side");
        w_open(w, BLK_LI);
        w_text(w, id ? id : "(unnamed unit)");
        if (side) {
            w_lit(w, " (");
            w_text(w, side);
            w_lit(w, ")");
        }
        w_close(w, BLK_LI);
    }
    w_close(w, BLK_UL);
}

static void put_log_heading(writer *w) {
    w_html(w, "</header>\n");
    w_open(w, BLK_H2);
    w_lit(w, "Log");
    w_close(w, BLK_H2);
}

/* The heading from event 1, session_created. */
static void put_heading(campaign_log *log, writer *w, const json_t *event) {
    const json_t *data = json_object_get(event, "data");
    const char *id = get_str(data, "id");
    /* Without a session id given, event 1's data.id names the session, here and in the footer. */
    if (!log->session_id && id && !(log->session_id = strdup(id))) w->b.failed = true;
    id = log->session_id;
    put_title(w, get_str(data, "title"));
    put_intro(w, id, data, get_str(event, "ts"));
    put_dice_mode(w, json_object_get(data, "dice"));
    put_sides(w, json_object_get(data, "sides"));
    put_units(w, json_object_get(json_object_get(data, "setup"), "units"));
    put_log_heading(w);
    log->heading_done = true;
}

/* A heading for a log that does not start with session_created (or has no events at all). */
static void put_fallback_heading(campaign_log *log, writer *w) {
    put_title(w, NULL);
    put_intro(w, log->session_id, NULL, NULL);
    put_log_heading(w);
    log->heading_done = true;
}

/* ---- entries ---- */

static void entry_open(writer *w, const char *kind, const json_t *event) {
    const json_t *seq = json_object_get(event, "seq");
    if (is_html(w)) {
        sb_printf(&w->b, "<article class=\"entry %s\"", kind);
        if (json_is_integer(seq))
            sb_printf(&w->b, " id=\"e%lld\"", (long long)json_integer_value(seq));
        sb_puts(&w->b, ">\n");
    }
}

static void entry_close(writer *w) {
    w_html(w, "</article>\n");
}

/* "2 · 2026-11-21 19:34:12 UTC · knight (sir-bors)" */
static void put_entry_title(writer *w, const json_t *event) {
    const char *unit = get_str(json_object_get(json_object_get(event, "data"), "action"), "unit");
    w_open(w, BLK_H3);
    w_int(w, json_object_get(event, "seq"));
    w_lit(w, " · ");
    w_time(w, get_str(event, "ts"));
    w_lit(w, " · ");
    w_text(w, actor_words(get_str(event, "actor")));
    if (unit) {
        w_lit(w, " (");
        w_text(w, unit);
        w_lit(w, ")");
    }
    w_close(w, BLK_H3);
}

static void put_values(writer *w, const json_t *values) {
    for (size_t i = 0; i < json_array_size(values); i++) {
        if (i) w_lit(w, ", ");
        w_int(w, json_array_get(values, i));
    }
}

/* "nonce 3", "nonces 3–5" (values[i] came from nonce + i) or "entered by hand". */
static void put_nonce(writer *w, const json_t *die, size_t count) {
    const json_t *nonce = json_object_get(die, "nonce");
    if (json_is_true(json_object_get(die, "manual"))) {
        w_lit(w, " (entered by hand)");
    } else if (json_is_integer(nonce)) {
        long long first = (long long)json_integer_value(nonce);
        bool range = count > 1 && first >= 0 &&
                     (unsigned long long)(count - 1) <= (unsigned long long)(LLONG_MAX - first);
        w_lit(w, range ? " (nonces " : " (nonce ");
        w_llong(w, first);
        if (range) {
            w_lit(w, "–");
            w_llong(w, first + (long long)(count - 1));
        }
        w_lit(w, ")");
    }
}

/* "Dice: attack `2d6` rolled 4, 5 → 9 (nonces 1–2)" */
static void put_die(writer *w, const json_t *die) {
    const json_t *values = json_object_get(die, "values"), *value = json_object_get(die, "value");
    const char *purpose = get_str(die, "purpose"), *notation = get_str(die, "notation");
    w_open(w, BLK_LI);
    w_label(w, "Dice:");
    if (purpose) {
        w_lit(w, " ");
        w_text(w, purpose);
    }
    if (notation) {
        w_lit(w, " ");
        w_code(w, notation);
    }
    if (json_array_size(values)) {
        w_lit(w, " rolled ");
        put_values(w, values);
    }
    if (value) {
        w_lit(w, " → ");
        w_int(w, value);
    }
    put_nonce(w, die, json_array_size(values));
    w_close(w, BLK_LI);
}

/* One modifier: "darkness -1", a named one with a text value "cover heavy", or a plain string. */
static void put_modifier(writer *w, const json_t *m) {
    const json_t *value = json_object_get(m, "value");
    if (json_is_string(m)) {
        w_text(w, json_string_value(m));
        return;
    }
    w_text(w, get_str(m, "name") ? get_str(m, "name") : "(unnamed)");
    if (json_is_integer(value)) {
        sb_printf(&w->b, " %+lld", (long long)json_integer_value(value));
    } else if (json_is_string(value)) {
        w_lit(w, " ");
        w_text(w, json_string_value(value));
    }
}

static void put_modifiers(writer *w, const json_t *mods) {
    if (json_array_size(mods) == 0) return;
    w_open(w, BLK_LI);
    w_label(w, "Modifiers:");
    for (size_t i = 0; i < json_array_size(mods); i++) {
        w_lit(w, i ? ", " : " ");
        put_modifier(w, json_array_get(mods, i));
    }
    w_close(w, BLK_LI);
}

/* An action: its summary, then the dice that decided it and the modifiers its result lists. */
static void put_action(writer *w, const json_t *event) {
    const json_t *data = json_object_get(event, "data");
    const json_t *dice = json_object_get(data, "dice");
    const json_t *mods = json_object_get(json_object_get(data, "result"), "modifiers");
    entry_open(w, "action", event);
    put_entry_title(w, event);
    w_open(w, BLK_P);
    w_text(w, get_str(data, "summary"));
    w_close(w, BLK_P);
    if (json_array_size(dice) || json_array_size(mods)) {
        w_open(w, BLK_UL);
        for (size_t i = 0; i < json_array_size(dice); i++)
            put_die(w, json_array_get(dice, i));
        put_modifiers(w, mods);
        w_close(w, BLK_UL);
    }
    entry_close(w);
}

static void put_reveal_item(writer *w, const char *label, const json_t *v) {
    if (!v) return;
    w_open(w, BLK_LI);
    w_label(w, label);
    w_lit(w, " ");
    if (json_is_string(v))
        w_code(w, json_string_value(v));
    else
        w_int(w, v);
    w_close(w, BLK_LI);
}

static void put_reveal_sentence(writer *w, const json_t *last) {
    long long n = (long long)json_integer_value(last);
    w_open(w, BLK_P);
    w_lit(w, "The dice seed was revealed.");
    if (json_is_integer(last) && n >= 0 && n < LLONG_MAX) {
        w_lit(w, " Every die up to nonce ");
        w_llong(w, n);
        w_lit(w, " was rolled under it; from nonce ");
        w_llong(w, n + 1);
        w_lit(w, " on, the dice come from a fresh seed, committed to below.");
    }
    w_close(w, BLK_P);
}

static void put_reveal_check(writer *w) {
    w_open(w, BLK_P);
    w_label(w, "To check it:");
    w_lit(w, " the SHA-256 of the seed's 32 bytes (decoded from hex) must equal the commitment "
             "published before those dice were rolled, at the start of the session or at the "
             "previous reveal. Each die with nonce n then follows from HMAC-SHA256 with the "
             "seed's bytes as key and ");
    w_code(w, "<session id>:<n>");
    w_lit(w, " as message, or ");
    w_code(w, "<session id>:<n>:<digest>");
    w_lit(w, " while players' entropy was in force (the contract's Dice section); ");
    w_code(w, "umpire-verify");
    w_lit(w, " recomputes every one of them.");
    w_close(w, BLK_P);
}

static void put_reveal(writer *w, const json_t *event) {
    const json_t *data = json_object_get(event, "data");
    entry_open(w, "reveal", event);
    put_entry_title(w, event);
    put_reveal_sentence(w, json_object_get(data, "last_nonce"));
    if (json_object_size(data)) {
        w_open(w, BLK_UL);
        put_reveal_item(w, "Seed:", json_object_get(data, "seed"));
        put_reveal_item(w, "Commitment:", json_object_get(data, "commitment"));
        put_reveal_item(w, "Last nonce:", json_object_get(data, "last_nonce"));
        put_reveal_item(w, "Next commitment:", json_object_get(data, "next_commitment"));
        w_close(w, BLK_UL);
    }
    put_reveal_check(w);
    entry_close(w);
}

/* A player's own entropy: who added what, and the digest every later die carries. */
static void put_entropy(writer *w, const json_t *event) {
    const json_t *data = json_object_get(event, "data");
    const json_t *in_force = json_object_get(data, "in_force");
    entry_open(w, "entropy", event);
    put_entry_title(w, event);
    w_open(w, BLK_P);
    w_text(w, actor_words(get_str(event, "actor")));
    w_lit(w, " added their own entropy to the dice: ");
    w_code(w, get_str(data, "seed") ? get_str(data, "seed") : "?");
    w_lit(w, ". From the next die on, until the seed is revealed, every die mixes in what ");
    size_t n = json_object_size(in_force), i = 0;
    const char *role;
    json_t *seed;
    json_object_foreach((json_t *)in_force, role, seed) {
        (void)seed;
        if (i) w_lit(w, i + 1 == n ? " and " : ", ");
        w_text(w, actor_words(role));
        i++;
    }
    if (!n) w_lit(w, "the players");
    w_lit(w, " contributed, as the digest ");
    w_code(w, get_str(data, "digest") ? get_str(data, "digest") : "?");
    w_lit(w, ".");
    w_close(w, BLK_P);
    entry_close(w);
}

/* Any other event: "**5** · <time> · the server: `type`". */
static void put_other(writer *w, const json_t *event) {
    entry_open(w, "other", event);
    w_open(w, BLK_P);
    if (!json_is_object(event)) {
        w_lit(w, "An event of unknown shape (not a JSON object).");
    } else {
        w_strong_open(w);
        w_int(w, json_object_get(event, "seq"));
        w_strong_close(w);
        w_lit(w, " · ");
        w_time(w, get_str(event, "ts"));
        w_lit(w, " · ");
        w_text(w, actor_words(get_str(event, "actor")));
        w_lit(w, ": ");
        w_code(w, get_str(event, "type") ? get_str(event, "type") : "(no type)");
    }
    w_close(w, BLK_P);
    entry_close(w);
}

static bool is_type(const json_t *event, const char *type) {
    const char *t = get_str(event, "type");
    return t && strcmp(t, type) == 0;
}

static void put_event(campaign_log *log, writer *w, const json_t *event) {
    if (!log->heading_done && is_type(event, "session_created")) {
        put_heading(log, w, event);
        return;
    }
    if (!log->heading_done) put_fallback_heading(log, w);
    if (json_is_string(json_object_get(json_object_get(event, "data"), "summary")))
        put_action(w, event);
    else if (is_type(event, "dice_seed_revealed"))
        put_reveal(w, event);
    else if (is_type(event, "entropy_contributed"))
        put_entropy(w, event);
    else
        put_other(w, event);
}

/* ---- the footer ---- */

/* A command or request line of the hint, as one string: a + b + c. */
static char *join3_new(const char *a, const char *b, const char *c) {
    sbuf s = {0};
    sb_puts(&s, a);
    sb_puts(&s, b);
    sb_puts(&s, c);
    if (s.failed) free(s.p);
    return s.failed ? NULL : s.p;
}

/* "To verify this log, export it as jsonl (`GET ...`) to a file, say campaign.jsonl, and run
 * `umpire-verify campaign.jsonl --head <head>`: ..." */
static void put_verify_hint(campaign_log *log, writer *w) {
    const char *id = log->session_id ? log->session_id : "<session id>";
    char *request = join3_new("GET /v1/sessions/", id, "/log?format=jsonl");
    char *command = log->head ? join3_new("umpire-verify campaign.jsonl --head ", log->head, "")
                              : join3_new("umpire-verify campaign.jsonl", "", "");
    if (!request || !command) w->b.failed = true;
    w_open(w, BLK_P);
    w_lit(w, "To verify this log, export it as jsonl (");
    w_code(w, request);
    w_lit(w, ") to a file, say campaign.jsonl, and run ");
    w_code(w, command);
    w_lit(w, ": it recomputes every hash from event 1, every die whose seed is known and every "
             "action from its logged dice, and checks that the chain ends at this head after ");
    w_llong(w, (long long)log->events);
    w_lit(w, log->events == 1 ? " event." : " events.");
    w_close(w, BLK_P);
    free(request);
    free(command);
}

static void put_footer(campaign_log *log, writer *w) {
    w_md(w, "---\n\n");
    w_html(w, "<footer>\n");
    if (log->events == 0) {
        w_open(w, BLK_P);
        w_lit(w, "The log holds no events.");
        w_close(w, BLK_P);
    } else {
        w_open(w, BLK_P);
        w_label(w, "Head hash:");
        w_lit(w, " ");
        w_code(w, log->head ? log->head : "(none)");
        w_close(w, BLK_P);
        w_open(w, BLK_P);
        w_label(w, "Events:");
        w_lit(w, " ");
        w_llong(w, (long long)log->events);
        w_close(w, BLK_P);
        put_verify_hint(log, w);
    }
    w_html(w, "</footer>\n</main>\n</body>\n</html>\n");
    /* Markdown ends with one newline, not a blank line. */
    if (!is_html(w) && w->b.len >= 2 && w->b.p[w->b.len - 2] == '\n') w->b.p[--w->b.len] = '\0';
}

/* ---- the chunks ---- */

static void writer_init(writer *w, const campaign_log *log) {
    memset(w, 0, sizeof *w);
    w->f = log->format;
}

char *campaign_log_begin_new(campaign_log *log, size_t *len) {
    if (!log) return NULL;
    writer w;
    writer_init(&w, log);
    put_begin(log, &w);
    return sb_finish(&w.b, len);
}

/* Remembers the event's hash as the head; false on allocation failure. */
static bool note_event(campaign_log *log, const json_t *event) {
    const char *hash = get_str(event, "hash");
    free(log->head);
    log->head = hash ? strdup(hash) : NULL;
    log->events++;
    return !hash || log->head;
}

char *campaign_log_event_new(campaign_log *log, const json_t *event, size_t *len) {
    if (!log) return NULL;
    writer w;
    writer_init(&w, log);
    put_begin(log, &w);
    if (event) {
        if (!note_event(log, event)) w.b.failed = true;
        if (log->format == CAMPAIGN_LOG_JSONL)
            jsonl_event(&w.b, event);
        else
            put_event(log, &w, event);
    }
    return sb_finish(&w.b, len);
}

char *campaign_log_end_new(campaign_log *log, size_t *len) {
    if (!log) return NULL;
    writer w;
    writer_init(&w, log);
    put_begin(log, &w);
    if (log->format != CAMPAIGN_LOG_JSONL) {
        if (!log->heading_done) put_fallback_heading(log, &w);
        put_footer(log, &w);
    }
    return sb_finish(&w.b, len);
}
