/* Dice notation of the generic ruleset (contract, "Ruleset: generic"): parsing only, no rolling.
 *
 *   expr  = ws [sign ws] term { ws sign ws term } ws      sign = "+" | "-"    ws = { " " | "\t" }
 *   term  = number | [number] d number [k (h|l) number]   (d, k, h, l in either case)
 *
 * "dS" is 1dS. N >= 1, 1 <= S <= 1000, 1 <= K <= N, constants 0..1000000, at most 100 dice in
 * all terms together, at most 32 terms, at most 256 characters. */
#ifndef UMPIRE_NOTATION_H
#define UMPIRE_NOTATION_H

#include <stdint.h>

#define NOTATION_MAX_DICE     100  /* contract: at most 100 dice in one expression (all terms) */
#define NOTATION_MAX_SIDES    1000 /* contract: at most 1000 sides */
#define NOTATION_MAX_TERMS    32
#define NOTATION_MAX_LEN      256     /* longer expressions are rejected at position 256 */
#define NOTATION_MAX_CONSTANT 1000000 /* largest constant term */

typedef enum { NOTATION_TERM_DICE, NOTATION_TERM_CONST } notation_term_kind;
typedef enum { NOTATION_KEEP_ALL, NOTATION_KEEP_HIGH, NOTATION_KEEP_LOW } notation_keep;

/* A term's value is sign * (sum of its kept dice) or sign * constant. */
typedef struct notation_term {
    notation_term_kind kind;
    int sign;         /* +1 or -1 */
    int count, sides; /* dice terms; 0 for constants */
    notation_keep keep;
    int keep_n;       /* 1..count when keep != ALL; count when ALL; 0 for constants */
    int64_t constant; /* const terms: the magnitude, 0..1000000 (the sign is in sign); else 0 */
    int pos;          /* 0-based offset of the term (of its sign if any) in the expression */
    char text[32];    /* canonical text without sign: "3d6kh2", "2d6", "1d20" (for "d20"), "4" */
} notation_term;

typedef struct notation {
    notation_term terms[NOTATION_MAX_TERMS];
    int nterms;
    int total_dice; /* sum of count over the dice terms */
} notation;

typedef struct notation_error {
    int pos;
    char message[160];
} notation_error;

/* 0 on success; -1 with err->pos (0-based offset of the offending character, or of the end of the
 * expression when it ends too early) and a one-sentence ASCII message, e.g.
 * "unexpected 'x' at position 4: expected a number or NdS" or
 * "too many dice at position 0: at most 100 dice in one roll". On failure *out holds the terms
 * parsed so far and nothing else is meaningful. err may be NULL. */
int notation_parse(const char *expr, notation *out, notation_error *err);

#endif
