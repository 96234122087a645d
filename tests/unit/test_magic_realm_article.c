/* The Optional Combat article's table questions, through the module as the core drives it
 * (decode, init_state with the options, exact odds by enumeration): the DRMs, roll-by-roll harms
 * and percentages of Situations 1-10 (Situation 10 roll by roll, each at the armor state of its
 * moment), all 40 cells of the 3rd-edition results table, and of the Notes on the 3rd Edition
 * only these: the Crossbowmen's undercut ("5 or less", "usually a 70% chance"), the Bashkar
 * rider's "30% chance of surviving" an undercutting Fiery Blast, and the horse-and-rider
 * examples (A) and (B). The Notes' other figures are not table questions and are not asserted:
 * "66%" and "1 in 3" are boxes lining up; the Crossbowmen's "30%" is a change of tactics; the
 * "56%" survival of the Fiery Blast undercut needs the Crossbowman's vulnerability and H1-side
 * move time, and B1's "4 or less" and "4% or 7%" need the Bashkars' attacks, none of which the
 * article gives; "one chance in ten", "8%" and "much over 10%" are products of those. Every
 * answer with a DRM must name its terms (drm_terms, and each outcome's summary).
 * The claims are data in tests/data/magic-realm-article.json (transcribed in
 * tests/data/gen-magic-realm-article.py; the HTTP test reads the same file). A case with a "slip"
 * expects the rules' answer where the article contradicts the rules text; the slip is printed
 * with the case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/api/odds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UMPIRE_SOURCE_DIR
#define UMPIRE_SOURCE_DIR "."
#endif
#define DATA_PATH UMPIRE_SOURCE_DIR "/tests/data/magic-realm-article.json"

static json_t *data;

static int load(void **state) {
    (void)state;
    json_error_t je;
    data = json_load_file(DATA_PATH, 0, &je);
    if (!data) fprintf(stderr, "cannot read %s: %s\n", DATA_PATH, je.text);
    return data ? 0 : -1;
}

static int unload(void **state) {
    (void)state;
    json_decref(data);
    return 0;
}

/* The exact odds of `action` (with `options`, may be NULL); fails the test on an error. */
static json_t *odds(const json_t *action, const json_t *options) {
    const ruleset *rs = ruleset_find("magic-realm");
    assert_non_null(rs);
    const char *type = json_string_value(json_object_get(action, "type"));
    const rules_action *a = ruleset_action(rs, type);
    assert_non_null(a);
    json_t *fields = json_deep_copy(action);
    json_object_del(fields, "type");
    json_t *opts = options ? json_incref((json_t *)options) : json_object();
    json_t *setup = json_object();
    api_error err = {0};
    json_t *state = rs->init_state(opts, setup, &err);
    assert_non_null(state);
    void *decoded = calloc(1, a->decoded_size);
    if (a->decode(fields, decoded, &err) != 0) fail_msg("decode: %s", err.message);
    rules_ctx ctx = {
        .state = state, .options = opts, .actor = "referee", .unit = NULL, .dice = NULL};
    json_t *answer = odds_enumerate_new(a, decoded, &ctx, ODDS_MAX_COMBINATIONS, &err);
    if (!answer) fail_msg("odds: %s", err.message);
    free(decoded);
    json_decref(fields);
    json_decref(opts);
    json_decref(setup);
    json_decref(state);
    api_error_clear(&err);
    return answer;
}

/* Combinations (out of answer.of) whose outcome is `outcome`. */
static long count_of(const json_t *answer, const char *outcome) {
    long n = 0;
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        const char *o =
            json_string_value(json_object_get(json_object_get(row, "result"), "outcome"));
        if (o && strcmp(o, outcome) == 0)
            n += (long)json_integer_value(json_object_get(row, "count"));
    }
    return n;
}

static int rounded_percent(double p) {
    return (int)floor(p * 100 + 0.5);
}

static const char *roll_field(const json_t *answer, int r, const char *field) {
    return json_string_value(
        json_object_get(json_array_get(json_object_get(answer, "rolls"), (size_t)r - 1), field));
}

static int level_index(const char *harm) {
    static const char *const levels[] = {"NEGLIGIBLE", "L", "M", "H", "T", "KILL"};
    for (int i = 0; i < 6; i++)
        if (harm && strcmp(harm, levels[i]) == 0) return i;
    return -1;
}

/* Every answer with a DRM names its terms, as the action's result does: they add up to the DRM
 * (the basic game's table takes none), and each rolled outcome's summary says them first:
 * "DRM +2 (time +1, move -3, undercut +4); roll 1 (adjusted 3): ...". */
static void check_drm_terms(const json_t *c, const json_t *answer) {
    json_t *drm = json_object_get(answer, "drm"), *terms = json_object_get(answer, "drm_terms");
    if (!drm) {
        assert_null(terms);
        return;
    }
    assert_true(json_is_array(terms));
    const char *table = json_string_value(json_object_get(json_object_get(c, "action"), "table"));
    bool standard = table && strcmp(table, "standard") == 0;
    char want[256];
    json_int_t sum = 0;
    size_t i;
    json_t *t;
    if (standard) {
        snprintf(want, sizeof want, "no DRM (the basic game's Missile Table); roll ");
    } else {
        snprintf(want, sizeof want, "DRM %+lld (", (long long)json_integer_value(drm));
        json_array_foreach(terms, i, t) {
            size_t len = strlen(want);
            snprintf(want + len, sizeof want - len, "%s%s %+lld", i ? ", " : "",
                     json_string_value(json_object_get(t, "term")),
                     (long long)json_integer_value(json_object_get(t, "value")));
        }
        if (json_array_size(terms) == 0) strcat(want, "none");
        strcat(want, "); roll ");
    }
    json_array_foreach(terms, i, t) sum += json_integer_value(json_object_get(t, "value"));
    assert_int_equal(sum, json_integer_value(drm));
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        json_t *result = json_object_get(row, "result");
        if (!json_object_get(result, "roll")) continue;
        assert_true(json_equal(json_object_get(result, "drm_terms"), terms));
        const char *summary = json_string_value(json_object_get(row, "summary"));
        if (strncmp(summary, want, strlen(want)) != 0)
            fail_msg("summary '%s' does not start with '%s'", summary, want);
    }
}

/* The checks of one case (see the data file's "about"). */
static void check_case(const json_t *c) {
    const char *id = json_string_value(json_object_get(c, "id"));
    const json_t *e = json_object_get(c, "expect");
    const char *slip = json_string_value(json_object_get(c, "slip"));
    json_t *answer = odds(json_object_get(c, "action"), json_object_get(c, "options"));
    bool run = json_object_get(answer, "p_success") != NULL;
    const char *good = run ? "completed" : "killed";
    double p = json_real_value(json_object_get(answer, run ? "p_success" : "p_kill"));
    long of = (long)json_integer_value(json_object_get(answer, "of"));
    print_message("%s: %s%s%s\n", id, json_string_value(json_object_get(c, "claim")),
                  slip ? "\n    SLIP: " : "", slip ? slip : "");

    assert_true(json_is_true(json_object_get(answer, "exact")));
    assert_int_equal(json_array_size(json_object_get(answer, "rolls")), 6);
    for (int r = 1; r <= 6; r++) {
        json_t *row = json_array_get(json_object_get(answer, "rolls"), (size_t)r - 1);
        assert_int_equal(json_integer_value(json_object_get(row, "roll")), r);
        assert_true(fabs(json_real_value(json_object_get(row, "p")) - (2.0 * r - 1) / 36) < 1e-12);
    }
    if (json_object_get(e, "drm"))
        assert_int_equal(json_integer_value(json_object_get(answer, "drm")),
                         json_integer_value(json_object_get(e, "drm")));
    json_t *max = json_object_get(e, run ? "success_max_roll" : "kill_max_roll");
    if (max) {
        long n = (long)json_integer_value(max);
        /* exactly n*n of 36: the rolls 1..n (p = (2r-1)/36 each) */
        assert_int_equal(count_of(answer, good) * 36, n * n * of);
        assert_true(fabs(p - (double)(n * n) / 36) < 1e-12);
        for (int r = 1; r <= 6; r++)
            assert_int_equal(strcmp(roll_field(answer, r, "outcome"), good) == 0, r <= n);
    }
    json_t *harms = json_object_get(e, "harms"), *outcomes = json_object_get(e, "outcomes");
    for (int r = 1; r <= 6; r++) {
        if (harms)
            assert_string_equal(roll_field(answer, r, "harm"),
                                json_string_value(json_array_get(harms, (size_t)r - 1)));
        if (outcomes)
            assert_string_equal(roll_field(answer, r, "outcome"),
                                json_string_value(json_array_get(outcomes, (size_t)r - 1)));
    }
    json_t *pct = json_object_get(e, "percent");
    if (pct && !slip) assert_int_equal(rounded_percent(p), json_integer_value(pct));
    if (pct && slip && strstr(slip, "rounding")) /* the slip is real */
        assert_int_not_equal(rounded_percent(p), json_integer_value(pct));
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(e, "outcome_percent"), key, v) {
        assert_int_equal(rounded_percent((double)count_of(answer, key) / (double)of),
                         json_integer_value(v));
    }
    json_t *survive = json_object_get(e, "survive_percent");
    if (survive && !slip) assert_int_equal(rounded_percent(1 - p), json_integer_value(survive));
    if (survive && slip) assert_int_not_equal(rounded_percent(1 - p), json_integer_value(survive));
    json_t *max_harm = json_object_get(e, "max_harm");
    if (max_harm) {
        int best = -1;
        for (int r = 1; r <= 6; r++) {
            int l = level_index(roll_field(answer, r, "harm"));
            if (l > best) best = l;
        }
        assert_int_equal(best, level_index(json_string_value(max_harm)));
    }
    json_t *enumerated = json_object_get(e, "enumerated");
    if (enumerated)
        assert_int_equal(json_integer_value(json_object_get(answer, "enumerated")),
                         json_integer_value(enumerated));
    json_t *want_terms = json_object_get(e, "drm_terms"),
           *terms = json_object_get(answer, "drm_terms");
    if (want_terms) {
        assert_int_equal(json_array_size(terms), json_array_size(want_terms));
        size_t j;
        json_t *w;
        json_array_foreach(want_terms, j, w) {
            assert_int_equal(json_integer_value(json_object_get(json_array_get(terms, j), "value")),
                             json_integer_value(w));
        }
    }
    const json_t *at = json_object_get(e, "at_roll");
    if (at) {
        int r = (int)json_integer_value(json_object_get(at, "roll"));
        json_t *row = json_array_get(json_object_get(answer, "rolls"), (size_t)r - 1);
        assert_int_equal(json_integer_value(json_object_get(row, "adjusted")),
                         json_integer_value(json_object_get(at, "adjusted")));
        assert_string_equal(roll_field(answer, r, "harm"),
                            json_string_value(json_object_get(at, "harm")));
        assert_string_equal(roll_field(answer, r, "outcome"),
                            json_string_value(json_object_get(at, "outcome")));
    }
    check_drm_terms(c, answer);
    json_decref(answer);
}

static void article_situations_and_notes(void **state) {
    (void)state;
    size_t i;
    json_t *c;
    json_t *cases = json_object_get(data, "cases");
    assert_true(json_array_size(cases) >= 99);
    json_array_foreach(cases, i, c) check_case(c);
}

/* "K / 2": intercept kills on every roll, undercut on 2 or less; "-": never. */
static int cell_max(const char *s) {
    while (*s == ' ')
        s++;
    return *s == 'K' ? 6 : *s == '-' ? 0 : *s - '0';
}

static void third_edition_results_table(void **state) {
    (void)state;
    json_t *t = json_object_get(data, "third_edition_table");
    const char *target;
    json_t *row;
    int cells = 0;
    json_object_foreach(json_object_get(t, "cells"), target, row) {
        const char *attack;
        json_t *cell;
        json_object_foreach(row, attack, cell) {
            const char *text = json_string_value(cell);
            const char *slash = strchr(text, '/');
            assert_non_null(slash);
            for (int u = 0; u < 2; u++) {
                int n = cell_max(u ? slash + 1 : text);
                json_t *action =
                    json_pack("{s:s, s:O, s:O, s:s}", "type", "attack", "attack",
                              json_object_get(json_object_get(t, "attacks"), attack), "target",
                              json_object_get(json_object_get(t, "targets"), target), "hit",
                              u ? "undercut" : "intercept");
                json_t *answer = odds(action, NULL);
                print_message("%s vs %s, %s: %s\n", attack, target, u ? "undercut" : "intercept",
                              n == 6 ? "K"
                              : n    ? (char[]){(char)('0' + n), 0}
                                     : "-");
                assert_int_equal(count_of(answer, "killed") * 36,
                                 (long)n * n * json_integer_value(json_object_get(answer, "of")));
                for (int r = 1; r <= 6; r++)
                    assert_int_equal(strcmp(roll_field(answer, r, "outcome"), "killed") == 0,
                                     r <= n);
                json_decref(answer);
                json_decref(action);
                cells++;
            }
        }
    }
    assert_int_equal(cells, 40); /* 4 targets x 5 attacks x intercept/undercut */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(article_situations_and_notes),
        cmocka_unit_test(third_edition_results_table),
    };
    return cmocka_run_group_tests(tests, load, unload);
}
