/* Exact odds by enumeration, against distributions computed here by convolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rules/dice_source.h"
#include "server/api/odds.h"

#include <uv.h>

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *odds_of(const char *expr, api_error *err) {
    const rules_action *a = ruleset_action(ruleset_find("generic"), "roll");
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s}", "expr", expr);
    json_t *state = json_pack("{s:[], s:i}", "units", "rolls", 0);
    json_t *answer = NULL;
    if (a->decode(fields, decoded, err) == 0) {
        rules_ctx ctx = {
            .state = state, .options = NULL, .actor = "referee", .unit = NULL, .dice = NULL};
        answer = odds_enumerate_new(a, decoded, &ctx, ODDS_MAX_COMBINATIONS, err);
    }
    json_decref(fields);
    json_decref(state);
    free(decoded);
    return answer;
}

/* As odds_of, through odds_enumerate_cancellable_new with cancel. */
typedef struct cancellable_run {
    const char *expr;
    atomic_bool cancel;
    api_error err;
    json_t *answer;
} cancellable_run;

static void run_cancellable(void *arg) {
    cancellable_run *r = arg;
    const rules_action *a = ruleset_action(ruleset_find("generic"), "roll");
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s}", "expr", r->expr);
    json_t *state = json_pack("{s:[], s:i}", "units", "rolls", 0);
    assert_int_equal(a->decode(fields, decoded, &r->err), 0);
    rules_ctx ctx = {
        .state = state, .options = NULL, .actor = "referee", .unit = NULL, .dice = NULL};
    r->answer = odds_enumerate_cancellable_new(a, decoded, &ctx, ODDS_MAX_COMBINATIONS, &r->cancel,
                                               &r->err);
    json_decref(fields);
    json_decref(state);
    free(decoded);
}

/* counts[t] = number of ways n dice of s sides sum to t (plain convolution). */
static void convolve(int n, int s, long *counts, int max) {
    memset(counts, 0, sizeof(long) * (size_t)(max + 1));
    counts[0] = 1;
    for (int d = 0; d < n; d++) {
        long next[128] = {0};
        for (int t = 0; t <= max; t++)
            for (int f = 1; f <= s && t + f <= max; f++)
                next[t + f] += counts[t];
        memcpy(counts, next, sizeof(long) * (size_t)(max + 1));
    }
}

static void check_against_convolution(const char *expr, int n, int s, int offset) {
    api_error err = {0};
    json_t *answer = odds_of(expr, &err);
    assert_non_null(answer);
    long counts[128];
    convolve(n, s, counts, n * s);
    long of = 1;
    for (int i = 0; i < n; i++)
        of *= s;
    assert_int_equal(json_integer_value(json_object_get(answer, "of")), of);
    assert_true(json_is_true(json_object_get(answer, "exact")));
    json_t *outcomes = json_object_get(answer, "outcomes");
    assert_int_equal(json_array_size(outcomes), (size_t)(n * s - n + 1));
    double sum = 0;
    json_int_t last = -1000;
    size_t i;
    json_t *row;
    json_array_foreach(outcomes, i, row) {
        json_int_t total =
            json_integer_value(json_object_get(json_object_get(row, "result"), "total"));
        assert_true(total > last); /* increasing */
        last = total;
        assert_int_equal(json_integer_value(json_object_get(row, "count")), counts[total - offset]);
        double p = json_real_value(json_object_get(row, "p"));
        assert_true(fabs(p - (double)counts[total - offset] / (double)of) < 1e-12);
        sum += p;
    }
    assert_true(fabs(sum - 1.0) < 1e-9);
    json_decref(answer);
}

static void three_d6_gives_27_of_216_for_ten(void **state) {
    (void)state;
    api_error err = {0};
    json_t *answer = odds_of("3d6", &err);
    size_t i;
    json_t *row;
    int found = 0;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        if (json_integer_value(json_object_get(json_object_get(row, "result"), "total")) == 10) {
            assert_int_equal(json_integer_value(json_object_get(row, "count")), 27);
            assert_string_equal(json_string_value(json_object_get(row, "summary")), "total 10");
            found = 1;
        }
    }
    assert_true(found);
    assert_int_equal(json_integer_value(json_object_get(answer, "of")), 216);
    assert_true(fabs(json_real_value(json_object_get(answer, "mean")) - 10.5) < 1e-9);
    json_decref(answer);
}

static void sums_match_the_convolution(void **state) {
    (void)state;
    check_against_convolution("1d6", 1, 6, 0);
    check_against_convolution("2d6", 2, 6, 0);
    check_against_convolution("4d6", 4, 6, 0);
    check_against_convolution("2d10+3", 2, 10, 3);
    check_against_convolution("3d4-2", 3, 4, -2);
}

static void keep_highest_is_enumerated_exactly(void **state) {
    (void)state;
    /* 2d6kh1: P(max = k) = (2k - 1) / 36 */
    api_error err = {0};
    json_t *answer = odds_of("2d6kh1", &err);
    size_t i;
    json_t *row;
    json_array_foreach(json_object_get(answer, "outcomes"), i, row) {
        json_int_t k = json_integer_value(json_object_get(json_object_get(row, "result"), "total"));
        assert_int_equal(json_integer_value(json_object_get(row, "count")), 2 * k - 1);
    }
    json_decref(answer);
}

static void too_many_combinations_is_422(void **state) {
    (void)state;
    api_error err = {0};
    assert_null(odds_of("10d10", &err));
    assert_int_equal(err.status, 422);
    assert_string_equal(err.code, "odds_too_large");
    api_error_clear(&err);
}

/* ---- refusals decided before the work ----------------------------------------------------- */

static json_int_t detail_int(const api_error *err, const char *key) {
    return json_integer_value(json_object_get(err->details, key));
}

static double detail_number(const api_error *err, const char *key) {
    return json_number_value(json_object_get(err->details, key));
}

static void many_generic_dice_are_refused_with_their_figures(void **state) {
    (void)state;
    api_error err = {0};
    assert_null(odds_of("100d6", &err));
    assert_int_equal(err.status, 422);
    assert_string_equal(err.code, "odds_too_large");
    assert_int_equal(detail_int(&err, "limit"), ODDS_MAX_COMBINATIONS);
    assert_int_equal(detail_int(&err, "dice"), 100);
    /* 6^100: the dice of one resolution, and (one roll of them all) a proven lower bound */
    assert_true(fabs(detail_number(&err, "dice_combinations") / pow(6, 100) - 1) < 1e-9);
    assert_true(fabs(detail_number(&err, "combinations_at_least") / pow(6, 100) - 1) < 1e-9);
    api_error_clear(&err);
    /* two rolls: 2,000,000 combinations of one resolution's dice; 1,000,001 proven */
    assert_null(odds_of("2d1000+1d2", &err));
    assert_string_equal(err.code, "odds_too_large");
    assert_int_equal(detail_int(&err, "dice"), 3);
    assert_int_equal(detail_int(&err, "dice_combinations"), 2000000);
    assert_int_equal(detail_int(&err, "combinations_at_least"), 1000001);
    api_error_clear(&err);
}

/* A handler whose dice depend on their values: a first d6; on `wide_on` (0: never) twelve more
 * d6; every run counted. With wide_on = 6 the first combination (every die at 1) rolls one die,
 * and the action has 5 + 6^12 combinations. */
static int wide_on;
static long handler_runs;
static int result_values; /* extra values in the result: a large resolution */

static int wide_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                        api_error *err) {
    (void)action;
    handler_runs++;
    int v[12];
    if (dice_roll(ctx->dice, "first", "1d6", 1, 6, v) != 0) {
        api_error_set(err, 422, "rules_violation", NULL, "too many dice");
        return -1;
    }
    int total = v[0];
    if (v[0] == wide_on) {
        if (dice_roll(ctx->dice, "more", "12d6", 12, 6, v) != 0) {
            api_error_set(err, 422, "rules_violation", NULL, "too many dice");
            return -1;
        }
        for (int i = 0; i < 12; i++)
            total += v[i];
    }
    for (int r = 1; r < 3 && result_values; r++) { /* two more rolls: 6^3 combinations */
        if (dice_roll(ctx->dice, "extra", "1d6", 1, 6, v) != 0) return -1;
        total += v[0];
    }
    out->result = json_pack("{s:i}", "total", total);
    json_t *bulk = json_array();
    for (int i = 0; i < result_values; i++)
        json_array_append_new(bulk, json_integer(i));
    json_object_set_new(out->result, "bulk", bulk);
    snprintf(out->summary, sizeof out->summary, "total %d", total);
    return 0;
}

static const rules_action wide_action = {.type = "wide", .resolve = wide_resolve};

static json_t *wide_odds(int on, int values, long cap, api_error *err) {
    wide_on = on;
    result_values = values;
    handler_runs = 0;
    rules_ctx ctx = {
        .state = NULL, .options = NULL, .actor = "referee", .unit = NULL, .dice = NULL};
    return odds_enumerate_new(&wide_action, NULL, &ctx, cap, err);
}

static void dice_that_widen_later_are_refused_at_once(void **state) {
    (void)state;
    api_error err = {0};
    /* every die at 1: one die; every die at its highest: thirteen, 6^13 combinations */
    assert_null(wide_odds(6, 0, ODDS_MAX_COMBINATIONS, &err));
    assert_int_equal(err.status, 422);
    assert_string_equal(err.code, "odds_too_large");
    assert_int_equal(detail_int(&err, "dice"), 13);
    assert_true(fabs(detail_number(&err, "dice_combinations") / pow(6, 13) - 1) < 1e-9);
    /* the 12d6 roll is one call: 6^12 combinations at least, whatever its values do */
    assert_true(detail_number(&err, "combinations_at_least") >= pow(6, 12));
    assert_true(handler_runs < 100); /* probes only, no enumeration */
    api_error_clear(&err);
}

static void the_enumeration_never_runs_past_its_limit(void **state) {
    (void)state;
    /* Wide only on a 3, which neither the first nor the highest combination shows: whether a
     * random probe finds it or the enumeration does, the handler runs at most limit + 1 times
     * beyond the probes, and the details name the dice of a resolution that rolls. */
    api_error err = {0};
    assert_null(wide_odds(3, 0, 1000, &err));
    assert_string_equal(err.code, "odds_too_large");
    assert_int_equal(detail_int(&err, "limit"), 1000);
    assert_int_equal(detail_int(&err, "dice"), 13);
    assert_true(detail_number(&err, "combinations_at_least") > 1000);
    assert_true(handler_runs <= 1000 + 1 + 2 + 16 + ODDS_PROBES_RANDOM);
    api_error_clear(&err);
    /* the same handler, never wide: 6 combinations, exact */
    json_t *answer = wide_odds(0, 0, 1000, &err);
    assert_non_null(answer);
    assert_int_equal(json_integer_value(json_object_get(answer, "of")), 6);
    json_decref(answer);
}

static void large_resolutions_lower_the_limit(void **state) {
    (void)state;
    /* 216 combinations, each building a result of 2,000 values: the work of 216 runs is that of
     * 216 * 2,000 / 32 = 13,500 small ones; with a cap of 10,000 it is refused at once */
    api_error err = {0};
    assert_null(wide_odds(0, 2000, 10000, &err));
    assert_string_equal(err.code, "odds_too_large");
    assert_int_equal(detail_int(&err, "limit"), 10000);
    json_int_t allowed = detail_int(&err, "combinations_allowed");
    assert_true(allowed > 0 && allowed < 216);
    assert_true(detail_int(&err, "work_per_combination") > 2000);
    assert_int_equal(detail_int(&err, "dice"), 3);
    assert_int_equal(detail_int(&err, "dice_combinations"), 216);
    assert_true(handler_runs < 100);
    api_error_clear(&err);
    /* a small result: the same dice are enumerated */
    json_t *answer = wide_odds(0, 10, 10000, &err);
    assert_non_null(answer);
    assert_int_equal(json_integer_value(json_object_get(answer, "of")), 216);
    json_decref(answer);
}

/* A large magic-realm round from Situation 10's units: the White Knight, his Great Sword at
 * bat-1, and six Giant Bats at him. Every die at 1 ends the round early (few dice); other
 * combinations roll every attack. Refused at once, with the dice of a resolution that rolls. */
static void a_large_magic_realm_round_is_refused_at_once(void **state) {
    (void)state;
    json_error_t je;
    json_t *scenario =
        json_load_file(UMPIRE_SOURCE_DIR "/scenarios/magic-realm-sharks-with-wings.json", 0, &je);
    assert_non_null(scenario);
    json_t *units =
        json_object_get(json_object_get(json_object_get(scenario, "session"), "setup"), "units");
    json_t *bat = json_array_get(units, 1);
    json_t *combatants =
        json_pack("[{s:s, s:{s:s, s:i}, s:[{s:s, s:s, s:s, s:s, s:i, s:i}]}]", "unit",
                  "white-knight", "maneuver", "box", "dodge", "move_time", 4, "attacks", "target",
                  "bat-1", "box", "swing", "kind", "striking", "harm", "T", "time", 6, "length", 8);
    static const char *boxes[] = {"thrust", "swing", "smash"};
    for (int i = 3; i <= 6; i++) {
        char id[16];
        snprintf(id, sizeof id, "bat-%d", i);
        json_t *copy = json_deep_copy(bat);
        json_object_set_new(copy, "id", json_string(id));
        json_array_append_new(units, copy);
    }
    for (int i = 1; i <= 6; i++) {
        char id[16];
        snprintf(id, sizeof id, "bat-%d", i);
        json_array_append_new(combatants, json_pack("{s:s, s:s, s:s}", "unit", id, "box",
                                                    boxes[i % 3], "target", "white-knight"));
    }
    const ruleset *mr = ruleset_find("magic-realm");
    api_error err = {0};
    json_t *options = json_object();
    json_t *setup = json_pack("{s:O}", "units", units);
    json_t *st = mr->init_state(options, setup, &err);
    json_decref(setup);
    assert_non_null(st);
    const rules_action *a = ruleset_action(mr, "round");
    json_t *fields = json_pack("{s:o}", "combatants", combatants);
    void *decoded = calloc(1, a->decoded_size);
    assert_int_equal(a->decode(fields, decoded, &err), 0);
    rules_ctx ctx = {
        .state = st, .options = options, .actor = "referee", .unit = NULL, .dice = NULL};
    json_t *answer = odds_enumerate_new(a, decoded, &ctx, ODDS_MAX_COMBINATIONS, &err);
    assert_null(answer);
    assert_int_equal(err.status, 422);
    assert_string_equal(err.code, "odds_too_large");
    json_int_t dice = detail_int(&err, "dice");
    assert_true(dice >= 8 && dice % 2 == 0); /* 2d6 per roll */
    json_int_t allowed = json_object_get(err.details, "combinations_allowed")
                             ? detail_int(&err, "combinations_allowed")
                             : detail_int(&err, "limit");
    assert_true(detail_number(&err, "dice_combinations") > (double)allowed);
    assert_true(fabs(detail_number(&err, "dice_combinations") / pow(6, (double)dice) - 1) < 1e-9);
    api_error_clear(&err);
    free(decoded);
    json_decref(fields);
    json_decref(options);
    json_decref(st);
    json_decref(scenario);
}

/* The client has gone: an enumeration stops between two runs, and one cancelled before it
 * starts runs nothing; not cancelled, it gives the same answer as odds_enumerate_new. */
static void a_cancelled_enumeration_stops(void **state) {
    (void)state;
    cancellable_run r = {.expr = "2d6"};
    atomic_init(&r.cancel, false);
    run_cancellable(&r);
    api_error err = {0};
    json_t *plain = odds_of("2d6", &err);
    assert_non_null(r.answer);
    assert_true(json_equal(r.answer, plain));
    json_decref(r.answer);
    json_decref(plain);

    cancellable_run pre = {.expr = "2d6"};
    atomic_init(&pre.cancel, true);
    run_cancellable(&pre);
    assert_null(pre.answer);
    assert_int_equal(pre.err.status, 503);
    assert_string_equal(pre.err.code, "cancelled");
    api_error_clear(&pre.err);

    /* 2d1000: a million runs, seconds of work; cancelled 50 ms in, it returns long before */
    cancellable_run mid = {.expr = "2d1000"};
    atomic_init(&mid.cancel, false);
    uv_thread_t t;
    assert_int_equal(uv_thread_create(&t, run_cancellable, &mid), 0);
    uv_sleep(50);
    atomic_store(&mid.cancel, true);
    uv_thread_join(&t);
    assert_null(mid.answer);
    assert_string_equal(mid.err.code, "cancelled");
    api_error_clear(&mid.err);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_d6_gives_27_of_216_for_ten),
        cmocka_unit_test(sums_match_the_convolution),
        cmocka_unit_test(keep_highest_is_enumerated_exactly),
        cmocka_unit_test(too_many_combinations_is_422),
        cmocka_unit_test(many_generic_dice_are_refused_with_their_figures),
        cmocka_unit_test(dice_that_widen_later_are_refused_at_once),
        cmocka_unit_test(the_enumeration_never_runs_past_its_limit),
        cmocka_unit_test(large_resolutions_lower_the_limit),
        cmocka_unit_test(a_large_magic_realm_round_is_refused_at_once),
        cmocka_unit_test(a_cancelled_enumeration_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
