/* fuzz_rules_resolve: the input is a JSON action body (up to the first NUL byte; the bytes after
 * it are manual dice values when the body has no "dice"). When it decodes for a ruleset action,
 * it is resolved against each of two states, both from the ruleset's init_state with options {}:
 *   - the ruleset's sample_setup (units with every ruleset field, so that actions naming them
 *     reach the module's resolution; it must initialise), when the ruleset has one;
 *   - two bare units, u1 (side red) and u2 (side blue): what a module does with units that
 *     carry none of its fields.
 * On each, the actor is the acting unit's side ("unit" in the body), else the referee, and:
 *   - with a seeded dice source (seed from the input's hash), twice: the results must be equal
 *     (a rules module is a pure function of state, action and dice);
 *   - with a manual source from the input's bytes (or the body's "dice");
 *   - odds_enumerate_new with a cap of 2000 combinations;
 *   - the state is unchanged afterwards (states are immutable, rules/ruleset.h);
 *   - a refusal comes before any die is drawn (rules/ruleset.h), under either source;
 *   - an action that leaves a pending claim (rules/common/claims.h) drew no die, and the
 *     referee's accept and dispute of it resolve (the claim gone) or are refused before a die.
 * encode() of the decoded action must decode again to an equal encoding. Nothing may leak. */
#include "protocol/json_in.h"
#include "rules/dice_source.h"
#include "rules/common/claims.h"
#include "rules/common/resolve.h"
#include "rules/ruleset.h"
#include "server/api/odds.h"
#include "server/core/requests.h"
#include "server/dice/seeded_source.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ODDS_CAP 2000

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_rules_resolve: invariant failed: %s\n", #cond);     \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static void seed_from(const uint8_t *data, size_t size, uint8_t seed[32]) {
    uint64_t h = 1469598103934665603ULL; /* FNV-1a, stretched */
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 1099511628211ULL;
    for (int i = 0; i < 32; i++) {
        h = (h ^ (uint64_t)i) * 1099511628211ULL;
        seed[i] = (uint8_t)(h >> 56);
    }
}

static void dump_fail(const char *what, const json_t *a, const json_t *b) {
    char *sa = a ? json_dumps(a, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    char *sb = b ? json_dumps(b, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    fprintf(stderr, "fuzz_rules_resolve: %s\n  first:  %s\n  second: %s\n", what, sa ? sa : "-",
            sb ? sb : "-");
    abort();
}

static int resolve_with(const rules_action *a, const void *decoded, rules_ctx *ctx,
                        dice_source *ds, rules_outcome *out) {
    api_error err = {0};
    ctx->dice = ds;
    memset(out, 0, sizeof *out);
    int rc = a->resolve(ctx, decoded, out, &err);
    if (rc == 0) {
        CHECK(err.status == 0);
        CHECK(out->result != NULL && out->new_state != NULL);
        CHECK(memchr(out->summary, '\0', sizeof out->summary) != NULL);
        CHECK(out->extra_events == NULL || json_is_array(out->extra_events));
        json_t *rec = dice_source_records_new(ds);
        CHECK(json_is_array(rec));
        json_decref(rec);
    } else {
        CHECK(err.status >= 400 && err.status <= 499);
        /* rules/ruleset.h: legality is decided before the first die; once a die is drawn the
         * action commits (a refusal after it would show the die without spending it). */
        if (dice_source_die_count(ds) != 0) {
            fprintf(stderr, "fuzz_rules_resolve: refused after %zu die(s): %d %s: %s\n",
                    dice_source_die_count(ds), err.status, err.code, err.message);
            abort();
        }
        rules_outcome_clear(out);
    }
    api_error_clear(&err);
    return rc;
}

/* The state the action is resolved against, from setup text (NULL: two bare units). */
static json_t *state_new(const ruleset *rs, const char *setup_text, const json_t *options) {
    json_t *setup;
    if (setup_text) {
        json_error_t je;
        setup = json_loads(setup_text, JSON_REJECT_DUPLICATES, &je);
        if (!setup) {
            fprintf(stderr, "fuzz_rules_resolve: %s: sample_setup is not JSON: %s\n", rs->id,
                    je.text);
            abort();
        }
    } else {
        setup = json_pack("{s:[{s:s, s:s}, {s:s, s:s}]}", "units", "id", "u1", "side", "red", "id",
                          "u2", "side", "blue");
    }
    api_error err = {0};
    json_t *state = rs->init_state(options, setup, &err);
    /* A sample that does not initialise is a bug in the module or its sample (test_registry
     * says which); bare units may be refused (no module does so today). */
    if (setup_text && !state) {
        fprintf(stderr, "fuzz_rules_resolve: %s: init_state refuses sample_setup: %d %s: %s\n",
                rs->id, err.status, err.code, err.message);
        abort();
    }
    api_error_clear(&err);
    json_decref(setup);
    return state;
}

/* The referee accepts, then disputes, the claim pending in `state`: either resolves (the claim
 * then gone), or is refused before any die. */
static void accept_claim(const ruleset *rs, const json_t *state, const json_t *options,
                         const uint8_t seed[32]) {
    json_int_t number = json_integer_value(json_object_get(json_object_get(state, "claim"), "number"));
    static const char *const answers[] = {"accept", "dispute"};
    for (int i = 0; i < 2; i++) {
        const rules_action *a = ruleset_action(rs, answers[i]);
        CHECK(a != NULL);
        json_t *fields = json_pack("{s:I}", "claim", number);
        claims_answer answer;
        memset(&answer, 0, sizeof answer);
        api_error err = {0};
        CHECK(fields && a->decode(fields, &answer, &err) == 0);
        dice_source *ds = dice_source_new_seeded(seed, "fuzz-session", 1);
        CHECK(ds != NULL);
        rules_ctx ctx = {.state = state, .options = options, .actor = "referee", .dice = ds};
        rules_outcome o;
        memset(&o, 0, sizeof o);
        if (rules_resolve(rs, a, &ctx, &answer, &o, &err) == 0) {
            CHECK(o.result != NULL && o.new_state != NULL);
            CHECK(json_object_get(o.new_state, "claim") == NULL);
        } else {
            CHECK(err.status >= 400 && err.status <= 499);
            CHECK(dice_source_die_count(ds) == 0);
        }
        api_error_clear(&err);
        rules_outcome_clear(&o);
        dice_source_free(ds);
        json_decref(fields);
    }
}

static void resolve_on(const ruleset *rs, const json_t *state, const json_t *options,
                       const rules_action *a,
                       const void *decoded, const action_envelope *env, const uint8_t *data,
                       size_t size, const uint8_t *tail, size_t ntail) {
    api_error err = {0};
    /* resolve() may change nothing reachable from the state: compared after every use. */
    json_t *pristine = json_deep_copy(state);
    CHECK(pristine != NULL);
    char actor[8 + SIDE_NAME_MAX] = "referee";
    rules_ctx ctx = {.state = state, .options = options, .actor = actor, .unit = NULL, .dice = NULL};
    if (env->has_unit) {
        ctx.unit = rules_state_unit(state, env->unit);
        /* as the core does: a side acts with its own units (an unknown unit is the core's 422;
         * here the referee acts without one) */
        if (ctx.unit)
            snprintf(actor, sizeof actor, "side:%s",
                     json_string_value(json_object_get(ctx.unit, "side")) ?: "");
    }

    uint8_t seed[32];
    seed_from(data, size, seed);
    rules_outcome o1, o2;
    dice_source *d1 = dice_source_new_seeded(seed, "fuzz-session", 1);
    dice_source *d2 = dice_source_new_seeded(seed, "fuzz-session", 1);
    CHECK(d1 && d2);
    int r1 = resolve_with(a, decoded, &ctx, d1, &o1);
    int r2 = resolve_with(a, decoded, &ctx, d2, &o2);
    if (r1 != r2) dump_fail("seeded resolve is not deterministic (rc)", NULL, NULL);
    if (r1 == 0) {
        if (!json_equal(o1.result, o2.result))
            dump_fail("seeded resolve is not deterministic", o1.result, o2.result);
        if (strcmp(o1.summary, o2.summary) != 0)
            dump_fail("seeded summary is not deterministic", NULL, NULL);
        if (!json_equal(o1.new_state, o2.new_state))
            dump_fail("seeded new_state is not deterministic", o1.new_state, o2.new_state);
        CHECK(dice_source_next_nonce(d1) == dice_source_next_nonce(d2));
        if (json_object_get(o1.new_state, "claim")) {
            CHECK(dice_source_die_count(d1) == 0);
            accept_claim(rs, o1.new_state, options, seed);
        }
    }
    rules_outcome_clear(&o1);
    rules_outcome_clear(&o2);
    dice_source_free(d1);
    dice_source_free(d2);

    /* As the core resolves it: the sequence of play's check first. A refusal, whatever its
     * cause, comes before any die; the referee's override is still a well-formed outcome. */
    dice_source *dq = dice_source_new_seeded(seed, "fuzz-session", 1);
    CHECK(dq != NULL);
    ctx.dice = dq;
    memset(&o1, 0, sizeof o1);
    if (rules_resolve(rs, a, &ctx, decoded, &o1, &err) == 0) {
        CHECK(o1.result != NULL && o1.new_state != NULL);
        CHECK(memchr(o1.summary, '\0', sizeof o1.summary) != NULL);
        /* A pending claim (rules/common/claims.h) drew no die; accepted, it resolves on the
         * state it was checked against, so it may not be refused after a die either. */
        if (json_object_get(o1.new_state, "claim")) {
            CHECK(dice_source_die_count(dq) == 0);
            accept_claim(rs, o1.new_state, options, seed);
        }
    } else {
        CHECK(err.status >= 400 && err.status <= 499);
        CHECK(dice_source_die_count(dq) == 0);
    }
    api_error_clear(&err);
    rules_outcome_clear(&o1);
    dice_source_free(dq);

    /* Manual: the body's dice, else the bytes after the NUL (signed, to reach bad values). */
    int64_t *vals = NULL;
    size_t nvals = 0;
    if (env->has_dice) {
        vals = env->dice;
        nvals = env->ndice;
    } else if (ntail > 0) {
        nvals = ntail > 1000 ? 1000 : ntail;
        vals = calloc(nvals, sizeof *vals);
        for (size_t i = 0; vals && i < nvals; i++)
            vals[i] = (int8_t)tail[i];
    }
    dice_source *dm = dice_source_new_manual(vals, vals ? nvals : 0);
    CHECK(dm != NULL);
    if (resolve_with(a, decoded, &ctx, dm, &o1) == 0) {
        json_t *need = dice_source_needed_new(dm);
        CHECK(json_is_array(need));
        json_decref(need);
        (void)dice_source_unsatisfied(dm);
        (void)dice_source_supplied(dm);
        for (size_t i = 0; i < dice_source_die_count(dm); i++) {
            uint64_t nonce;
            int sides, value;
            dice_source_die(dm, i, &nonce, &sides, &value);
            CHECK(sides >= 1 && value >= 1 && value <= sides);
        }
    }
    rules_outcome_clear(&o1);
    dice_source_free(dm);
    if (vals != env->dice) free(vals);

    /* Exact odds, capped. */
    ctx.dice = NULL;
    json_t *odds = odds_enumerate_new(a, decoded, &ctx, ODDS_CAP, &err);
    if (odds) {
        CHECK(json_is_array(json_object_get(odds, "outcomes")));
        json_int_t n = json_integer_value(json_object_get(odds, "enumerated"));
        CHECK(n >= 1 && n <= ODDS_CAP);
    } else {
        CHECK(err.status >= 400 && err.status <= 499);
    }
    json_decref(odds);
    api_error_clear(&err);

    if (!json_equal(state, pristine)) dump_fail("resolve changed the state", pristine, state);
    json_decref(pristine);
}

static void run_action(const ruleset *rs, const rules_action *a, const action_envelope *env,
                       const uint8_t *data, size_t size, const uint8_t *tail, size_t ntail) {
    void *decoded = calloc(1, a->decoded_size ? a->decoded_size : 1);
    api_error err = {0};
    if (!decoded) return;
    if (a->decode(env->fields, decoded, &err) != 0) {
        api_error_clear(&err);
        free(decoded);
        return;
    }

    /* Round trip: encode -> decode -> encode gives the same JSON. */
    json_t *enc = a->encode(decoded);
    CHECK(enc != NULL);
    void *again = calloc(1, a->decoded_size ? a->decoded_size : 1);
    CHECK(again != NULL);
    if (a->decode(enc, again, &err) != 0) dump_fail("encoding does not decode", enc, NULL);
    json_t *enc2 = a->encode(again);
    if (!json_equal(enc, enc2)) dump_fail("encode(decode(encode(x))) != encode(x)", enc, enc2);
    json_decref(enc2);
    json_decref(enc);
    free(again);

    /* Both states, every input: the sample reaches the module's core, the bare units its
     * refusals; an action naming a unit of one is an unknown unit on the other (cheap). */
    json_t *options = json_object();
    const char *setups[2] = {rs->sample_setup, NULL};
    for (int k = rs->sample_setup ? 0 : 1; k < 2; k++) {
        json_t *state = state_new(rs, setups[k], options);
        if (state) resolve_on(rs, state, options, a, decoded, env, data, size, tail, ntail);
        json_decref(state);
    }
    json_decref(options);
    free(decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const uint8_t *nul = memchr(data, '\0', size);
    size_t jlen = nul ? (size_t)(nul - data) : size;
    const uint8_t *tail = nul ? nul + 1 : NULL;
    size_t ntail = nul ? size - jlen - 1 : 0;

    api_error err = {0};
    json_t *body = json_in_parse_object_new((const char *)data, jlen, &err);
    api_error_clear(&err);
    if (!body) return 0;
    action_envelope env;
    memset(&env, 0, sizeof env);
    if (action_envelope_decode(body, &env, &err) == 0) {
        for (size_t i = 0; i < ruleset_count(); i++) {
            const ruleset *rs = ruleset_at(i);
            const rules_action *a = ruleset_action(rs, env.type);
            if (a) run_action(rs, a, &env, data, size, tail, ntail);
        }
    }
    action_envelope_clear(&env);
    api_error_clear(&err);
    json_decref(body);
    return 0;
}
