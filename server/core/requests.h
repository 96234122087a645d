/* Decoding of the core request bodies into typed structs: session creation and the action
 * envelope. Runs on the loop thread; everything here is 400/404/422 before any storage. */
#ifndef UMPIRE_REQUESTS_H
#define UMPIRE_REQUESTS_H

#include "protocol/api_error.h"
#include "protocol/limits.h"
#include "rules/ruleset.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum { DICE_MODE_SERVER, DICE_MODE_SEEDED, DICE_MODE_MANUAL } dice_mode;
const char *dice_mode_name(dice_mode m);

typedef struct create_request {
    const ruleset *rs;
    char title[TITLE_MAX + 1];
    json_t *sides; /* owned: array of distinct side names */
    bool public_;
    dice_mode mode;
    uint8_t seed[32];       /* seeded mode */
    bool manual_by_referee; /* manual mode, dice.manual_by "referee": only the referee types dice */
    json_t *options;        /* owned */
    json_t *setup;          /* owned */
    json_t *state;          /* owned: the ruleset's initial state */
} create_request;

/* 0, or -1 with the error (400 invalid_field, 404 ruleset_not_found, 422 invalid_setup). */
int create_request_decode(const json_t *body, create_request *out, api_error *err);
void create_request_clear(create_request *req);

typedef struct action_envelope {
    char type[ACTION_TYPE_MAX + 1];
    bool has_expect_version;
    int64_t expect_version;
    bool has_unit;
    char unit[UNIT_ID_MAX + 1];
    bool has_dice;
    int64_t *dice; /* owned */
    size_t ndice;
    json_t *fields; /* owned: the body without the envelope fields, for the ruleset */
} action_envelope;

/* 0, or -1 with 400 invalid_field. out->fields is a deep copy of body (body is untouched). */
int action_envelope_decode(const json_t *body, action_envelope *out, api_error *err);
/* The same, taking ownership of body_take in every case: on success body_take, minus the
 * envelope members, becomes out->fields without a copy. For a freshly parsed body that the
 * caller does not use afterwards (POST .../actions, whose fields go to the writer thread: the
 * loop thread keeps no reference to what it hands over). */
int action_envelope_decode_take(json_t *body_take, action_envelope *out, api_error *err);
void action_envelope_clear(action_envelope *env);

/* POST /v1/sessions/{id}/entropy: {"seed": "<1 to 64 printable ASCII bytes>"[,
 * "expect_version": n]}. */
#define ENTROPY_REQUEST_SEED_MAX 64
typedef struct entropy_request {
    char seed[ENTROPY_REQUEST_SEED_MAX + 1];
    bool has_expect_version;
    int64_t expect_version;
} entropy_request;
/* 0, or -1 with 400 invalid_field (details.field names the member). */
int entropy_request_decode(const json_t *body, entropy_request *out, api_error *err);

/* 1 when s is a usable Idempotency-Key: 1..128 printable ASCII characters. */
bool idempotency_key_valid(const char *s);

#endif
