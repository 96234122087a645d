/* fuzz_orders: sealed orders (rules/common/orders.h). The input is a JSON value (up to the first
 * NUL byte) taken as a side's orders for the Plays of a magic-realm session that seals them (the
 * ruleset's sample_setup with setup.turn.sealed), sealed by each of the sides in turn, and also as
 * the fields of a reveal. Invariants:
 *   - orders_check either accepts, giving one recorded order per order (each with its type), or
 *     refuses with a 4xx; the state is unchanged either way;
 *   - orders it accepted are revealed (the referee's close, a seeded dice source) without a
 *     refusal, and the state after the reveal is past the sealed step (a reveal cannot fail);
 *   - the input as a reveal's fields: decode refuses it, or the reveal resolves or is refused
 *     before any die;
 *   - re-checking the recorded orders gives the same record (recording is stable: the
 *     commitment is over it). Nothing may leak. */
#include "rules/common/orders.h"
#include "rules/common/resolve.h"
#include "rules/dice_source.h"
#include "rules/ruleset.h"
#include "server/dice/seeded_source.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                               \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "fuzz_orders: invariant failed: %s\n", #cond);        \
            abort();                                                              \
        }                                                                         \
    } while (0)

static const char salt[] = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

static json_t *sealed_state_new(const ruleset *rs) {
    json_t *setup = json_loads(rs->sample_setup, 0, NULL);
    CHECK(setup);
    json_object_set_new(setup, "turn", json_pack("{s:b}", "sealed", 1));
    json_t *options = json_object();
    api_error err = {0};
    json_t *state = rs->init_state(options, setup, &err);
    CHECK(state);
    json_decref(options);
    json_decref(setup);
    return state;
}

static void reveal(const ruleset *rs, const json_t *state, const json_t *fields, bool must) {
    const rules_action *a = rules_action_find(rs, ORDERS_REVEALED);
    CHECK(a);
    void *decoded = calloc(1, a->decoded_size);
    api_error err = {0};
    json_t *options = json_object();
    if (a->decode(fields, decoded, &err) != 0) {
        CHECK(!must);
        CHECK(err.status >= 400 && err.status <= 499);
    } else {
        uint8_t seed[32] = {7};
        dice_source *ds = dice_source_new_seeded(seed, "fuzz", 1);
        rules_ctx ctx = {.state = state, .options = options, .actor = "referee", .dice = ds};
        rules_outcome out = {0};
        int rc = rules_resolve(rs, a, &ctx, decoded, &out, &err);
        if (rc != 0) {
            CHECK(!must);
            CHECK(err.status >= 400 && err.status <= 499);
            CHECK(dice_source_die_count(ds) == 0);
        } else {
            seq_turn t;
            CHECK(out.new_state && out.result);
            CHECK(memchr(out.summary, '\0', sizeof out.summary));
            /* Past the sealed step: another phase, or the next round's. */
            const char *now = orders_step_now(rs, out.new_state, &t);
            CHECK(!now || t.number > 1);
        }
        rules_outcome_clear(&out);
        dice_source_free(ds);
    }
    api_error_clear(&err);
    json_decref(options);
    free(decoded);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    json_t *orders = json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
    free(text);
    if (!orders) return 0;
    const ruleset *rs = ruleset_find("magic-realm");
    CHECK(rs);
    json_t *state = sealed_state_new(rs);
    char *before = json_dumps(state, JSON_SORT_KEYS | JSON_COMPACT);
    static const char *const sides[] = {"side:knight", "side:monsters", "side:amazon", "referee"};
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        json_t *rec = NULL;
        api_error err = {0};
        json_t *options = json_object();
        int rc = orders_check(rs, state, options, sides[i], "plays", orders, &rec, &err);
        if (rc != 0) {
            CHECK(rec == NULL);
            CHECK(err.status >= 400 && err.status <= 499);
        } else {
            CHECK(json_is_array(rec) && json_array_size(rec) == json_array_size(orders));
            for (size_t k = 0; k < json_array_size(rec); k++)
                CHECK(json_is_string(json_object_get(json_array_get(rec, k), "type")));
            json_t *again = NULL;
            api_error e2 = {0};
            CHECK(orders_check(rs, state, options, sides[i], "plays", rec, &again, &e2) == 0);
            CHECK(json_equal(again, rec));
            json_decref(again);
            json_t *fields =
                json_pack("{s:s, s:i, s:[{s:s, s:s, s:O}], s:b}", "step", "plays", "turn", 1,
                          "orders", "side", sides[i] + 5, "salt", salt, "actions", rec, "closed", 1);
            reveal(rs, state, fields, true);
            json_decref(fields);
        }
        json_decref(rec);
        json_decref(options);
        api_error_clear(&err);
    }
    reveal(rs, state, orders, false);
    char *after = json_dumps(state, JSON_SORT_KEYS | JSON_COMPACT);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    json_decref(state);
    json_decref(orders);
    return 0;
}
