/* rules/registry.c: every ruleset row is usable as the core and the fuzzers use it. Its
 * sample_setup (when it has one) initialises with init_state and the default options {}: the
 * fuzzers resolve against that state and CHECK that it initialises, so a sample that a module
 * change made invalid fails here, with the module's error, rather than as a fuzzer abort. It is
 * also a setup a real session accepts (create_request_decode: ids, sides, no reals). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rules/ruleset.h"
#include "server/core/requests.h"

static json_t *sample_of(const ruleset *rs) {
    json_error_t je;
    json_t *setup = json_loads(rs->sample_setup, JSON_REJECT_DUPLICATES, &je);
    if (!setup)
        fail_msg("%s: sample_setup is not JSON: %s (column %d)", rs->id, je.text, je.column);
    assert_true(json_is_object(setup));
    return setup;
}

static void every_row_is_complete(void **state) {
    (void)state;
    assert_true(ruleset_count() >= 1);
    assert_null(ruleset_at(ruleset_count()));
    for (size_t i = 0; i < ruleset_count(); i++) {
        const ruleset *rs = ruleset_at(i);
        assert_non_null(rs);
        assert_ptr_equal(ruleset_find(rs->id), rs);
        assert_non_null(rs->init_state);
        assert_true(rs->nactions >= 1);
        for (size_t j = 0; j < rs->nactions; j++)
            assert_ptr_equal(ruleset_action(rs, rs->actions[j].type), &rs->actions[j]);
    }
}

static void every_sample_setup_initialises(void **state) {
    (void)state;
    size_t with_sample = 0;
    for (size_t i = 0; i < ruleset_count(); i++) {
        const ruleset *rs = ruleset_at(i);
        if (!rs->sample_setup) continue;
        with_sample++;
        json_t *setup = sample_of(rs);
        json_t *options = json_object();
        api_error err = {0};
        json_t *st = rs->init_state(options, setup, &err);
        if (!st)
            fail_msg("%s: init_state refuses sample_setup: %d %s: %s", rs->id, err.status, err.code,
                     err.message);
        assert_int_equal(err.status, 0);
        /* The state convention (rules/ruleset.h): units with the setup's ids and sides, in
         * order. */
        json_t *units = json_object_get(st, "units"), *given = json_object_get(setup, "units");
        assert_true(json_is_array(units));
        assert_true(json_array_size(units) >= 2);
        assert_int_equal(json_array_size(units), json_array_size(given));
        size_t k;
        json_t *u;
        json_array_foreach(units, k, u) {
            json_t *g = json_array_get(given, k);
            assert_true(json_equal(json_object_get(u, "id"), json_object_get(g, "id")));
            assert_true(json_equal(json_object_get(u, "side"), json_object_get(g, "side")));
            assert_ptr_equal(rules_state_unit(st, json_string_value(json_object_get(u, "id"))), u);
        }
        json_decref(st);
        json_decref(options);
        json_decref(setup);
        api_error_clear(&err);
    }
    /* magic-realm's bare units take no part in combat: without its sample the fuzzer would
     * never reach a round. */
    assert_true(with_sample >= 1);
    assert_non_null(ruleset_find("magic-realm")->sample_setup);
}

static void every_sample_setup_creates_a_session(void **state) {
    (void)state;
    for (size_t i = 0; i < ruleset_count(); i++) {
        const ruleset *rs = ruleset_at(i);
        if (!rs->sample_setup) continue;
        json_t *setup = sample_of(rs);
        json_t *sides = json_array();
        size_t k;
        json_t *u;
        json_array_foreach(json_object_get(setup, "units"), k, u) {
            json_t *side = json_object_get(u, "side");
            bool seen = false;
            size_t j;
            json_t *s;
            json_array_foreach(sides, j, s) seen |= json_equal(s, side);
            if (!seen) json_array_append(sides, side);
        }
        json_t *body =
            json_pack("{s:s, s:o, s:o}", "ruleset", rs->id, "sides", sides, "setup", setup);
        create_request cr;
        api_error err = {0};
        if (create_request_decode(body, &cr, &err) != 0)
            fail_msg("%s: a session refuses sample_setup: %d %s: %s", rs->id, err.status, err.code,
                     err.message);
        assert_ptr_equal(cr.rs, rs);
        create_request_clear(&cr);
        api_error_clear(&err);
        json_decref(body);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_row_is_complete),
        cmocka_unit_test(every_sample_setup_initialises),
        cmocka_unit_test(every_sample_setup_creates_a_session),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
