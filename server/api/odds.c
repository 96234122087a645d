#include "server/api/odds.h"

#include "protocol/jcs.h"
#include "rules/dice_source.h"
#include "server/dice/seeded_source.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Adds one combination's outcome to the table keyed by the outcome's canonical JSON. */
static int tally(json_t *table, json_t *order, const rules_action *a, const rules_outcome *out,
                 double p) {
    char label[512] = "";
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
                        /* an outcome in words: the module's label, else its summary */
                        a->odds_key && label[0] ? label : out->summary, "result", key);
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

/* ---- probes: the refusal is decided from a few resolutions, before the enumeration --------- */

#define ODDS_HUGE 1e300 /* products saturate here (JSON has no infinity) */

/* What one resolution showed: its dice, the product of their sides, a proven lower bound on the
 * action's combinations, and its work (1 + the JSON values it built). */
typedef struct path_shape {
    bool ok; /* the handler resolved it */
    size_t dice;
    double combinations;
    double at_least;
    long work;
} path_shape;

static long json_values(const json_t *j) {
    if (!j) return 0;
    long n = 1;
    const char *k;
    size_t i;
    json_t *v;
    if (json_is_object(j)) {
        json_object_foreach((json_t *)j, k, v) n += json_values(v);
    } else if (json_is_array(j)) {
        json_array_foreach(j, i, v) n += json_values(v);
    }
    return n;
}

static double sat_mul(double x, double y) {
    return x * y > ODDS_HUGE ? ODDS_HUGE : x * y;
}

/* The shape of the resolution just run on ds. The dice of one roll call are asked for together
 * (before any of them is known), so every combination of each call's dice is a distinct branch:
 * the action has at least 1 + sum over calls of (sides^count - 1) combinations, whatever the
 * handler does with their values. The product of all the dice's sides is that resolution's own
 * combinations (its probability is its inverse), not a bound when later dice depend on earlier
 * values. */
static void shape_of(const dice_source *ds, path_shape *ps) {
    ps->dice = dice_source_die_count(ds);
    ps->combinations = 1;
    ps->at_least = 1;
    json_t *records = dice_source_records_new(ds);
    size_t r, die = 0;
    json_t *rec;
    json_array_foreach(records, r, rec) {
        double call = 1;
        for (size_t i = 0; i < json_array_size(json_object_get(rec, "values")) && die < ps->dice;
             i++, die++) {
            uint64_t nonce;
            int sides, value;
            dice_source_die(ds, die, &nonce, &sides, &value);
            call = sat_mul(call, sides);
            ps->combinations = sat_mul(ps->combinations, sides);
        }
        ps->at_least = ps->at_least + (call - 1) > ODDS_HUGE ? ODDS_HUGE : ps->at_least + call - 1;
    }
    json_decref(records);
}

/* Runs the handler once on ds; fills ps. 0, or -1 with the handler's refusal in err. */
static int probe(const rules_action *a, const void *decoded, const rules_ctx *ctx, dice_source *ds,
                 path_shape *ps, api_error *err) {
    rules_ctx run_ctx = *ctx;
    run_ctx.dice = ds;
    rules_outcome out = {0};
    memset(ps, 0, sizeof *ps);
    if (!ds) {
        api_error_set(err, 500, "internal_error", NULL, "out of memory while probing odds");
        return -1;
    }
    int rc = a->resolve(&run_ctx, decoded, &out, err);
    if (rc == 0) {
        ps->ok = true;
        shape_of(ds, ps);
        ps->work = 1 + json_values(out.result) + json_values(out.new_state) +
                   json_values(out.extra_events);
    }
    rules_outcome_clear(&out);
    return rc;
}

/* Every die at its highest: run with the sides the last run asked for as values, until the
 * dice asked for stop changing (a roll call per round at most; bounded). */
static void probe_highest(const rules_action *a, const void *decoded, const rules_ctx *ctx,
                          path_shape *ps) {
    int64_t *values = NULL;
    size_t n = 0;
    memset(ps, 0, sizeof *ps);
    for (int round = 0; round < 16; round++) {
        dice_source *ds = dice_source_new_manual(values, n);
        api_error err = {0};
        path_shape here;
        int rc = probe(a, decoded, ctx, ds, &here, &err);
        api_error_clear(&err);
        if (rc != 0) {
            dice_source_free(ds);
            break;
        }
        *ps = here;
        size_t m = dice_source_die_count(ds);
        int64_t *next = malloc((m ? m : 1) * sizeof *next);
        bool same = next && m == n && !dice_source_unsatisfied(ds);
        for (size_t i = 0; next && i < m; i++) {
            uint64_t nonce;
            int sides, value;
            dice_source_die(ds, i, &nonce, &sides, &value);
            next[i] = sides;
            if (i >= n || values[i] != sides) same = false;
        }
        dice_source_free(ds);
        free(values);
        values = next;
        n = m;
        if (!next || same) break;
    }
    free(values);
}

/* A count as JSON: an integer while a double holds it exactly, else a number. */
static json_t *count_new(double x) {
    return x <= 9007199254740992.0 ? json_integer((json_int_t)x) : json_real(x);
}

/* limit: the combinations limit; allowed: the combinations this action may enumerate (lower
 * when its resolutions are large). */
static void refuse_too_large(api_error *err, long limit, long allowed, long work,
                             const path_shape *widest, double at_least) {
    json_t *details =
        json_pack("{s:I, s:I, s:o}", "limit", (json_int_t)limit, "dice", (json_int_t)widest->dice,
                  "dice_combinations", count_new(widest->combinations));
    if (details && at_least > (double)allowed)
        json_object_set_new(details, "combinations_at_least", count_new(at_least));
    if (details && allowed < limit) {
        json_object_set_new(details, "combinations_allowed", json_integer(allowed));
        json_object_set_new(details, "work_per_combination", json_integer(work));
    }
    if (widest->combinations > (double)allowed)
        api_error_set(err, 422, "odds_too_large", details,
                      "one resolution of this action rolls %zu dice with %.15g combinations; "
                      "the limit for this action is %ld",
                      widest->dice, widest->combinations, allowed);
    else
        api_error_set(err, 422, "odds_too_large", details,
                      "this action has more than %ld dice combinations to enumerate", allowed);
}

static bool cancelled(const atomic_bool *cancel, api_error *err) {
    if (!cancel || !atomic_load_explicit(cancel, memory_order_relaxed)) return false;
    api_error_set(err, 503, "cancelled", NULL, "the odds were cancelled: the client has gone");
    return true;
}

json_t *odds_enumerate_new(const rules_action *a, const void *decoded, const rules_ctx *ctx,
                           long max_combinations, api_error *err) {
    return odds_enumerate_cancellable_new(a, decoded, ctx, max_combinations, NULL, err);
}

json_t *odds_enumerate_cancellable_new(const rules_action *a, const void *decoded,
                                       const rules_ctx *ctx, long max_combinations,
                                       const atomic_bool *cancel, api_error *err) {
    /* Probes: every die at 1 (the enumeration's first combination: its refusal is the action's),
     * every die at its highest, then fixed pseudo-random dice. */
    path_shape shapes[2 + ODDS_PROBES_RANDOM];
    size_t nshapes = 0;
    dice_source *first = dice_source_new_enum();
    int rc = probe(a, decoded, ctx, first, &shapes[nshapes++], err);
    dice_source_free(first);
    if (rc != 0) return NULL;
    /* (an action that rolls nothing at 1 asks for no die at all: one combination) */
    if (shapes[0].dice > 0) probe_highest(a, decoded, ctx, &shapes[nshapes++]);
    static const uint8_t probe_seed[32] = "umpire odds probe: fixed dice.";
    for (int i = 0; i < ODDS_PROBES_RANDOM && shapes[0].dice > 0; i++) {
        dice_source *ds =
            dice_source_new_seeded(probe_seed, "odds-probe", (uint64_t)i * DICE_MAX_PER_ACTION);
        api_error ignored = {0};
        probe(a, decoded, ctx, ds, &shapes[nshapes++], &ignored);
        api_error_clear(&ignored);
        dice_source_free(ds);
    }
    path_shape widest = shapes[0];
    long work = 1;
    double at_least = 1;
    for (size_t i = 0; i < nshapes; i++) {
        if (!shapes[i].ok) continue;
        if (shapes[i].combinations > widest.combinations) widest = shapes[i];
        if (shapes[i].work > work) work = shapes[i].work;
        if (shapes[i].at_least > at_least) at_least = shapes[i].at_least;
    }
    /* The limit: max_combinations, and no more work than max_combinations runs of
     * ODDS_WORK_PER_COMBINATION values each. */
    long limit = max_combinations;
    if (work > ODDS_WORK_PER_COMBINATION) {
        long by_work = (long)((double)max_combinations * ODDS_WORK_PER_COMBINATION / (double)work);
        if (by_work < limit) limit = by_work > 0 ? by_work : 1;
    }
    if (widest.combinations > (double)limit) {
        refuse_too_large(err, max_combinations, limit, work, &widest, at_least);
        return NULL;
    }

    dice_source *ds = dice_source_new_enum();
    json_t *table = json_object(), *order = json_array(), *answer = json_object();
    long runs = 0;
    double first_p = -1;
    bool uniform = true, ok = ds && table && order && answer;
    rules_ctx run_ctx = *ctx;
    run_ctx.dice = ds;
    while (ok) {
        if (cancelled(cancel, err)) {
            ok = false;
            break;
        }
        if (++runs > limit) {
            /* more combinations than the probes showed: refuse after limit runs, naming the
             * widest resolution seen */
            refuse_too_large(err, max_combinations, limit, work, &widest,
                             fmax(at_least, (double)limit + 1));
            ok = false;
            break;
        }
        rules_outcome out = {0};
        if (a->resolve(&run_ctx, decoded, &out, err) != 0) {
            ok = false;
            break;
        }
        double p = dice_source_enum_probability(ds);
        if (first_p < 0) first_p = p;
        if (1.0 / p > widest.combinations) {
            widest.dice = dice_source_die_count(ds);
            widest.combinations = 1.0 / p;
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
