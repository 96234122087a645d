/* Shared by rules modules: a bounded summary line, and a list of named die-roll modifiers
 * ("+2 flank, -1 woods") that a result carries as JSON and a summary names one by one. */
#ifndef UMPIRE_RULES_TERMS_H
#define UMPIRE_RULES_TERMS_H

#include <jansson.h>
#include <stddef.h>

#define RULES_TERMS_MAX     24
#define RULES_TERM_NAME_MAX 48

typedef struct rules_term {
    char name[RULES_TERM_NAME_MAX];
    int value;
} rules_term;

typedef struct rules_terms {
    rules_term t[RULES_TERMS_MAX];
    int n;
    int total;
} rules_terms;

/* Appends printf-style text to the NUL-terminated buf (capacity cap); a line cut short ends in
 * "..." rather than in the middle of a word without notice. */
void rules_say(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Adds a term (printf-style name). A term of value 0 is listed too: the caller decides. */
void rules_terms_add(rules_terms *terms, int value, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "+2 flank, -1 woods" (or "no modifier"). */
void rules_terms_text(const rules_terms *terms, char *out, size_t cap);
/* [{"name": "flank", "value": 2}, ...] (new reference). */
json_t *rules_terms_json_new(const rules_terms *terms);

#endif
