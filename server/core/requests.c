#include "server/core/requests.h"

#include "protocol/json_in.h"
#include "server/core/crypto.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *dice_mode_name(dice_mode m) {
    static const char *const names[] = {"server", "seeded", "manual"};
    return names[m];
}

static bool side_name_valid(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > SIDE_NAME_MAX) return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

static int decode_sides(const json_t *body, create_request *out, api_error *err) {
    json_t *sides = NULL;
    if (json_in_array(body, "", "sides", true, SIDES_MAX, &sides) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (json_array_size(sides) == 0) {
        api_error_field(err, "sides", "an array of 1 to 16 side names");
        return -1;
    }
    size_t i;
    json_t *s;
    json_array_foreach(sides, i, s) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "sides", i);
        if (!json_is_string(s) || strlen(json_string_value(s)) != json_string_length(s) ||
            !side_name_valid(json_string_value(s))) {
            api_error_field(err, path, "a side name of 1 to 32 characters a-z A-Z 0-9 _ -");
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (json_equal(s, json_array_get(sides, j))) {
                api_error_field(err, path, "a side name not already listed");
                return -1;
            }
    }
    out->sides = json_incref(sides);
    return 0;
}

static int decode_dice(const json_t *body, create_request *out, api_error *err) {
    static const char *const keys[] = {"mode", "seed", "manual_by", NULL};
    json_t *dice = NULL;
    const char *mode = "server", *seed = NULL, *manual_by = NULL;
    if (json_in_object(body, "", "dice", false, &dice) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (!dice) return 0;
    if (json_in_only_keys(dice, "dice", keys, err) != 0) return -1;
    if (json_in_string(dice, "dice", "mode", false, 16, &mode) != 0 ||
        json_in_string(dice, "dice", "seed", false, 64, &seed) != 0 ||
        json_in_string(dice, "dice", "manual_by", false, 16, &manual_by) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (strcmp(mode, "server") == 0)
        out->mode = DICE_MODE_SERVER;
    else if (strcmp(mode, "seeded") == 0)
        out->mode = DICE_MODE_SEEDED;
    else if (strcmp(mode, "manual") == 0)
        out->mode = DICE_MODE_MANUAL;
    else {
        api_error_field(err, "dice.mode", "one of server, seeded, manual");
        return -1;
    }
    if (out->mode == DICE_MODE_SEEDED) {
        if (!seed || strlen(seed) != 64 || crypto_hex_decode(seed, out->seed, 32) != 0) {
            api_error_field(err, "dice.seed", "64 hex digits (32 bytes) in seeded mode");
            return -1;
        }
    } else if (seed) {
        api_error_field(err, "dice.seed", "absent unless dice.mode is seeded");
        return -1;
    }
    if (manual_by) {
        /* Who types manual dice: anyone holding a token (the default), or the referee alone. */
        if (out->mode != DICE_MODE_MANUAL ||
            (strcmp(manual_by, "referee") != 0 && strcmp(manual_by, "anyone") != 0)) {
            api_error_field(err, "dice.manual_by",
                            "\"referee\" or \"anyone\", and only when dice.mode is manual");
            return -1;
        }
        out->manual_by_referee = strcmp(manual_by, "referee") == 0;
    }
    return 0;
}

/* setup.units: each an object with a unique string id and a side from sides. */
static int check_units(const json_t *setup, const json_t *sides, api_error *err) {
    json_t *units = NULL;
    if (json_in_array(setup, "setup", "units", false, UNITS_MAX, &units) != 0) {
        json_in_take_error(err);
        return -1;
    }
    size_t i;
    json_t *u;
    json_array_foreach(units, i, u) {
        char path[JSON_IN_PATH_MAX];
        const char *id = NULL, *side = NULL;
        json_in_path_index(path, "setup.units", i);
        if (!json_is_object(u)) {
            api_error_field(err, path, "an object with id and side");
            return -1;
        }
        if (json_in_string(u, path, "id", true, UNIT_ID_MAX, &id) != 0 ||
            json_in_string(u, path, "side", true, SIDE_NAME_MAX, &side) != 0) {
            json_in_take_error(err);
            return -1;
        }
        bool known = false;
        size_t k;
        json_t *s;
        json_array_foreach(sides, k, s) known |= strcmp(json_string_value(s), side) == 0;
        if (!known) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s+}", "field", path, ".side"),
                          "unit '%s' belongs to side '%s', which is not one of the sides", id,
                          side);
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(json_array_get(units, j), "id")), id) ==
                0) {
                api_error_set(err, 422, "invalid_setup", json_pack("{s:s+}", "field", path, ".id"),
                              "unit id '%s' is used twice", id);
                return -1;
            }
    }
    return 0;
}

int create_request_decode(const json_t *body, create_request *out, api_error *err) {
    static const char *const keys[] = {"ruleset", "title",   "sides", "visibility",
                                       "dice",    "options", "setup", NULL};
    memset(out, 0, sizeof *out);
    const char *rs = NULL, *title = "", *visibility = "private";
    json_t *options = NULL, *setup = NULL;
    if (json_in_only_keys(body, "", keys, err) != 0) return -1;
    if (json_in_string(body, "", "ruleset", true, 64, &rs) != 0 ||
        json_in_string(body, "", "title", false, TITLE_MAX, &title) != 0 ||
        json_in_string(body, "", "visibility", false, 16, &visibility) != 0 ||
        json_in_object(body, "", "options", false, &options) != 0 ||
        json_in_object(body, "", "setup", false, &setup) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (strcmp(visibility, "public") != 0 && strcmp(visibility, "private") != 0) {
        api_error_field(err, "visibility", "private or public");
        return -1;
    }
    out->public_ = strcmp(visibility, "public") == 0;
    snprintf(out->title, sizeof out->title, "%s", title);
    if (decode_sides(body, out, err) != 0 || decode_dice(body, out, err) != 0) goto fail;
    out->options = options ? json_incref(options) : json_object();
    out->setup = setup ? json_incref(setup) : json_object();
    /* Options and setup go into event 1, whose data may hold no floating-point numbers. */
    if (json_in_reject_reals(out->options, "options", err) != 0 ||
        json_in_reject_reals(out->setup, "setup", err) != 0 ||
        check_units(out->setup, out->sides, err) != 0)
        goto fail;
    out->rs = ruleset_find(rs);
    if (!out->rs) {
        api_error_set(err, 404, "ruleset_not_found", json_pack("{s:s}", "ruleset", rs),
                      "there is no ruleset '%s' (GET /v1/rulesets lists them)", rs);
        goto fail;
    }
    out->state = out->rs->init_state(out->options, out->setup, err);
    if (!out->state) goto fail;
    /* Sealed orders are resolved at their reveal with dice no side has seen: the server's. */
    if (out->mode == DICE_MODE_MANUAL &&
        json_is_true(json_object_get(json_object_get(out->state, "turn"), "sealed"))) {
        api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", "setup.turn.sealed"),
                      "sealed orders are resolved at their reveal with the server's dice: a "
                      "session with manual dice plays its phases in the open");
        goto fail;
    }
    return 0;
fail:
    create_request_clear(out);
    return -1;
}

void create_request_clear(create_request *req) {
    json_decref(req->sides);
    json_decref(req->options);
    json_decref(req->setup);
    json_decref(req->state);
    memset(req, 0, sizeof *req);
}

static int decode_action_dice(const json_t *body, action_envelope *out, api_error *err) {
    json_t *dice = NULL;
    if (json_in_array(body, "", "dice", false, ACTION_DICE_MAX, &dice) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (!dice) return 0;
    out->has_dice = true;
    out->ndice = json_array_size(dice);
    out->dice = calloc(out->ndice ? out->ndice : 1, sizeof *out->dice);
    if (!out->dice) {
        api_error_set(err, 500, "internal_error", NULL, "out of memory");
        return -1;
    }
    size_t i;
    json_t *v;
    json_array_foreach(dice, i, v) {
        if (!json_is_integer(v)) {
            char path[JSON_IN_PATH_MAX];
            json_in_path_index(path, "dice", i);
            api_error_field(err, path, "an integer");
            return -1;
        }
        out->dice[i] = (int64_t)json_integer_value(v);
    }
    return 0;
}

/* Copies a validated string (its length already checked against the field's bound). */
static void copy_bounded(char *dst, size_t cap, const char *src) {
    size_t n = strlen(src);
    if (n >= cap) n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

/* Everything but out->fields: the envelope members, checked and copied out of body. */
static int decode_envelope_members(const json_t *body, action_envelope *out, api_error *err) {
    memset(out, 0, sizeof *out);
    const char *type = NULL, *unit = NULL;
    if (json_in_string(body, "", "type", true, ACTION_TYPE_MAX, &type) != 0 ||
        json_in_int(body, "", "expect_version", false, 0, INT64_MAX, &out->expect_version) != 0 ||
        json_in_string(body, "", "unit", false, UNIT_ID_MAX, &unit) != 0) {
        json_in_take_error(err);
        return -1;
    }
    out->has_expect_version = json_object_get(body, "expect_version") != NULL &&
                              !json_is_null(json_object_get(body, "expect_version"));
    copy_bounded(out->type, sizeof out->type, type);
    if (unit) {
        out->has_unit = true;
        copy_bounded(out->unit, sizeof out->unit, unit);
    }
    if (decode_action_dice(body, out, err) != 0) {
        action_envelope_clear(out);
        return -1;
    }
    return 0;
}

/* fields_take (owned from here on) minus the envelope members becomes out->fields. */
static void set_fields_take(action_envelope *out, json_t *fields_take) {
    static const char *const envelope[] = {"type", "expect_version", "unit", "dice"};
    for (size_t i = 0; i < sizeof envelope / sizeof envelope[0]; i++)
        json_object_del(fields_take, envelope[i]);
    out->fields = fields_take;
}

int action_envelope_decode(const json_t *body, action_envelope *out, api_error *err) {
    if (decode_envelope_members(body, out, err) != 0) return -1;
    json_t *copy = json_deep_copy(body);
    if (!copy) {
        action_envelope_clear(out);
        api_error_set(err, 500, "internal_error", NULL, "out of memory");
        return -1;
    }
    set_fields_take(out, copy);
    return 0;
}

int action_envelope_decode_take(json_t *body_take, action_envelope *out, api_error *err) {
    if (decode_envelope_members(body_take, out, err) != 0) {
        json_decref(body_take);
        return -1;
    }
    set_fields_take(out, body_take);
    return 0;
}

void action_envelope_clear(action_envelope *env) {
    free(env->dice);
    json_decref(env->fields);
    memset(env, 0, sizeof *env);
}

bool idempotency_key_valid(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > IDEMPOTENCY_KEY_MAX) return false;
    for (; *s; s++)
        if (*s < 0x21 || *s > 0x7e) return false;
    return true;
}

int entropy_request_decode(const json_t *body, entropy_request *out, api_error *err) {
    static const char *const keys[] = {"seed", "expect_version", NULL};
    const char *seed = NULL;
    memset(out, 0, sizeof *out);
    if (json_in_only_keys(body, "", keys, err) != 0) return -1;
    if (json_in_string(body, "", "seed", true, ENTROPY_REQUEST_SEED_MAX, &seed) != 0 ||
        json_in_int(body, "", "expect_version", false, 0, INT64_MAX, &out->expect_version) != 0) {
        json_in_take_error(err);
        return -1;
    }
    /* Printable ASCII only: the contribution is hashed as canonical JSON, and shown to players
     * as typed, so nothing that escapes, hides or renders differently. */
    size_t len = strlen(seed);
    bool ok = len >= 1 && len == json_string_length(json_object_get(body, "seed"));
    for (size_t i = 0; ok && i < len; i++)
        ok = (unsigned char)seed[i] >= 0x20 && (unsigned char)seed[i] <= 0x7e;
    if (!ok) {
        api_error_field(err, "seed", "1 to 64 printable ASCII characters");
        return -1;
    }
    memcpy(out->seed, seed, len + 1);
    out->has_expect_version = json_object_get(body, "expect_version") != NULL &&
                              !json_is_null(json_object_get(body, "expect_version"));
    return 0;
}
