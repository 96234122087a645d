/* fuzz_notation: rules/common/notation.h notation_parse on the input as a C string.
 * Invariants: success => 1 <= nterms <= 32, total_dice = sum of counts <= 100, every dice term's
 * sides 1..1000 and keep_n within 1..count, constants 0..1000000; failure => 0 <= err.pos <=
 * strlen(input) and the message is a NUL-terminated non-empty string. */
#include "rules/common/notation.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_notation: invariant failed: %s (input \"%s\")\n", #cond, s); \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *s = malloc(size + 1);
    if (!s) return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    size_t len = strlen(s);

    notation n;
    notation_error err;
    memset(&err, 0x5a, sizeof err);
    if (notation_parse(s, &n, &err) == 0) {
        CHECK(n.nterms >= 1 && n.nterms <= NOTATION_MAX_TERMS);
        CHECK(n.total_dice >= 0 && n.total_dice <= NOTATION_MAX_DICE);
        CHECK(len <= NOTATION_MAX_LEN);
        int dice = 0;
        for (int i = 0; i < n.nterms; i++) {
            const notation_term *t = &n.terms[i];
            CHECK(t->sign == 1 || t->sign == -1);
            CHECK(t->pos >= 0 && (size_t)t->pos < len);
            CHECK(memchr(t->text, '\0', sizeof t->text) != NULL);
            if (t->kind == NOTATION_TERM_DICE) {
                CHECK(t->count >= 1 && t->count <= NOTATION_MAX_DICE);
                CHECK(t->sides >= 1 && t->sides <= NOTATION_MAX_SIDES);
                CHECK(t->keep_n >= 1 && t->keep_n <= t->count);
                CHECK(t->keep != NOTATION_KEEP_ALL || t->keep_n == t->count);
                CHECK(t->constant == 0);
                dice += t->count;
            } else {
                CHECK(t->kind == NOTATION_TERM_CONST);
                CHECK(t->constant >= 0 && t->constant <= NOTATION_MAX_CONSTANT);
                CHECK(t->count == 0 && t->sides == 0 && t->keep_n == 0);
            }
        }
        CHECK(dice == n.total_dice);
    } else {
        CHECK(err.pos >= 0 && (size_t)err.pos <= len);
        CHECK(memchr(err.message, '\0', sizeof err.message) != NULL);
        CHECK(err.message[0] != '\0');
        /* err may be NULL. */
        CHECK(notation_parse(s, &n, NULL) != 0);
    }
    free(s);
    return 0;
}
