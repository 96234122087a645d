/* The generic ruleset, driven as the core drives it: decode, then resolve over a dice source. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "protocol/jcs.h"
#include "rules/ruleset.h"
#include "server/dice/dice_fair.h"
#include "server/dice/seeded_source.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t seed[32] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

typedef struct run {
    int rc;
    api_error err;
    rules_outcome out;
    dice_source *ds;
} run;

/* Decodes {"expr": expr} and resolves it with ds (taken). */
static run resolve(const char *expr, dice_source *ds) {
    const ruleset *rs = ruleset_find("generic");
    const rules_action *a = ruleset_action(rs, "roll");
    run r = {0};
    r.ds = ds;
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s}", "expr", expr);
    json_t *state = json_pack("{s:[], s:i}", "units", "rolls", 0);
    r.rc = a->decode(fields, decoded, &r.err);
    if (r.rc == 0) {
        rules_ctx ctx = {
            .state = state, .options = NULL, .actor = "side:knight", .unit = NULL, .dice = ds};
        r.rc = a->resolve(&ctx, decoded, &r.out, &r.err);
    }
    json_decref(fields);
    json_decref(state);
    free(decoded);
    return r;
}

static void run_clear(run *r) {
    rules_outcome_clear(&r->out);
    api_error_clear(&r->err);
    dice_source_free(r->ds);
}

static void seeded_roll_uses_consecutive_nonces(void **state) {
    (void)state;
    run r = resolve("2d6+1d4-1", dice_source_new_seeded(seed, "s1", 5));
    assert_int_equal(r.rc, 0);
    int a = (int)dice_fair_roll(seed, "s1", 5, 6), b = (int)dice_fair_roll(seed, "s1", 6, 6),
        c = (int)dice_fair_roll(seed, "s1", 7, 4);
    assert_int_equal(json_integer_value(json_object_get(r.out.result, "total")), a + b + c - 1);
    assert_int_equal(dice_source_next_nonce(r.ds), 8);
    json_t *dice = dice_source_records_new(r.ds);
    assert_int_equal(json_array_size(dice), 2);
    json_t *first = json_array_get(dice, 0);
    assert_string_equal(json_string_value(json_object_get(first, "notation")), "2d6");
    assert_int_equal(json_integer_value(json_object_get(first, "nonce")), 5);
    assert_int_equal(json_integer_value(json_object_get(first, "value")), a + b);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(dice, 1), "nonce")), 7);
    assert_non_null(strstr(r.out.summary, "knight rolled 2d6+1d4-1 = "));
    assert_int_equal(json_integer_value(json_object_get(r.out.new_state, "rolls")), 1);
    json_decref(dice);
    run_clear(&r);
}

static void keep_highest_keeps_the_highest(void **state) {
    (void)state;
    const int64_t values[] = {4, 2, 5};
    run r = resolve("3d6kh2+1", dice_source_new_manual(values, 3));
    assert_int_equal(r.rc, 0);
    assert_false(dice_source_unsatisfied(r.ds));
    assert_int_equal(json_integer_value(json_object_get(r.out.result, "total")), 10);
    json_t *term = json_array_get(json_object_get(r.out.result, "terms"), 0);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(term, "kept"), 0)), 5);
    assert_int_equal(json_integer_value(json_array_get(json_object_get(term, "kept"), 1)), 4);
    assert_string_equal(r.out.summary,
                        "knight rolled 3d6kh2+1 = 10 (3d6kh2: [4,2,5] keep 5+4 = 9; +1)");
    run_clear(&r);
}

static void keep_lowest_keeps_the_lowest(void **state) {
    (void)state;
    const int64_t values[] = {6, 1, 3, 2};
    run r = resolve("4d6kl2", dice_source_new_manual(values, 4));
    assert_int_equal(r.rc, 0);
    assert_int_equal(json_integer_value(json_object_get(r.out.result, "total")), 3);
    run_clear(&r);
}

static void manual_shortage_lists_every_roll(void **state) {
    (void)state;
    const int64_t values[] = {3};
    run r = resolve("2d6+1d4", dice_source_new_manual(values, 1));
    assert_int_equal(r.rc, 0);
    assert_true(dice_source_unsatisfied(r.ds));
    json_t *needed = dice_source_needed_new(r.ds);
    assert_int_equal(json_array_size(needed), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(needed, 0), "notation")),
                        "2d6");
    assert_string_equal(json_string_value(json_object_get(json_array_get(needed, 1), "notation")),
                        "1d4");
    json_decref(needed);
    run_clear(&r);
}

static void manual_excess_and_out_of_range_are_unsatisfied(void **state) {
    (void)state;
    const int64_t too_many[] = {3, 4, 5};
    run r = resolve("2d6", dice_source_new_manual(too_many, 3));
    assert_true(dice_source_unsatisfied(r.ds));
    run_clear(&r);
    const int64_t out_of_range[] = {3, 7};
    r = resolve("2d6", dice_source_new_manual(out_of_range, 2));
    assert_true(dice_source_unsatisfied(r.ds));
    run_clear(&r);
}

static void bad_notation_names_its_position(void **state) {
    (void)state;
    run r = resolve("2d6+x", dice_source_new_seeded(seed, "s1", 1));
    assert_int_equal(r.rc, -1);
    assert_int_equal(r.err.status, 422);
    assert_string_equal(r.err.code, "invalid_notation");
    assert_int_equal(json_integer_value(json_object_get(r.err.details, "position")), 4);
    run_clear(&r);
}

static void unknown_fields_are_rejected(void **state) {
    (void)state;
    const rules_action *a = ruleset_action(ruleset_find("generic"), "roll");
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s, s:i}", "expr", "1d6", "exprr", 1);
    api_error e = {0};
    assert_int_equal(a->decode(fields, decoded, &e), -1);
    assert_int_equal(e.status, 400);
    assert_string_equal(json_string_value(json_object_get(e.details, "field")), "exprr");
    api_error_clear(&e);
    json_decref(fields);
    free(decoded);
}

/* The records in canonical form, composed directly, are byte for byte the canonical form of
 * the JSON records (the writer stores and hashes the former; verify compares the latter). */
static void records_jcs_matches_records_json(void **state) {
    (void)state;
    const int64_t values[] = {4, 2, 5, 1};
    dice_source *sources[] = {dice_source_new_seeded(seed, "s1", 9),
                              dice_source_new_manual(values, 4)};
    for (int k = 0; k < 2; k++) {
        run r = resolve("3d6kh2+1d4+2", sources[k]);
        assert_int_equal(r.rc, 0);
        json_t *json = dice_source_records_new(r.ds);
        char *want = jcs_dump_new(json, NULL);
        jcs_out o = {0};
        dice_source_records_jcs(r.ds, &o);
        char *got = jcs_out_take(&o, NULL);
        assert_non_null(want);
        assert_non_null(got);
        assert_string_equal(got, want);
        free(got);
        free(want);
        json_decref(json);
        run_clear(&r);
    }
}

/* Copy-on-write states (rules/ruleset.h): the state before the roll is left as it was, and
 * what did not change is shared, not copied. */
static void resolve_leaves_the_old_state_alone(void **state) {
    (void)state;
    const ruleset *rs = ruleset_find("generic");
    const rules_action *a = ruleset_action(rs, "roll");
    void *decoded = calloc(1, a->decoded_size);
    json_t *fields = json_pack("{s:s}", "expr", "1d6");
    json_t *before =
        json_pack("{s:[{s:s, s:s}], s:i}", "units", "id", "u1", "side", "a", "rolls", 3);
    char *before_text = jcs_dump_new(before, NULL);
    api_error err = {0};
    rules_outcome out = {0};
    assert_int_equal(a->decode(fields, decoded, &err), 0);
    dice_source *ds = dice_source_new_seeded(seed, "s1", 1);
    rules_ctx ctx = {
        .state = before, .options = NULL, .actor = "referee", .unit = NULL, .dice = ds};
    assert_int_equal(a->resolve(&ctx, decoded, &out, &err), 0);
    char *after_text = jcs_dump_new(before, NULL);
    assert_string_equal(after_text, before_text);
    assert_int_equal(json_integer_value(json_object_get(out.new_state, "rolls")), 4);
    assert_ptr_equal(json_object_get(out.new_state, "units"), json_object_get(before, "units"));
    free(before_text);
    free(after_text);
    rules_outcome_clear(&out);
    dice_source_free(ds);
    json_decref(fields);
    json_decref(before);
    free(decoded);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seeded_roll_uses_consecutive_nonces),
        cmocka_unit_test(keep_highest_keeps_the_highest),
        cmocka_unit_test(keep_lowest_keeps_the_lowest),
        cmocka_unit_test(manual_shortage_lists_every_roll),
        cmocka_unit_test(manual_excess_and_out_of_range_are_unsatisfied),
        cmocka_unit_test(bad_notation_names_its_position),
        cmocka_unit_test(unknown_fields_are_rejected),
        cmocka_unit_test(records_jcs_matches_records_json),
        cmocka_unit_test(resolve_leaves_the_old_state_alone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
