/* Driving a rules module as the core does, for the modules' unit tests: decode an action, check
 * that encode() reads back the same, resolve it over manual dice against a state, and check that
 * the state was not changed (rules/ruleset.h: states are immutable). Header-only: each test
 * program includes it once, after cmocka.h. */
#ifndef UMPIRE_TESTS_RULES_DRIVER_H
#define UMPIRE_TESTS_RULES_DRIVER_H

#include "rules/dice_source.h"
#include "rules/common/resolve.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>

typedef struct outcome {
    int rc;
    api_error err;
    rules_outcome out;
    bool unsatisfied;  /* the manual dice were too few or too many */
    size_t dice_drawn; /* dice the module rolled (a refusal draws none: rules/ruleset.h) */
} outcome;

/* JSON text of the test itself (a typo fails the test, naming the text). */
static json_t *parse(const char *text) {
    json_error_t je;
    json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!v) fail_msg("bad JSON in the test: %s: %s", je.text, text);
    return v;
}

static char *dump(const json_t *v) {
    return json_dumps(v, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
}

/* Decodes `action` (JSON text with "type") for ruleset r, resolves it against state as `actor`
 * with the acting unit `unit` (NULL: none), options (JSON text, NULL: {}) and manual dice. */
static outcome rules_act(const ruleset *r, const json_t *state, const char *options,
                         const char *actor, const char *unit, const char *action,
                         const int64_t *dice, size_t n) {
    outcome o = {0};
    json_t *fields = parse(action);
    const char *type = json_string_value(json_object_get(fields, "type"));
    const rules_action *a = ruleset_action(r, type);
    assert_non_null(a);
    json_object_del(fields, "type");
    json_t *opts = parse(options ? options : "{}");
    void *decoded = calloc(1, a->decoded_size);
    o.rc = a->decode(fields, decoded, &o.err);
    if (o.rc == 0) {
        json_t *enc = a->encode(decoded);
        void *again = calloc(1, a->decoded_size);
        api_error e2 = {0};
        assert_int_equal(a->decode(enc, again, &e2), 0);
        json_t *enc2 = a->encode(again);
        assert_true(json_equal(enc, enc2));
        json_decref(enc);
        json_decref(enc2);
        free(again);
        char *before = dump(state);
        dice_source *ds = dice_source_new_manual(dice, n);
        const json_t *u = unit ? rules_state_unit(state, unit) : NULL;
        rules_ctx ctx = {.state = state, .options = opts, .actor = actor, .unit = u, .dice = ds};
        o.rc = rules_resolve(r, a, &ctx, decoded, &o.out, &o.err);
        o.unsatisfied = dice_source_unsatisfied(ds);
        o.dice_drawn = dice_source_die_count(ds);
        dice_source_free(ds);
        char *after = dump(state);
        assert_string_equal(before, after); /* resolve never changes its input */
        free(before);
        free(after);
    }
    free(decoded);
    json_decref(fields);
    json_decref(opts);
    return o;
}

static void outcome_clear(outcome *o) {
    rules_outcome_clear(&o->out);
    api_error_clear(&o->err);
}

#endif
