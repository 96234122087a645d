/* Odds: what outcomes are told apart by, and the named probabilities (server/api/odds.c enumerates
 * every die: the chart's 1d6 and each morale test it leads to).
 * - fire: the table row, the target's result and the target's state and strength after;
 *   p_results (by result code), p_target_eliminated, p_target_retreats;
 * - melee: the row, both results and every unit's state and strength after; p_attacker_results,
 *   p_defender_results, p_defender_eliminated, p_defender_retreats, p_attacker_retreats;
 * - morale and rally: passed and the state after; p_pass;
 * - move: the state after (a test climbing two levels); retreat: no dice. */
#include "rules/vaevictis_corbach/vc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void units_label(const json_t *units, char *label, size_t cap) {
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u) {
        rules_say(label, cap, "%s%s %s", i ? ", " : " (",
                  json_string_value(json_object_get(u, "unit")),
                  json_string_value(json_object_get(u, "state")));
        if (strcmp(json_string_value(json_object_get(u, "state")), "eliminated") != 0)
            rules_say(label, cap, ", strength %lld",
                      (long long)json_integer_value(json_object_get(u, "strength")));
    }
    if (i) rules_say(label, cap, ")");
}

/* A chart result in words, its code after them so that the chart can be read beside it:
 * "no effect (-)", "morale test at +1 (TM+1)", "1 step lost, disorganized, retreat 1 hex
 * (1D-R1)", "eliminated (E)"; "*": disorganized cavalry is eliminated. */
static void result_words(const char *code, char *label, size_t cap) {
    if (!code) return rules_say(label, cap, "?");
    const char *c = code;
    bool any = false;
#define WORD(...)                                                                                  \
    do {                                                                                           \
        rules_say(label, cap, any ? ", " : "");                                                    \
        rules_say(label, cap, __VA_ARGS__);                                                        \
        any = true;                                                                                \
    } while (0)
    if (strcmp(c, "-") == 0) WORD("no effect");
    if (strncmp(c, "TM", 2) == 0) {
        c += 2;
        int mod = (int)strtol(c, (char **)&c, 10);
        if (mod)
            WORD("morale test at %+d", mod);
        else
            WORD("morale test");
    }
    if (*c >= '1' && *c <= '9') {
        int steps = (int)strtol(c, (char **)&c, 10);
        WORD("%d step%s lost", steps, steps == 1 ? "" : "s");
    }
    if (*c == 'D') {
        c++;
        WORD("disorganized");
    }
    if (strncmp(c, "-R", 2) == 0) {
        c += 2;
        int hexes = (int)strtol(c, (char **)&c, 10);
        WORD("retreat %d hex%s", hexes, hexes == 1 ? "" : "es");
    }
    if (*c == '*') {
        c++;
        WORD("cavalry already disorganized by combat eliminated");
    }
    if (*c == 'E') WORD("eliminated");
#undef WORD
    if (!any)
        rules_say(label, cap, "%s", code);
    else
        rules_say(label, cap, " (%s)", code);
}

/* "ratio 3:2 +1, +2 flank -> " : the modifiers are the same in every outcome of one action. */
static void modifiers_label(const json_t *result, char *label, size_t cap) {
    size_t i;
    const json_t *t;
    json_array_foreach(json_object_get(result, "modifiers"), i, t)
        rules_say(label, cap, "%s%+lld %s", i ? ", " : "",
                  (long long)json_integer_value(json_object_get(t, "value")),
                  json_string_value(json_object_get(t, "name")));
    rules_say(label, cap, "%s= %+lld; ", i ? " " : "no modifier ",
              (long long)json_integer_value(json_object_get(result, "modifier")));
}

json_t *vc_odds_key(const json_t *result, char *label, size_t cap) {
    const char *action = json_string_value(json_object_get(result, "action"));
    label[0] = '\0';
    if (!action) return json_incref((json_t *)result);
    if (strcmp(action, "fire") == 0) {
        const json_t *tr = json_object_get(result, "target_result");
        modifiers_label(result, label, cap);
        rules_say(label, cap,
                  "row %lld: ", (long long)json_integer_value(json_object_get(result, "row")));
        result_words(json_string_value(json_object_get(tr, "result")), label, cap);
        units_label(json_object_get(tr, "units"), label, cap);
        return json_pack(
            "{s:O, s:O, s:O, s:O, s:O}", "row", json_object_get(result, "row"), "result",
            json_object_get(tr, "result"), "units", json_object_get(tr, "units"), "modifiers",
            json_object_get(result, "modifiers"), "modifier", json_object_get(result, "modifier"));
    }
    if (strcmp(action, "melee") == 0) {
        const json_t *ar = json_object_get(result, "attacker_result"),
                     *dr = json_object_get(result, "defender_result");
        modifiers_label(result, label, cap);
        rules_say(label, cap, "row %lld: attacker ",
                  (long long)json_integer_value(json_object_get(result, "row")));
        result_words(json_string_value(json_object_get(ar, "result")), label, cap);
        units_label(json_object_get(ar, "units"), label, cap);
        rules_say(label, cap, "; defender ");
        result_words(json_string_value(json_object_get(dr, "result")), label, cap);
        units_label(json_object_get(dr, "units"), label, cap);
        return json_pack(
            "{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:O}", "row", json_object_get(result, "row"),
            "attacker", json_object_get(ar, "result"), "defender", json_object_get(dr, "result"),
            "attacker_units", json_object_get(ar, "units"), "defender_units",
            json_object_get(dr, "units"), "ratio", json_object_get(result, "ratio"), "modifiers",
            json_object_get(result, "modifiers"), "modifier", json_object_get(result, "modifier"));
    }
    if (strcmp(action, "morale") == 0 || strcmp(action, "rally") == 0) {
        const json_t *t = json_object_get(result, "test");
        bool passed = json_is_true(json_object_get(t, "passed"));
        const char *after = json_is_object(t) ? json_string_value(json_object_get(t, "after"))
                                              : json_string_value(json_object_get(result, "after"));
        rules_say(label, cap, "%s: %s",
                  json_is_object(t) ? (passed ? "passes" : "fails") : "no test",
                  after ? after : "?");
        return json_pack("{s:b, s:s}", "passed", passed || !json_is_object(t), "after",
                         after ? after : "?");
    }
    if (strcmp(action, "move") == 0) {
        const char *state = json_string_value(json_object_get(result, "state"));
        rules_say(label, cap, "ends %s", state ? state : "?");
        return json_pack("{s:s}", "state", state ? state : "?");
    }
    return json_incref((json_t *)result);
}

static int by_row(const void *a, const void *b) {
    const json_t *x = json_object_get(*(json_t *const *)a, "result"),
                 *y = json_object_get(*(json_t *const *)b, "result");
    json_int_t rx = json_integer_value(json_object_get(x, "row")),
               ry = json_integer_value(json_object_get(y, "row"));
    return (rx > ry) - (rx < ry);
}

static void add(json_t *obj, const char *key, double p) {
    json_t *v = json_object_get(obj, key);
    if (v)
        json_real_set(v, json_real_value(v) + p);
    else
        json_object_set_new(obj, key, json_real(p));
}

static bool all_eliminated(const json_t *units) {
    size_t i;
    const json_t *u;
    json_array_foreach(units, i, u) {
        const char *s = json_string_value(json_object_get(u, "state"));
        if (!s || strcmp(s, "eliminated") != 0) return false;
    }
    return json_array_size(units) > 0;
}

static bool retreats(const char *code) {
    return code && strchr(code, 'R') != NULL;
}

void vc_odds_finish(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    size_t n = json_array_size(outcomes);
    if (n == 0) return;
    json_t **rows = malloc(n * sizeof *rows);
    if (!rows) return;
    for (size_t i = 0; i < n; i++)
        rows[i] = json_incref(json_array_get(outcomes, i));
    qsort(rows, n, sizeof *rows, by_row);
    json_array_clear(outcomes);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(outcomes, rows[i]);
    free(rows);

    json_t *first = json_object_get(json_array_get(outcomes, 0), "result");
    /* The modifiers, ratio and total are the same in every outcome: once, at the top. */
    static const char *const shared[] = {"modifiers", "modifier", "ratio", NULL};
    for (const char *const *k = shared; *k; k++) {
        json_t *v = json_object_get(first, *k);
        if (!v) continue;
        json_object_set(answer, *k, v);
        size_t j;
        json_t *o;
        json_array_foreach(outcomes, j, o) json_object_del(json_object_get(o, "result"), *k);
        first = json_object_get(json_array_get(outcomes, 0), "result");
    }
    json_t *att = json_object(), *def = json_object();
    double p_elim = 0, p_def_retreat = 0, p_att_retreat = 0, p_pass = 0;
    bool melee = json_object_get(first, "defender") != NULL,
         fire = !melee && json_object_get(first, "units") != NULL,
         test = json_object_get(first, "passed") != NULL;
    size_t i;
    json_t *row;
    json_array_foreach(outcomes, i, row) {
        double p = json_real_value(json_object_get(row, "p"));
        const json_t *r = json_object_get(row, "result");
        if (melee) {
            const char *a = json_string_value(json_object_get(r, "attacker")),
                       *d = json_string_value(json_object_get(r, "defender"));
            add(att, a ? a : "?", p);
            add(def, d ? d : "?", p);
            if (all_eliminated(json_object_get(r, "defender_units"))) p_elim += p;
            if (retreats(d) && !all_eliminated(json_object_get(r, "defender_units")))
                p_def_retreat += p;
            if (retreats(a) && !all_eliminated(json_object_get(r, "attacker_units")))
                p_att_retreat += p;
        } else if (fire) {
            const char *code = json_string_value(json_object_get(r, "result"));
            add(def, code ? code : "?", p);
            if (all_eliminated(json_object_get(r, "units"))) p_elim += p;
            if (retreats(code) && !all_eliminated(json_object_get(r, "units"))) p_def_retreat += p;
        } else if (test && json_is_true(json_object_get(r, "passed"))) {
            p_pass += p;
        }
    }
    if (melee) {
        json_object_set_new(answer, "p_attacker_results", att);
        json_object_set_new(answer, "p_defender_results", def);
        json_object_set_new(answer, "p_defender_eliminated", json_real(p_elim));
        json_object_set_new(answer, "p_defender_retreats", json_real(p_def_retreat));
        json_object_set_new(answer, "p_attacker_retreats", json_real(p_att_retreat));
        return;
    }
    json_decref(att);
    if (fire) {
        json_object_set_new(answer, "p_results", def);
        json_object_set_new(answer, "p_target_eliminated", json_real(p_elim));
        json_object_set_new(answer, "p_target_retreats", json_real(p_def_retreat));
        return;
    }
    json_decref(def);
    if (test) json_object_set_new(answer, "p_pass", json_real(p_pass));
}
