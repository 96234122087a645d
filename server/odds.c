#include "server/odds.h"

#include "protocol/jcs.h"
#include "server/dice_source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Adds one combination's outcome to the table keyed by the outcome's canonical JSON. */
static int tally(json_t *table, json_t *order, const rules_action *a, const rules_outcome *out,
                 double p) {
    char label[256] = "";
    json_t *key =
        a->odds_key ? a->odds_key(out->result, label, sizeof label) : json_incref(out->result);
    char *canon = key ? jcs_dump_new(key, NULL) : NULL;
    if (!canon) {
        json_decref(key);
        return -1;
    }
    json_t *row = json_object_get(table, canon);
    if (!row) {
        row = json_pack("{s:f, s:I, s:s, s:O}", "p", 0.0, "count", (json_int_t)0, "summary",
                        a->odds_key ? label : out->summary, "result", key);
        if (!row || json_object_set_new(table, canon, row) != 0 ||
            json_array_append(order, row) != 0) {
            free(canon);
            json_decref(key);
            return -1;
        }
    }
    json_real_set(json_object_get(row, "p"), json_real_value(json_object_get(row, "p")) + p);
    json_integer_set(json_object_get(row, "count"),
                     json_integer_value(json_object_get(row, "count")) + 1);
    free(canon);
    json_decref(key);
    return 0;
}

/* When every combination was equally likely, count/of is the exact probability. */
static void finish_answer(json_t *answer, json_t *order, long runs, bool uniform) {
    size_t i;
    json_t *row;
    json_array_foreach(order, i, row) {
        if (!uniform)
            json_object_del(row, "count");
        else /* count/of, not a sum of doubles: a certain outcome reads 1, not 0.9999999999999999 */
            json_real_set(json_object_get(row, "p"),
                          (double)json_integer_value(json_object_get(row, "count")) / (double)runs);
    }
    json_object_set(answer, "outcomes", order);
    json_object_set_new(answer, "enumerated", json_integer(runs));
    json_object_set_new(answer, "exact", json_boolean(uniform));
    if (uniform) json_object_set_new(answer, "of", json_integer(runs));
}

/* Over equally likely combinations, every probability a ruleset names (p_pass, p_any_...) is
 * some k/of; the modules sum rows' doubles, so snap each back to the nearest k/of. */
static void snap_named_probabilities(json_t *answer, long runs) {
    const char *key;
    json_t *v;
    json_object_foreach(answer, key, v) {
        if (strncmp(key, "p_", 2) == 0 && json_is_real(v))
            json_real_set(v, round(json_real_value(v) * (double)runs) / (double)runs);
    }
}

json_t *odds_enumerate_new(const rules_action *a, const void *decoded, const rules_ctx *ctx,
                           long max_combinations, api_error *err) {
    dice_source *ds = dice_source_new_enum();
    json_t *table = json_object(), *order = json_array(), *answer = json_object();
    long runs = 0;
    double first_p = -1;
    bool uniform = true, ok = ds && table && order && answer;
    rules_ctx run_ctx = *ctx;
    run_ctx.dice = ds;
    while (ok) {
        if (++runs > max_combinations) {
            api_error_set(err, 422, "odds_too_large",
                          json_pack("{s:I, s:I}", "limit", (json_int_t)max_combinations, "dice",
                                    (json_int_t)dice_source_die_count(ds)),
                          "this action has more than %ld dice combinations to enumerate",
                          max_combinations);
            ok = false;
            break;
        }
        rules_outcome out = {0};
        if (a->resolve(&run_ctx, decoded, &out, err) != 0) {
            ok = false;
            break;
        }
        double p = dice_source_enum_probability(ds);
        if (first_p < 0) {
            first_p = p;
            /* One combination already shows the tree is at least 1/p wide: refuse at once
             * rather than after a million runs. */
            if (1.0 / p > (double)max_combinations) {
                rules_outcome_clear(&out);
                api_error_set(err, 422, "odds_too_large",
                              json_pack("{s:I, s:I, s:f}", "limit", (json_int_t)max_combinations,
                                        "dice", (json_int_t)dice_source_die_count(ds),
                                        "combinations_at_least", 1.0 / p),
                              "this action has at least %.0f dice combinations; the limit is %ld",
                              1.0 / p, max_combinations);
                ok = false;
                break;
            }
        }
        /* Equal up to rounding of the same product: compare relatively. */
        if (fabs(p - first_p) > 1e-12 * first_p) uniform = false;
        ok = tally(table, order, a, &out, p) == 0;
        rules_outcome_clear(&out);
        if (ok && dice_source_enum_inconsistent(ds)) {
            api_error_set(err, 422, "odds_unavailable", NULL,
                          "this action's dice depend on more than its dice: no exact odds");
            ok = false;
        }
        if (!ok || !dice_source_enum_advance(ds)) break;
    }
    if (ok) {
        finish_answer(answer, order, runs, uniform);
        if (a->odds_finish) a->odds_finish(answer);
        if (uniform) snap_named_probabilities(answer, runs);
    } else if (!err->status) {
        api_error_set(err, 500, "internal_error", NULL, "out of memory while enumerating odds");
    }
    dice_source_free(ds);
    json_decref(table);
    json_decref(order);
    if (!ok) {
        json_decref(answer);
        return NULL;
    }
    return answer;
}
