/* Odds: what outcomes are told apart by, and the named probabilities (server/api/odds.c enumerates
 * every die).
 * - fire and melee: the CRT row and its result, and who is eliminated, demoralized or panics;
 *   p_results (by result code), p_any_eliminated, p_any_demoralized; melee also p_contact. The
 * adjusted strengths, column and modifiers are the same in every outcome: once, at the top.
 * - rally: p_rallied. */
#include "rules/spi_dark_ages/da.h"

#include <stdlib.h>
#include <string.h>

static void ids_label(const char *what, const json_t *ids, char *label, size_t cap) {
    size_t i;
    const json_t *v;
    json_array_foreach(ids, i, v)
        rules_say(label, cap, "%s%s", i ? ", " : (const char *)what, json_string_value(v));
}

/* A CRT result in words, its code after them ("2 defending units eliminated (2E)", "every
 * defending unit demoralized, every attacking unit demoralized (DD-AD)"): the parts of
 * docs/rules/spi-dark-ages.md, "crt". */
static void result_words(const char *code, char *label, size_t cap) {
    if (!code) return rules_say(label, cap, "?");
    if (strcmp(code, "-") == 0) return rules_say(label, cap, "no effect (-)");
    char part[16];
    const char *p = code;
    bool any = false;
    while (*p) {
        size_t n = strcspn(p, "-");
        snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), p);
        bool att = part[0] == 'A' && part[1] != '\0' && part[1] != 'D' && part[1] != 'E';
        const char *q = att ? part + 1 : part;
        rules_say(label, cap, any ? ", " : "");
        if (strcmp(part, "DD") == 0)
            rules_say(label, cap, "every defending unit demoralized");
        else if (strcmp(part, "AD") == 0)
            rules_say(label, cap, "every attacking unit demoralized");
        else if (strcmp(part, "DE") == 0)
            rules_say(label, cap, "every defending unit eliminated");
        else if (strcmp(part, "AE") == 0)
            rules_say(label, cap, "every attacking unit eliminated");
        else if (q[0] >= '1' && q[0] <= '9' && strcmp(q + 1, "E") == 0)
            rules_say(label, cap, "%c %s unit%s eliminated", q[0], att ? "attacking" : "defending",
                      q[0] == '1' ? "" : "s");
        else
            rules_say(label, cap, "%s", part);
        any = true;
        p += n;
        if (*p == '-') p++;
    }
    rules_say(label, cap, " (%s)", code);
}

json_t *da_odds_key(const json_t *result, char *label, size_t cap) {
    const char *action = json_string_value(json_object_get(result, "action"));
    label[0] = '\0';
    if (action && (strcmp(action, "fire") == 0 || strcmp(action, "melee") == 0)) {
        bool melee = strcmp(action, "melee") == 0;
        const json_t *row = json_object_get(result, melee ? "row" : "roll");
        rules_say(label, cap, "row %lld: ", (long long)json_integer_value(row));
        result_words(json_string_value(json_object_get(result, "result")), label, cap);
        ids_label("; eliminated ", json_object_get(result, "eliminated"), label, cap);
        ids_label("; demoralized ", json_object_get(result, "demoralized"), label, cap);
        ids_label("; panic ", json_object_get(result, "panicked"), label, cap);
        if (json_is_true(json_object_get(result, "contact"))) rules_say(label, cap, "; contact");
        json_t *key = json_pack("{s:O, s:O, s:O, s:O, s:O}", "row", row, "result",
                                json_object_get(result, "result"), "eliminated",
                                json_object_get(result, "eliminated"), "demoralized",
                                json_object_get(result, "demoralized"), "panicked",
                                json_object_get(result, "panicked"));
        static const char *const shared[] = {"column",  "modifiers", "modifier",  "attack",
                                             "defence", "attackers", "defenders", "strength",
                                             "fps",     "contact",   NULL};
        for (const char *const *k = shared; *k; k++)
            if (json_object_get(result, *k)) json_object_set(key, *k, json_object_get(result, *k));
        return key;
    }
    if (action && strcmp(action, "rally") == 0) {
        bool ok = json_is_true(json_object_get(result, "rallied"));
        rules_say(label, cap, "%s", ok ? "rallied" : "still panicked");
        return json_pack("{s:b}", "rallied", ok);
    }
    /* No label: the odds answer says it with the action's own summary (server/api/odds.c). */
    return json_incref((json_t *)result);
}

static int by_row(const void *a, const void *b) {
    json_int_t x = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)a, "result"), "row")),
               y = json_integer_value(
                   json_object_get(json_object_get(*(json_t *const *)b, "result"), "row"));
    return (x > y) - (x < y);
}

static void add(json_t *obj, const char *key, double p) {
    json_t *v = json_object_get(obj, key);
    if (v)
        json_real_set(v, json_real_value(v) + p);
    else
        json_object_set_new(obj, key, json_real(p));
}

void da_odds_finish(json_t *answer) {
    json_t *outcomes = json_object_get(answer, "outcomes");
    size_t n = json_array_size(outcomes);
    if (n == 0) return;
    json_t *first = json_object_get(json_array_get(outcomes, 0), "result");
    if (json_object_get(first, "rallied")) {
        double p = 0;
        size_t i;
        json_t *o;
        json_array_foreach(outcomes, i, o) if (json_is_true(json_object_get(
                                                   json_object_get(o, "result"), "rallied"))) p +=
            json_real_value(json_object_get(o, "p"));
        json_object_set_new(answer, "p_rallied", json_real(p));
        return;
    }
    if (!json_object_get(first, "row")) return;
    json_t **rows = malloc(n * sizeof *rows);
    if (!rows) return;
    for (size_t i = 0; i < n; i++)
        rows[i] = json_incref(json_array_get(outcomes, i));
    qsort(rows, n, sizeof *rows, by_row);
    json_array_clear(outcomes);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(outcomes, rows[i]);
    free(rows);
    static const char *const shared[] = {"column",    "modifiers", "modifier", "attack", "defence",
                                         "attackers", "defenders", "strength", "fps",    NULL};
    first = json_object_get(json_array_get(outcomes, 0), "result");
    for (const char *const *k = shared; *k; k++) {
        json_t *v = json_object_get(first, *k);
        if (!v) continue;
        json_object_set(answer, *k, v);
        size_t j;
        json_t *o;
        json_array_foreach(outcomes, j, o) json_object_del(json_object_get(o, "result"), *k);
        first = json_object_get(json_array_get(outcomes, 0), "result");
    }
    json_t *codes = json_object();
    double p_any = 0, p_dem = 0, p_contact = 0;
    size_t i;
    json_t *o;
    json_array_foreach(outcomes, i, o) {
        double p = json_real_value(json_object_get(o, "p"));
        json_t *r = json_object_get(o, "result");
        add(codes, json_string_value(json_object_get(r, "result")), p);
        if (json_array_size(json_object_get(r, "eliminated"))) p_any += p;
        if (json_array_size(json_object_get(r, "demoralized"))) p_dem += p;
        if (json_is_true(json_object_get(r, "contact"))) p_contact += p;
    }
    json_object_set_new(answer, "p_results", codes);
    json_object_set_new(answer, "p_any_eliminated", json_real(p_any));
    json_object_set_new(answer, "p_any_demoralized", json_real(p_dem));
    if (json_object_get(answer, "attack"))
        json_object_set_new(answer, "p_contact", json_real(p_contact));
}
