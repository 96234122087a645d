/* Rolling a dice notation for its total (rules/common/notation_roll.h). */
#include "rules/common/notation_roll.h"

#include "rules/common/notation.h"

#include <stdlib.h>

static int by_value(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

static int parse(const char *expr, const char *field, notation *n, api_error *err) {
    notation_error ne;
    if (notation_parse(expr, n, &ne) == 0) return 0;
    api_error_set(err, 422, "invalid_notation",
                  json_pack("{s:s, s:i}", "field", field, "position", ne.pos), "%s: %s", field,
                  ne.message);
    return -1;
}

int notation_check(const char *expr, const char *field, api_error *err) {
    notation n;
    return parse(expr, field, &n, err);
}

int notation_roll_total(dice_source *ds, const char *expr, const char *field, const char *purpose,
                        int64_t *out, api_error *err) {
    notation n;
    if (parse(expr, field, &n, err) != 0) return -1;
    int64_t total = 0;
    for (int i = 0; i < n.nterms; i++) {
        const notation_term *t = &n.terms[i];
        if (t->kind == NOTATION_TERM_CONST) {
            total += t->sign * t->constant;
            continue;
        }
        int values[NOTATION_MAX_DICE];
        if (dice_roll(ds, purpose, t->text, t->count, t->sides, values) != 0) {
            api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
            return -1;
        }
        qsort(values, (size_t)t->count, sizeof values[0], by_value);
        int from = t->keep == NOTATION_KEEP_HIGH ? t->count - t->keep_n : 0;
        int upto = t->keep == NOTATION_KEEP_LOW ? t->keep_n : t->count;
        int64_t sum = 0;
        for (int k = from; k < upto; k++)
            sum += values[k];
        dice_set_value(ds, sum);
        total += t->sign * sum;
    }
    *out = total;
    return 0;
}
