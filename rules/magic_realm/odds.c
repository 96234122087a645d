/* Exact odds in the contract's magic-realm vocabulary. The core enumerates every pair of dice
 * (36 per roll) and groups identical keys; these hooks choose the keys and turn the groups into
 * "rolls" (r = 1..6, the higher of two dice, p = (2r-1)/36) with "p_kill" / "p_success".
 *
 * The DRM of an attack or a run is fixed before its roll (3rd edition: "all combat roll DRMs are
 * set at the moment of hit determination"), so its terms are the same for every die: they go
 * into the key and the label without splitting any group, and the answer carries them once
 * ("drm", "drm_terms"), as the action's result does. A round's groups are its effects; the
 * DRMs of its attacks and runs are listed once beside them ("attacks", "runs"). */
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
    json_t *drm = json_object_get(first, "drm"), *terms = json_object_get(first, "drm_terms");
    if (drm) json_object_set(answer, "drm", drm);
    if (terms) json_object_set(answer, "drm_terms", terms);
}

/* Copies `key` of `from` into `to` when it is there. */
static void copy_key(json_t *to, const json_t *from, const char *key) {
    json_t *v = json_object_get(from, key);
    if (v) json_object_set(to, key, v);
}

/* The DRM of a result as an action's summary says it: "DRM +2 (time +1, move -3, undercut +4)",
 * or the basic game's table that takes none. */
static void say_drm(const json_t *result, char *buf, size_t cap) {
    if (!strcmp(str(result, "table"), mr_table_name(MR_TABLE_STANDARD))) {
        mr_say(buf, cap, "no DRM (the basic game's Missile Table)");
        return;
    }
    mr_terms terms = {0};
    size_t i;
    json_t *t;
    json_array_foreach(json_object_get(result, "drm_terms"), i, t) {
        mr_terms_add(&terms, str(t, "term"), (int)json_integer_value(json_object_get(t, "value")));
    }
    char text[200];
    mr_terms_text(&terms, text, sizeof text);
    mr_say(buf, cap, "DRM %+lld (%s)",
           (long long)json_integer_value(json_object_get(result, "drm")), text);
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
        copy_key(k, result, "drm_terms");
        label[0] = '\0';
        say_drm(result, label, cap);
        mr_say(label, cap, "; roll %lld (adjusted %lld): %s harm, %s",
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
    copy_key(k, result, "drm_terms");
    label[0] = '\0';
    say_drm(result, label, cap);
    mr_say(label, cap, "; roll %lld (adjusted %lld): %s",
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
    json_t *k = json_pack("{s:O}", "effects", effects);
    /* The DRMs, carried to mr_round_odds_finish and taken out there: an attack's is fixed at hit
     * determination, but the attack has none in a result where it was skipped (its attacker or
     * target dead or gone), so the key holds each attack that has one. */
    json_t *attacks = json_array(), *runs = json_array();
    json_array_foreach(json_object_get(result, "attacks"), i, e) {
        if (!json_object_get(e, "drm")) continue;
        json_t *a = json_object();
        static const char *const keys[] = {"order", "attacker",  "target", "name", "aim",
                                           "hit",   "hit_rider", "table",  "drm",  "drm_terms"};
        for (size_t j = 0; j < sizeof keys / sizeof keys[0]; j++)
            copy_key(a, e, keys[j]);
        json_array_append_new(attacks, a);
    }
    json_array_foreach(json_object_get(result, "runs"), i, e) {
        json_t *r = json_object();
        copy_key(r, e, "unit");
        copy_key(r, e, "drm");
        copy_key(r, e, "drm_terms");
        json_array_append_new(runs, r);
    }
    json_object_set_new(k, "attack_drms", attacks);
    json_object_set_new(k, "run_drms", runs);
    return k;
}

static json_int_t order_of(const json_t *attack) {
    return json_integer_value(json_object_get(attack, "order"));
}

/* The line of one attack's or run's DRM: "bat-1 Giant Bat at white-knight: intercept, DRM -3
 * (time +2, move -5)"; "white-knight runs: DRM +4 (move +5, ...)". */
static void name_drm(json_t *entry, bool run) {
    char line[256] = "";
    if (run) {
        mr_say(line, sizeof line, "%s runs: ", str(entry, "unit"));
    } else {
        mr_say(line, sizeof line, "%s%s%s at %s", str(entry, "attacker"),
               *str(entry, "name") ? " " : "", str(entry, "name"), str(entry, "target"));
        if (*str(entry, "aim")) mr_say(line, sizeof line, " (%s)", str(entry, "aim"));
        mr_say(line, sizeof line, ": %s, ", str(entry, "hit"));
    }
    say_drm(entry, line, sizeof line);
    json_object_set_new(entry, "summary", json_string(line));
}

/* Takes the DRMs out of the keys: groups that differ only in which attacks kept theirs are one
 * outcome (the same effects), and every DRM is listed once in the answer. */
static void lift_round_drms(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    json_t *kept = json_array(), *attacks = json_array(), *runs = NULL;
    size_t i;
    json_t *row;
    json_array_foreach(outcomes, i, row) {
        json_t *result = json_object_get(row, "result");
        size_t j;
        json_t *a;
        json_array_foreach(json_object_get(result, "attack_drms"), j, a) {
            size_t at = 0;
            while (at < json_array_size(attacks) &&
                   order_of(json_array_get(attacks, at)) < order_of(a))
                at++;
            if (at == json_array_size(attacks) ||
                order_of(json_array_get(attacks, at)) != order_of(a))
                json_array_insert(attacks, at, a); /* by order, each attack once */
        }
        if (!runs) runs = json_incref(json_object_get(result, "run_drms"));
        json_object_del(result, "attack_drms");
        json_object_del(result, "run_drms");
        json_t *same = NULL, *k;
        json_array_foreach(kept, j, k) {
            if (json_equal(json_object_get(json_object_get(k, "result"), "effects"),
                           json_object_get(result, "effects"))) {
                same = k;
                break;
            }
        }
        if (!same) {
            json_array_append(kept, row);
            continue;
        }
        json_real_set(json_object_get(same, "p"), json_real_value(json_object_get(same, "p")) +
                                                      json_real_value(json_object_get(row, "p")));
        json_t *c = json_object_get(same, "count"), *d = json_object_get(row, "count");
        if (c && d) json_integer_set(c, json_integer_value(c) + json_integer_value(d));
    }
    json_array_clear(outcomes);
    json_array_extend(outcomes, kept);
    json_decref(kept);
    json_array_foreach(attacks, i, row) name_drm(row, false);
    if (!runs) runs = json_array();
    json_array_foreach(runs, i, row) name_drm(row, true);
    json_object_set_new(answer, "attacks", attacks);
    json_object_set_new(answer, "runs", runs);
}

void mr_round_odds_finish(json_t *answer) {
    lift_round_drms(answer);
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
