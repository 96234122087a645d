/* Exact odds in the contract's magic-realm vocabulary. The core enumerates every pair of dice
 * (36 per roll) and groups identical keys; these hooks choose the keys and turn the groups into
 * "rolls" (r = 1..6, the higher of two dice, p = (2r-1)/36) with "p_kill" / "p_success". */
#include "rules/magic_realm/mr.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *str(const json_t *o, const char *k) {
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* The probability of an outcome row: count/of when every combination was equally likely. */
static double row_p(const json_t *answer, const json_t *row) {
    json_int_t of = json_integer_value(json_object_get(answer, "of"));
    json_t *count = json_object_get(row, "count");
    if (of > 0 && count) return (double)json_integer_value(count) / (double)of;
    return json_real_value(json_object_get(row, "p"));
}

static int by_roll(const void *a, const void *b) {
    json_int_t x = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)a, "result"), "roll")),
               y = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)b, "result"), "roll"));
    return (x > y) - (x < y);
}

static int by_p_desc(const void *a, const void *b) {
    double x = json_real_value(json_object_get(*(json_t *const *)a, "p")),
           y = json_real_value(json_object_get(*(json_t *const *)b, "p"));
    return (x < y) - (x > y);
}

static void sort_outcomes(json_t *answer, int (*cmp)(const void *, const void *)) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    size_t n = json_array_size(outcomes);
    json_t **rows = malloc((n ? n : 1) * sizeof *rows);
    if (!rows) return;
    for (size_t i = 0; i < n; i++)
        rows[i] = json_incref(json_array_get(outcomes, i));
    qsort(rows, n, sizeof *rows, cmp);
    json_array_clear(outcomes);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(outcomes, rows[i]);
    free(rows);
}

/* rolls[r-1] for r = 1..6 from outcomes keyed by roll; `with_harm` for attacks. When the action
 * rolled nothing (a miss, a red-side-up Tremendous monster), every r shows the one outcome. */
static json_t *rolls_new(const json_t *answer, bool with_harm) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    json_t *rolls = json_array();
    for (int r = 1; r <= 6; r++) {
        const json_t *found = NULL;
        size_t i;
        json_t *row;
        json_array_foreach(outcomes, i, row) {
            json_t *roll = json_object_get(json_object_get(row, "result"), "roll");
            if (!roll || json_integer_value(roll) == r) {
                found = json_object_get(row, "result");
                break;
            }
        }
        json_t *e = json_pack("{s:i, s:f}", "roll", r, "p", (double)(2 * r - 1) / 36.0);
        json_t *adj = found ? json_object_get(found, "adjusted") : NULL;
        json_object_set_new(e, "adjusted", adj ? json_incref(adj) : json_null());
        if (with_harm) json_object_set_new(e, "harm", json_string(found ? str(found, "harm") : ""));
        json_object_set_new(e, "outcome", json_string(found ? str(found, "outcome") : ""));
        json_array_append_new(rolls, e);
    }
    return rolls;
}

static void lift_drm(json_t *answer) {
    json_t *first =
        json_object_get(json_array_get(json_object_get(answer, "outcomes"), 0), "result");
    json_t *drm = json_object_get(first, "drm");
    if (drm) json_object_set(answer, "drm", drm);
}

/* ---- attack ------------------------------------------------------------------------------ */

json_t *mr_attack_odds_key(const json_t *result, char *label, size_t cap) {
    json_t *k =
        json_pack("{s:s, s:s}", "harm", str(result, "harm"), "outcome", str(result, "outcome"));
    json_t *roll = json_object_get(result, "roll");
    if (roll) {
        json_object_set(k, "roll", roll);
        json_object_set(k, "adjusted", json_object_get(result, "adjusted"));
        json_object_set(k, "drm", json_object_get(result, "drm"));
        snprintf(label, cap, "roll %lld (adjusted %lld): %s harm, %s",
                 (long long)json_integer_value(roll),
                 (long long)json_integer_value(json_object_get(result, "adjusted")),
                 str(result, "harm"), str(result, "outcome"));
    } else {
        snprintf(label, cap, "%s: %s harm, %s",
                 !strcmp(str(result, "hit"), "miss") ? "miss, no roll" : "no roll",
                 str(result, "harm"), str(result, "outcome"));
    }
    return k;
}

void mr_attack_odds_finish(json_t *answer) {
    sort_outcomes(answer, by_roll);
    json_t *by_outcome = json_object();
    double p_kill = 0;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        const char *o = str(json_object_get(row, "result"), "outcome");
        double p = row_p(answer, row);
        if (!strcmp(o, "killed")) p_kill += p;
        json_t *acc = json_object_get(by_outcome, o);
        json_object_set_new(by_outcome, o, json_real((acc ? json_real_value(acc) : 0) + p));
    }
    json_object_set_new(answer, "rolls", rolls_new(answer, true));
    json_object_set_new(answer, "p_kill", json_real(p_kill));
    json_object_set_new(answer, "p_outcome", by_outcome);
    lift_drm(answer);
}

/* ---- run --------------------------------------------------------------------------------- */

json_t *mr_run_odds_key(const json_t *result, char *label, size_t cap) {
    json_t *k = json_pack("{s:O, s:O, s:O, s:s}", "roll", json_object_get(result, "roll"),
                          "adjusted", json_object_get(result, "adjusted"), "drm",
                          json_object_get(result, "drm"), "outcome", str(result, "outcome"));
    snprintf(label, cap, "roll %lld (adjusted %lld): %s",
             (long long)json_integer_value(json_object_get(result, "roll")),
             (long long)json_integer_value(json_object_get(result, "adjusted")),
             str(result, "outcome"));
    return k;
}

void mr_run_odds_finish(json_t *answer) {
    sort_outcomes(answer, by_roll);
    double p = 0;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        if (!strcmp(str(json_object_get(row, "result"), "outcome"), "completed"))
            p += row_p(answer, row);
    }
    json_object_set_new(answer, "rolls", rolls_new(answer, false));
    json_object_set_new(answer, "p_success", json_real(p));
    lift_drm(answer);
}

/* ---- round ------------------------------------------------------------------------------- */

json_t *mr_round_odds_key(const json_t *result, char *label, size_t cap) {
    json_t *effects = json_object_get(result, "effects");
    label[0] = '\0';
    size_t i;
    json_t *e;
    json_array_foreach(effects, i, e) {
        const char *status = str(e, "status");
        mr_say(label, cap, "%s%s %s", i ? "; " : "", str(e, "unit"), status);
        json_int_t w = json_integer_value(json_object_get(e, "wounds"));
        if (w) mr_say(label, cap, ", %lld wound%s", (long long)w, w == 1 ? "" : "s");
        size_t j;
        json_t *a;
        json_array_foreach(json_object_get(e, "armor"), j, a) {
            if (strcmp(json_string_value(a), "intact") != 0)
                mr_say(label, cap, ", armor %s", json_string_value(a));
        }
        if (!strcmp(str(e, "horse"), "killed")) mr_say(label, cap, ", horse killed");
    }
    return json_pack("{s:O}", "effects", effects);
}

void mr_round_odds_finish(json_t *answer) {
    sort_outcomes(answer, by_p_desc);
    json_t *units = json_object();
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        double p = row_p(answer, row);
        size_t j;
        json_t *e;
        json_array_foreach(json_object_get(json_object_get(row, "result"), "effects"), j, e) {
            const char *id = str(e, "unit");
            json_t *u = json_object_get(units, id);
            if (!u) {
                u = json_pack("{s:f, s:f}", "p_killed", 0.0, "p_escaped", 0.0);
                if (json_object_get(e, "wounds")) {
                    json_object_set_new(u, "p_wounded", json_real(0));
                    json_object_set_new(u, "expected_wounds", json_real(0));
                }
                if (json_object_get(e, "horse"))
                    json_object_set_new(u, "p_horse_killed", json_real(0));
                json_object_set_new(units, id, u);
            }
#define ADD(key, v)                                                                                \
    json_real_set(json_object_get(u, key), json_real_value(json_object_get(u, key)) + (v))
            if (!strcmp(str(e, "status"), "killed")) ADD("p_killed", p);
            if (!strcmp(str(e, "status"), "escaped")) ADD("p_escaped", p);
            json_int_t w = json_integer_value(json_object_get(e, "wounds"));
            if (w > 0) ADD("p_wounded", p);
            if (json_object_get(u, "expected_wounds")) ADD("expected_wounds", p * (double)w);
            if (!strcmp(str(e, "horse"), "killed")) ADD("p_horse_killed", p);
#undef ADD
        }
    }
    json_object_set_new(answer, "units", units);
}
