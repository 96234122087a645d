/* The rules-module interface and the static registry (rules/registry.c), in the manner of
 * Redis's command table: one row per ruleset, one row per action, each with its field schema.
 *
 * A rules module is pure. resolve() reads the state before the action, the decoded action and a
 * dice source, and produces the result, a one-line summary, any extra events and the state after
 * the action. It touches no storage, no clock and no global state, so the same code resolves an
 * action live, replays it from logged dice and enumerates its odds.
 *
 * States are immutable once made: resolve() never changes ctx->state, ctx->options or ctx->unit
 * (nor anything reachable from them), and new_state may share unchanged children with ctx->state
 * (copy-on-write: json_copy() each object or array on the path to a change). A deep copy of a
 * large state per action was the writer's largest single cost.
 *
 * State convention the core relies on: state.units is an array of objects, each with a string
 * "id" and "side" (copied from setup.units by init_state), so the core can check that a side's
 * token acts only with its own units. */
#ifndef UMPIRE_RULESET_H
#define UMPIRE_RULESET_H

#include "protocol/api_error.h"
#include "rules/dice_source.h"

#include <jansson.h>
#include <stddef.h>

typedef struct rules_field {
    const char *name;
    const char *type; /* "string", "integer", "boolean", "object", "array" */
    int required;
    const char *description;
} rules_field;

typedef struct rules_ctx {
    const json_t *state;   /* borrowed: the projection before the action */
    const json_t *options; /* borrowed: the session's options */
    const char *actor;     /* "referee" or "side:<name>" */
    const json_t *unit;    /* borrowed: the acting unit from state.units, or NULL */
    dice_source *dice;
    /* The side or referee ("side:<name>", "referee") that accepted the claim being resolved
     * (rules/common/claims.h), or NULL: the acting side's word then stands. */
    const char *accepted_by;
} rules_ctx;

typedef struct rules_outcome {
    json_t *result;       /* owned: the ruleset's result object */
    char summary[1024];   /* one line a bot can post as is; names every modifier */
    json_t *extra_events; /* owned or NULL: array of {"type", "data"} after the action's event */
    json_t *new_state;    /* owned: the projection after the action */
} rules_outcome;

void rules_outcome_clear(rules_outcome *out);

typedef struct rules_action {
    const char *type;
    const char *title;
    const rules_field *fields; /* terminated by a row with name NULL */
    size_t decoded_size;       /* size of the module's typed action struct */
    /* Decodes the module's fields (envelope fields type/expect_version/unit/dice are removed)
     * into `out` (zeroed, decoded_size bytes). Unknown fields are an error. 0, or -1 with a
     * 400/422 in err. */
    int (*decode)(const json_t *fields, void *out, api_error *err);
    /* The decoded action as JSON (new reference): what the event records and re-adjudication
     * decodes again. */
    json_t *(*encode)(const void *action);
    /* Pure resolution. 0, or -1 with a 422 (the message says which rule) in err.
     *
     * No answer depends on a die that was not committed. A module decides the action's legality
     * before it draws its first die: every refusal (a path too long, a target out of reach, a
     * field that does not fit the options, ...) is found with no die rolled. Once a die is
     * drawn, the action commits with whatever the dice decided: a move goes on or stops where a
     * failed test leaves it, a test fails, an attack misses. resolve() never returns an error
     * after dice_roll() was called (its only failure then is dice_roll() itself: more than
     * DICE_MAX_PER_ACTION dice, which a module rules out by bounding its dice before the first,
     * or memory running out). A refusal after a die would show that die without spending it
     * (the nonce is not used): a side could read the next server die at will and choose which
     * action gets it. tests/unit/test_dice_independence.c checks it for every ruleset, and
     * fuzz/fuzz_rules_resolve.c for every input it tries. */
    int (*resolve)(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err);
    /* Odds (optional): what outcomes are told apart by (new reference; NULL hook: the whole
     * result) and a label for it, e.g. {"total": 10} / "total 10". */
    json_t *(*odds_key)(const json_t *result, char *label, size_t label_cap);
    /* Odds (optional): orders answer.outcomes and adds the ruleset's named probabilities. */
    void (*odds_finish)(json_t *answer);
} rules_action;

typedef struct ruleset {
    const char *id;
    const char *title;
    int version; /* bumped whenever a change would re-adjudicate history differently */
    const char *description;
    const rules_action *actions;
    size_t nactions;
    const rules_field *options_fields; /* terminated by a NULL name */
    const char *const *sources;        /* NULL-terminated: the texts the module implements */
    /* Validates options and setup (setup.units already checked by the core for id and side) and
     * returns the initial state (new reference), or NULL with a 400/422 in err. */
    json_t *(*init_state)(const json_t *options, const json_t *setup, api_error *err);
    /* Optional: a small valid `setup` object as JSON text, whose units carry every ruleset
     * field (so that actions naming them reach the module's resolution), for fuzzers and docs;
     * NULL: two bare units. init_state must accept it with options {} (tests/unit/
     * test_registry.c checks every row). */
    const char *sample_setup;
    /* Optional: the sequence of play (rules/common/sequence.h). With one, init_state puts a turn
     * record in the state and rules_resolve (rules/common/resolve.h) checks every action
     * against it. */
    const struct seq_play *sequence;
} ruleset;

/* The unit with this id in state.units (the convention above), borrowed; NULL if none. */
const json_t *rules_state_unit(const json_t *state, const char *id);

const ruleset *ruleset_find(const char *id);
size_t ruleset_count(void);
const ruleset *ruleset_at(size_t i);
const rules_action *ruleset_action(const ruleset *rs, const char *type);
/* Descriptions for GET /v1/rulesets and GET /v1/rulesets/{id} (new references). */
json_t *ruleset_summary_new(const ruleset *rs);
json_t *ruleset_describe_new(const ruleset *rs);

#endif
