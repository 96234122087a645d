#include "rules/common/notation.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Numbers are read with saturation: any value above this reads as NUMBER_HUGE, so digit strings of
 * any length are range errors at their position rather than overflow. */
#define NUMBER_HUGE (NOTATION_MAX_CONSTANT + 1)

typedef struct parser {
    const char *s;
    int len;
    int pos;
    notation *out;
    notation_error *err;
} parser;

static int fail(parser *p, int pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(parser *p, int pos, const char *fmt, ...) {
    if (p->err) {
        p->err->pos = pos;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(p->err->message, sizeof p->err->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* What stands at pos, for messages: "'x'", "byte 0xc3" or "end of expression". Messages stay
 * ASCII (they go into JSON error bodies) whatever the input holds. */
static const char *describe(const parser *p, int pos, char buf[16]) {
    if (pos >= p->len) return "end of expression";
    unsigned char c = (unsigned char)p->s[pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 16, "'%c'", c);
    else
        snprintf(buf, 16, "byte 0x%02x", c);
    return buf;
}

static int unexpected(parser *p, const char *expected) {
    char buf[16];
    return fail(p, p->pos, "unexpected %s at position %d: expected %s", describe(p, p->pos, buf),
                p->pos, expected);
}

static char peek(const parser *p) {
    return p->pos < p->len ? p->s[p->pos] : '\0';
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int is_ci(char c, char lower) {
    return c == lower || c == lower - 'a' + 'A';
}

static void skip_spaces(parser *p) {
    while (peek(p) == ' ' || peek(p) == '\t')
        p->pos++;
}

/* Reads the digits at pos (the caller has checked there is one); values above
 * NOTATION_MAX_CONSTANT saturate to NUMBER_HUGE. */
static int read_number(parser *p) {
    int v = 0;
    while (is_digit(peek(p))) {
        int d = peek(p) - '0';
        v = v > NOTATION_MAX_CONSTANT / 10 ? NUMBER_HUGE : v * 10 + d;
        if (v > NOTATION_MAX_CONSTANT) v = NUMBER_HUGE;
        p->pos++;
    }
    return v;
}

/* Reads "kh<K>" / "kl<K>" after a dice term of count dice, if present. */
static int parse_keep(parser *p, notation_term *t) {
    t->keep = NOTATION_KEEP_ALL;
    t->keep_n = t->count;
    if (!is_ci(peek(p), 'k')) return 0;
    p->pos++;
    if (is_ci(peek(p), 'h'))
        t->keep = NOTATION_KEEP_HIGH;
    else if (is_ci(peek(p), 'l'))
        t->keep = NOTATION_KEEP_LOW;
    else
        return unexpected(p, "'h' or 'l' after 'k' (kh: keep highest, kl: keep lowest)");
    p->pos++;
    if (!is_digit(peek(p))) return unexpected(p, "the number of dice to keep");
    int kpos = p->pos;
    int k = read_number(p);
    if (k < 1 || k > t->count)
        return fail(p, kpos,
                    "bad number of dice to keep at position %d: between 1 and %d can be kept", kpos,
                    t->count);
    t->keep_n = k;
    return 0;
}

/* The dice part of a term, from its 'd' on; count came before the 'd' (read at count_pos). */
static int parse_dice(parser *p, notation_term *t, int count, int count_pos) {
    if (count < 1)
        return fail(p, count_pos, "no dice at position %d: a dice term rolls at least 1 die",
                    count_pos);
    /* Contract, generic ruleset: at most 100 dice in one expression, all terms together. */
    if (count > NOTATION_MAX_DICE - p->out->total_dice)
        return fail(p, count_pos, "too many dice at position %d: at most %d dice in one roll",
                    count_pos, NOTATION_MAX_DICE);
    p->pos++; /* the 'd' */
    if (!is_digit(peek(p))) return unexpected(p, "the number of sides after 'd'");
    int sides_pos = p->pos;
    int sides = read_number(p);
    if (sides < 1 || sides > NOTATION_MAX_SIDES)
        return fail(p, sides_pos, "bad number of sides at position %d: a die has 1 to %d sides",
                    sides_pos, NOTATION_MAX_SIDES);
    t->kind = NOTATION_TERM_DICE;
    t->count = count;
    t->sides = sides;
    if (parse_keep(p, t) != 0) return -1;
    p->out->total_dice += count;
    if (t->keep == NOTATION_KEEP_ALL)
        snprintf(t->text, sizeof t->text, "%dd%d", count, sides);
    else
        snprintf(t->text, sizeof t->text, "%dd%dk%c%d", count, sides,
                 t->keep == NOTATION_KEEP_HIGH ? 'h' : 'l', t->keep_n);
    return 0;
}

/* One term at pos; sign and term_pos (where its sign, or the term itself, starts) are known. */
static int parse_term(parser *p, int sign, int term_pos) {
    notation *out = p->out;
    if (out->nterms == NOTATION_MAX_TERMS)
        return fail(p, term_pos, "too many terms at position %d: at most %d terms in one roll",
                    term_pos, NOTATION_MAX_TERMS);
    notation_term *t = &out->terms[out->nterms];
    memset(t, 0, sizeof *t);
    t->sign = sign;
    t->pos = term_pos;
    if (is_ci(peek(p), 'd')) {
        if (parse_dice(p, t, 1, p->pos) != 0) return -1; /* "dS" is "1dS" */
    } else if (is_digit(peek(p))) {
        int num_pos = p->pos;
        int n = read_number(p);
        if (is_ci(peek(p), 'd')) {
            if (parse_dice(p, t, n, num_pos) != 0) return -1;
        } else if (n > NOTATION_MAX_CONSTANT) {
            return fail(p, num_pos, "number too large at position %d: constants go up to %d",
                        num_pos, NOTATION_MAX_CONSTANT);
        } else {
            t->kind = NOTATION_TERM_CONST;
            t->constant = n;
            snprintf(t->text, sizeof t->text, "%d", n);
        }
    } else {
        return unexpected(p, "a number or NdS");
    }
    out->nterms++;
    return 0;
}

/* An optional '+' or '-' at pos: if there is one, sets *sign, moves past it and returns 1. */
static int read_sign(parser *p, int *sign) {
    char c = peek(p);
    if (c != '+' && c != '-') return 0;
    *sign = c == '-' ? -1 : 1;
    p->pos++;
    return 1;
}

int notation_parse(const char *expr, notation *out, notation_error *err) {
    memset(out, 0, sizeof *out);
    if (err) memset(err, 0, sizeof *err);
    parser p = {.s = expr, .len = 0, .pos = 0, .out = out, .err = err};
    if (!expr) return fail(&p, 0, "missing expression at position 0: expected a number or NdS");
    int len = 0; /* strnlen, without needing POSIX */
    while (len <= NOTATION_MAX_LEN && expr[len] != '\0')
        len++;
    if (len > NOTATION_MAX_LEN)
        return fail(&p, NOTATION_MAX_LEN,
                    "expression too long at position %d: at most %d characters", NOTATION_MAX_LEN,
                    NOTATION_MAX_LEN);
    p.len = len;
    skip_spaces(&p);
    /* The first term may carry a sign; every later one is joined by exactly one '+' or '-'. */
    int sign = 1, term_pos = p.pos;
    read_sign(&p, &sign);
    skip_spaces(&p);
    if (parse_term(&p, sign, term_pos) != 0) return -1;
    for (;;) {
        skip_spaces(&p);
        if (p.pos == p.len) return 0;
        term_pos = p.pos;
        if (!read_sign(&p, &sign)) return unexpected(&p, "'+', '-' or the end of the expression");
        skip_spaces(&p);
        if (parse_term(&p, sign, term_pos) != 0) return -1;
    }
}
