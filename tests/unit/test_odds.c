/* Exact odds by enumeration, against distributions computed here by convolution. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "server/odds.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_t *odds_of(const char *expr, api_error *err) {
    const rules_action *a = ruleset_action(ruleset_find("generic"), "roll");
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s}", "expr", expr);
    json_t *state = json_pack("{s:[], s:i}", "units", "rolls", 0);
    json_t *answer = NULL;
    if (a->decode(fields, decoded, err) == 0) {
        rules_ctx ctx = {state, NULL, "referee", NULL, NULL};
        answer = odds_enumerate_new(a, decoded, &ctx, ODDS_MAX_COMBINATIONS, err);
    }
    json_decref(fields);
    json_decref(state);
    free(decoded);
    return answer;
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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(three_d6_gives_27_of_216_for_ten),
        cmocka_unit_test(sums_match_the_convolution),
        cmocka_unit_test(keep_highest_is_enumerated_exactly),
        cmocka_unit_test(too_many_combinations_is_422),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
