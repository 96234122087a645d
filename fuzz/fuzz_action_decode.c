/* fuzz_action_decode: a request body as the API decodes it. JSON text ->
 * protocol/json_in.h json_in_parse_object_new -> server/core/requests.h action_envelope_decode ->
 * for every ruleset in the registry and every action: the action's decode() (on the envelope's
 * fields, or on the whole body when the envelope is refused). Also create_request_decode and
 * entropy_request_decode (a contribution: 1 to 64 printable ASCII bytes, nothing else) on the
 * same JSON. Invariants: every failure carries a 4xx status and a code; no leak; a decoded action
 * encodes to an object that decodes again; action_envelope_decode_take gives the envelope
 * action_envelope_decode gives; protocol/json_out.h writes the body exactly as json_dumps. */
#include "protocol/json_in.h"
#include "protocol/json_out.h"
#include "rules/ruleset.h"
#include "server/core/requests.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "fuzz_action_decode: invariant failed: %s\n", #cond);     \
            abort();                                                                  \
        }                                                                             \
    } while (0)

static void check_error(const api_error *e) {
    CHECK(e->status >= 400 && e->status <= 499);
    CHECK(memchr(e->code, '\0', sizeof e->code) != NULL && e->code[0] != '\0');
    CHECK(memchr(e->message, '\0', sizeof e->message) != NULL);
    size_t len = 0;
    char *body = api_error_body_new(e, &len);
    CHECK(body != NULL);
    free(body);
}

static void decode_all(const json_t *fields) {
    for (size_t i = 0; i < ruleset_count(); i++) {
        const ruleset *rs = ruleset_at(i);
        for (size_t j = 0; j < rs->nactions; j++) {
            const rules_action *a = &rs->actions[j];
            CHECK(ruleset_action(rs, a->type) != NULL);
            void *decoded = calloc(1, a->decoded_size ? a->decoded_size : 1);
            if (!decoded) return;
            api_error err = {0};
            if (a->decode(fields, decoded, &err) == 0) {
                CHECK(err.status == 0);
                json_t *enc = a->encode(decoded);
                CHECK(json_is_object(enc));
                void *again = calloc(1, a->decoded_size ? a->decoded_size : 1);
                api_error err2 = {0};
                if (a->decode(enc, again, &err2) != 0) {
                    char *s = json_dumps(enc, JSON_COMPACT);
                    fprintf(stderr, "fuzz_action_decode: %s/%s: encoding %s does not decode: %s\n",
                            rs->id, a->type, s ? s : "?", err2.message);
                    abort();
                }
                json_decref(enc);
                api_error_clear(&err2);
                free(again);
            } else {
                check_error(&err);
            }
            api_error_clear(&err);
            free(decoded);
        }
    }
}

/* action_envelope_decode_take on a copy of body: the same outcome as action_envelope_decode. */
static void check_take_matches(const json_t *body) {
    action_envelope copied, taken;
    api_error e1 = {0}, e2 = {0};
    json_t *copy = json_deep_copy(body);
    if (!copy) return;
    int rc1 = action_envelope_decode(body, &copied, &e1);
    int rc2 = action_envelope_decode_take(copy, &taken, &e2);
    CHECK(rc1 == rc2 && e1.status == e2.status && strcmp(e1.message, e2.message) == 0);
    if (rc1 == 0) {
        CHECK(strcmp(copied.type, taken.type) == 0 && strcmp(copied.unit, taken.unit) == 0);
        CHECK(copied.ndice == taken.ndice && copied.expect_version == taken.expect_version);
        CHECK(json_equal(copied.fields, taken.fields));
    }
    action_envelope_clear(&copied);
    action_envelope_clear(&taken);
    api_error_clear(&e1);
    api_error_clear(&e2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    api_error err = {0};
    json_t *body = json_in_parse_object_new((const char *)data, size, &err);
    if (!body) {
        check_error(&err);
        api_error_clear(&err);
        return 0;
    }
    CHECK(json_is_object(body));

    char *dumped = json_dumps(body, JSON_COMPACT);
    size_t out_len = 0;
    char *written = json_out_compact_new(body, &out_len);
    CHECK((dumped == NULL) == (written == NULL));
    CHECK(!dumped || (strlen(dumped) == out_len && memcmp(dumped, written, out_len + 1) == 0));
    free(dumped);
    free(written);

    check_take_matches(body);

    action_envelope env;
    memset(&env, 0, sizeof env);
    if (action_envelope_decode(body, &env, &err) == 0) {
        CHECK(memchr(env.type, '\0', sizeof env.type) != NULL);
        CHECK(!env.has_unit || memchr(env.unit, '\0', sizeof env.unit) != NULL);
        CHECK(env.ndice <= ACTION_DICE_MAX);
        CHECK(json_is_object(env.fields));
        decode_all(env.fields);
    } else {
        check_error(&err);
        decode_all(body);
    }
    action_envelope_clear(&env);
    api_error_clear(&err);

    create_request cr;
    memset(&cr, 0, sizeof cr);
    if (create_request_decode(body, &cr, &err) == 0) {
        CHECK(cr.rs != NULL);
        CHECK(memchr(cr.title, '\0', sizeof cr.title) != NULL);
        CHECK(json_is_array(cr.sides) && json_array_size(cr.sides) <= SIDES_MAX);
        CHECK(cr.state != NULL);
        CHECK(json_is_array(json_object_get(cr.state, "units")));
    } else {
        check_error(&err);
    }
    create_request_clear(&cr);
    api_error_clear(&err);

    entropy_request er;
    if (entropy_request_decode(body, &er, &err) == 0) {
        size_t len = strnlen(er.seed, sizeof er.seed);
        CHECK(len >= 1 && len <= ENTROPY_REQUEST_SEED_MAX);
        for (size_t i = 0; i < len; i++) CHECK(er.seed[i] >= 0x20 && er.seed[i] <= 0x7e);
        CHECK(json_object_size(body) <= 2);
    } else {
        check_error(&err);
    }
    api_error_clear(&err);
    json_decref(body);
    return 0;
}
