/* Sealed orders in the rules layer (rules/common/orders.h), on a magic-realm session that seals
 * its plays: the gate, the check of a side's orders, the state after a seal, and the reveal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rules/common/orders.h"
#include "rules/common/resolve.h"
#include "rules/dice_source.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char salt[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

static const char knight_play[] =
    "[{\"type\": \"play\", \"unit\": \"white-knight\", \"maneuver\": {\"name\": \"Move H6\", "
    "\"box\": \"dodge\"}, \"attacks\": [{\"name\": \"Great Sword, F H6\", \"box\": \"swing\", "
    "\"target\": \"bat-1\"}]}]";
static const char bats_play[] =
    "[{\"type\": \"play\", \"unit\": \"bat-1\", \"box\": \"thrust\", \"target\": "
    "\"white-knight\"}, "
    "{\"type\": \"play\", \"unit\": \"bat-2\", \"box\": \"smash\", \"target\": \"white-knight\"}]";

static const ruleset *mr(void) {
    const ruleset *rs = ruleset_find("magic-realm");
    assert_non_null(rs);
    return rs;
}

/* The knight and the two bats of the article's Situation, sealed unless `sealed` is false. */
static json_t *state_new(bool sealed) {
    json_t *setup = json_loads(
        "{\"units\": [{\"id\": \"white-knight\", \"side\": \"knight\", \"kind\": \"character\", "
        "\"vulnerability\": \"H\", \"armor\": [{\"toughness\": \"H\"}], \"attacks\": [{\"name\": "
        "\"Great Sword, F H6\", \"kind\": \"striking\", \"harm\": \"T\", \"time\": 6, \"length\": "
        "8}], \"maneuvers\": [{\"name\": \"Move H6\", \"move_time\": 6}]}, {\"id\": \"bat-1\", "
        "\"side\": \"monsters\", \"kind\": \"denizen\", \"vulnerability\": \"H\", \"move_time\": "
        "3, \"attack\": {\"harm\": \"M\", \"time\": 2}}, {\"id\": \"bat-2\", \"side\": "
        "\"monsters\", \"kind\": \"denizen\", \"vulnerability\": \"H\", \"move_time\": 3, "
        "\"attack\": {\"harm\": \"M\", \"time\": 2}}]}",
        0, NULL);
    assert_non_null(setup);
    if (sealed) json_object_set_new(setup, "turn", json_pack("{s:b}", "sealed", 1));
    json_t *options = json_object();
    api_error err = {0};
    json_t *state = mr()->init_state(options, setup, &err);
    assert_non_null(state);
    json_decref(options);
    json_decref(setup);
    return state;
}

static int check(const json_t *state, const char *role, const char *orders_text, json_t **rec,
                 api_error *err) {
    json_t *orders = json_loads(orders_text, 0, NULL);
    json_t *options = json_object();
    assert_non_null(orders);
    int rc = orders_check(mr(), state, options, role, "plays", orders, rec, err);
    json_decref(orders);
    json_decref(options);
    return rc;
}

static void a_sealed_phase_takes_no_action_of_its_own(void **unused) {
    (void)unused;
    json_t *state = state_new(true);
    api_error err = {0};
    assert_string_equal(json_string_value(json_object_get(json_object_get(state, "turn"), "phase")),
                        "plays");
    assert_int_equal(orders_gate(mr(), state, "play", &err), -1);
    assert_int_equal(err.status, 409);
    assert_string_equal(err.code, "orders_sealed");
    api_error_clear(&err);
    assert_int_equal(orders_gate(mr(), state, "end_phase", &err), -1);
    api_error_clear(&err);
    /* Not a step of the phase: the sequence answers it, not the gate. */
    assert_int_equal(orders_gate(mr(), state, "attack", &err), 0);
    json_decref(state);
    /* Without setup.turn.sealed the plays are open, as before. */
    state = state_new(false);
    assert_int_equal(orders_gate(mr(), state, "play", &err), 0);
    json_t *rec = NULL;
    assert_int_equal(check(state, "side:knight", knight_play, &rec, &err), -1);
    assert_string_equal(err.code, "no_sealed_step");
    api_error_clear(&err);
    json_decref(state);
}

static void orders_are_checked_against_the_kit_and_the_side(void **unused) {
    (void)unused;
    json_t *state = state_new(true);
    json_t *rec = NULL;
    api_error err = {0};
    assert_int_equal(check(state, "side:knight",
                           "[{\"type\": \"play\", \"unit\": \"white-knight\", \"maneuver\": "
                           "{\"name\": \"Move H6\", \"box\": \"dodge\"}, \"attacks\": [{\"name\": "
                           "\"Morning Star\", \"target\": \"bat-1\"}]}]",
                           &rec, &err),
                     -1);
    assert_int_equal(err.status, 422);
    assert_string_equal(err.code, "invalid_orders");
    assert_int_equal(json_integer_value(json_object_get(err.details, "index")), 0);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(err.details, "error"), "code")),
        "not_in_kit");
    api_error_clear(&err);
    /* Another side's unit, the referee, another phase's action, not an array. */
    assert_int_equal(check(state, "side:knight", bats_play, &rec, &err), -1);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(err.details, "error"), "code")),
        "forbidden");
    api_error_clear(&err);
    assert_int_equal(check(state, "referee", knight_play, &rec, &err), -1);
    assert_int_equal(err.status, 403);
    api_error_clear(&err);
    assert_int_equal(check(state, "side:knight", "[{\"type\": \"round\"}]", &rec, &err), -1);
    assert_string_equal(
        json_string_value(json_object_get(json_object_get(err.details, "error"), "code")),
        "wrong_phase");
    api_error_clear(&err);
    assert_int_equal(check(state, "side:knight", "{\"type\": \"play\"}", &rec, &err), -1);
    assert_int_equal(err.status, 400);
    api_error_clear(&err);
    assert_null(rec);
    /* Accepted: recorded one for one, with type and unit, and the state untouched. */
    char *before = json_dumps(state, JSON_SORT_KEYS);
    assert_int_equal(check(state, "side:knight", knight_play, &rec, &err), 0);
    assert_int_equal(json_array_size(rec), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rec, 0), "unit")),
                        "white-knight");
    assert_string_equal(json_string_value(json_object_get(json_array_get(rec, 0), "type")), "play");
    char *after = json_dumps(state, JSON_SORT_KEYS);
    assert_string_equal(before, after);
    free(before);
    free(after);
    json_decref(rec);
    json_decref(state);
}

static void a_seal_marks_the_side_and_the_last_seal_completes_the_step(void **unused) {
    (void)unused;
    json_t *state = state_new(true);
    assert_false(orders_all_sealed(mr(), state));
    json_t *one = orders_sealed_state_new(mr(), state, "knight");
    assert_non_null(one);
    json_t *done = json_object_get(json_object_get(one, "turn"), "done");
    assert_int_equal(json_array_size(done), 1);
    assert_string_equal(json_string_value(json_array_get(done, 0)), "knight");
    assert_false(orders_all_sealed(mr(), one));
    char summary[300];
    orders_sealed_summary(mr(), one, "knight", summary, sizeof summary);
    assert_string_equal(summary, "knight has sealed its orders for the Plays phase of turn 1");
    /* Sealing again changes nothing more. */
    json_t *again = orders_sealed_state_new(mr(), one, "knight");
    assert_false(orders_all_sealed(mr(), again));
    json_t *both = orders_sealed_state_new(mr(), again, "monsters");
    assert_true(orders_all_sealed(mr(), both));
    json_decref(both);
    json_decref(again);
    json_decref(one);
    json_decref(state);
}

/* The reveal of both sides' orders as the writer builds it, resolved with `dice`. */
static int reveal(const json_t *state, const char *fields_text, const int64_t *dice, size_t n,
                  rules_outcome *out, api_error *err) {
    const rules_action *a = rules_action_find(mr(), ORDERS_REVEALED);
    assert_non_null(a);
    assert_null(ruleset_action(mr(), ORDERS_REVEALED)); /* never a client's action */
    json_t *fields = json_loads(fields_text, 0, NULL);
    assert_non_null(fields);
    void *decoded = calloc(1, a->decoded_size);
    dice_source *ds = dice_source_new_manual(dice, n);
    json_t *options = json_object();
    rules_ctx ctx = {.state = state, .options = options, .actor = "side:monsters", .dice = ds};
    int rc = a->decode(fields, decoded, err);
    if (rc == 0) rc = rules_resolve(mr(), a, &ctx, decoded, out, err);
    dice_source_free(ds);
    json_decref(options);
    free(decoded);
    json_decref(fields);
    return rc;
}

static void the_reveal_plays_every_side_then_the_round(void **unused) {
    (void)unused;
    json_t *state = state_new(true);
    char fields[2048];
    snprintf(fields, sizeof fields,
             "{\"step\": \"plays\", \"turn\": 1, \"orders\": [{\"side\": \"knight\", \"salt\": "
             "\"%s\", \"actions\": %s}, {\"side\": \"monsters\", \"salt\": \"%s\", \"actions\": "
             "%s}]}",
             salt, knight_play, salt, bats_play);
    rules_outcome out = {0};
    api_error err = {0};
    /* Two fumble rolls (the bats undercut the knight) of 2d6h each. */
    const int64_t dice[] = {3, 4, 6, 6};
    assert_int_equal(reveal(state, fields, dice, 4, &out, &err), 0);
    const json_t *sides = json_object_get(out.result, "orders");
    assert_int_equal(json_array_size(sides), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(sides, 0), "side")),
                        "knight");
    assert_non_null(json_object_get(out.result, "then"));
    assert_non_null(strstr(out.summary, "Sealed orders revealed for the Plays phase of turn 1"));
    assert_non_null(strstr(out.summary, "white-knight plays"));
    assert_non_null(strstr(out.summary, "round 1 of combat ends"));
    json_t *turn = json_object_get(out.new_state, "turn");
    assert_int_equal(json_integer_value(json_object_get(turn, "number")), 2);
    assert_string_equal(json_string_value(json_object_get(turn, "phase")), "plays");
    assert_true(json_is_true(json_object_get(turn, "sealed")));
    assert_null(json_object_get(out.new_state, "plays"));
    rules_outcome_clear(&out);
    /* Another turn's orders, or a side twice: refused before any die. */
    snprintf(fields, sizeof fields,
             "{\"step\": \"plays\", \"turn\": 2, \"orders\": [{\"side\": \"knight\", \"salt\": "
             "\"%s\", \"actions\": []}]}",
             salt);
    assert_int_equal(reveal(state, fields, NULL, 0, &out, &err), -1);
    assert_string_equal(err.code, "wrong_step");
    api_error_clear(&err);
    snprintf(fields, sizeof fields,
             "{\"step\": \"plays\", \"turn\": 1, \"orders\": [{\"side\": \"knight\", \"salt\": "
             "\"%s\", \"actions\": []}, {\"side\": \"knight\", \"salt\": \"%s\", \"actions\": "
             "[]}]}",
             salt, salt);
    assert_int_equal(reveal(state, fields, NULL, 0, &out, &err), -1);
    assert_string_equal(err.code, "invalid_orders");
    api_error_clear(&err);
    json_decref(state);
}

static void a_closed_step_gives_the_silent_side_the_default(void **unused) {
    (void)unused;
    json_t *state = state_new(true);
    char fields[1024];
    snprintf(fields, sizeof fields,
             "{\"step\": \"plays\", \"turn\": 1, \"closed\": true, \"orders\": [{\"side\": "
             "\"monsters\", \"salt\": \"%s\", \"actions\": %s}]}",
             salt, bats_play);
    rules_outcome out = {0};
    api_error err = {0};
    const int64_t dice[] = {1, 1, 1, 1};
    assert_int_equal(reveal(state, fields, dice, 4, &out, &err), 0);
    const json_t *knight = json_array_get(json_object_get(out.result, "orders"), 0);
    assert_true(json_is_true(json_object_get(knight, "default")));
    assert_true(json_is_true(json_object_get(out.result, "closed")));
    assert_non_null(strstr(out.summary, "knight: no orders (the default: nothing played)"));
    rules_outcome_clear(&out);
    json_decref(state);
}

static void only_a_ruleset_with_a_simultaneous_phase_seals(void **unused) {
    (void)unused;
    const ruleset *vm = ruleset_find("vis-magica");
    assert_non_null(vm);
    json_t *setup = json_loads(vm->sample_setup, 0, NULL);
    assert_non_null(setup);
    json_object_set_new(setup, "turn", json_pack("{s:b}", "sealed", 1));
    json_t *options = json_object();
    api_error err = {0};
    assert_null(vm->init_state(options, setup, &err));
    assert_int_equal(err.status, 422);
    assert_non_null(strstr(err.message, "setup.turn.sealed"));
    api_error_clear(&err);
    json_object_set_new(setup, "turn", json_pack("{s:s}", "sealed", "yes"));
    assert_null(vm->init_state(options, setup, &err));
    api_error_clear(&err);
    json_decref(options);
    json_decref(setup);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_sealed_phase_takes_no_action_of_its_own),
        cmocka_unit_test(orders_are_checked_against_the_kit_and_the_side),
        cmocka_unit_test(a_seal_marks_the_side_and_the_last_seal_completes_the_step),
        cmocka_unit_test(the_reveal_plays_every_side_then_the_round),
        cmocka_unit_test(a_closed_step_gives_the_silent_side_the_default),
        cmocka_unit_test(only_a_ruleset_with_a_simultaneous_phase_seals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
