/* Units: validating setup.units, reading them back from the state, writing changed ones into a
 * copy-on-write state, the session options and the acting side's rights.
 *
 * Unit (setup and state alike): {"id", "side", "type", "hex", "facing", "strength", "morale",
 *   "name"?, "calibre"? (artillery), "state"? (good|disorganized|routed|march_column; the state
 *   adds eliminated), "formation"?, "commander"?, "movement"?, "bonus"? (heavy cavalry),
 *   "disorganized_by_combat"? (state)} */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/json_build.h"
#include "rules/common/units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const type_names[] = {"line_infantry", "light_infantry", "heavy_cavalry",
                                         "light_cavalry", "artillery",      NULL};
static const char *const state_names[] = {"good",         "disorganized", "routed",
                                          "march_column", "eliminated",   NULL};
static const char *const dir_names[] = {"n", "ne", "se", "s", "sw", "nw", NULL};

const char *vc_type_name(vc_type t) {
    return type_names[t];
}

const char *vc_state_name(vc_state s) {
    return state_names[s];
}

bool vc_is_cavalry(const vc_unit *u) {
    return u->type == VC_HEAVY_CAVALRY || u->type == VC_LIGHT_CAVALRY;
}

bool vc_is_infantry(const vc_unit *u) {
    return u->type == VC_LINE_INFANTRY || u->type == VC_LIGHT_INFANTRY;
}

bool vc_is_light(const vc_unit *u) {
    return u->type == VC_LIGHT_INFANTRY || u->type == VC_LIGHT_CAVALRY;
}

bool vc_alive(const vc_unit *u) {
    return u->state != VC_ELIMINATED;
}

/* House default movement points: the charts give costs but no allowances. */
int vc_default_movement(vc_type t) {
    static const int mp[] = {[VC_LINE_INFANTRY] = 4,
                             [VC_LIGHT_INFANTRY] = 5,
                             [VC_HEAVY_CAVALRY] = 6,
                             [VC_LIGHT_CAVALRY] = 7,
                             [VC_ARTILLERY] = 3};
    return mp[t];
}

void vc_rule_error(api_error *err, const char *field, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "rules_violation", json_pack("{s:s}", "field", field), "%s", msg);
}

/* ---- reading one unit ----------------------------------------------------------------------- */

static int read_hex(const json_t *obj, const char *prefix, const char *name, hex *out,
                    api_error *err) {
    char text[HEX_NAME_MAX + 1] = "";
    if (rules_in_text(obj, prefix, name, true, text, sizeof text, err) != 0) return -1;
    if (!hex_parse(text, out)) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, name);
        api_error_field(err, path, "a hex as printed on the map, four digits (\"1204\")");
        return -1;
    }
    return 0;
}

/* The fields of one unit; `in_state` admits the fields only the state carries. */
static int read_unit(const json_t *obj, const char *path, bool in_state, vc_unit *u,
                     api_error *err) {
    static const char *const keys[] = {
        "id",        "side",      "type",     "hex",     "facing",
        "strength",  "morale",    "name",     "calibre", "state",
        "formation", "commander", "movement", "bonus",   "disorganized_by_combat",
        NULL};
    memset(u, 0, sizeof *u);
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with id, side, type, hex, facing, strength, morale");
        return -1;
    }
    int type = 0, facing = 0, state = VC_GOOD;
    if (json_in_only_keys(obj, path, keys, err) != 0 ||
        rules_in_text(obj, path, "id", true, u->id, sizeof u->id, err) != 0 ||
        rules_in_text(obj, path, "side", true, u->side, sizeof u->side, err) != 0 ||
        rules_in_enum(obj, path, "type", true, type_names, 0, &type, err) != 0 ||
        read_hex(obj, path, "hex", &u->at, err) != 0 ||
        rules_in_enum(obj, path, "facing", true, dir_names, 0, &facing, err) != 0 ||
        rules_in_int(obj, path, "strength", true, in_state ? 0 : 1, 30, &u->strength, err) != 0 ||
        rules_in_int(obj, path, "morale", true, 0, 12, &u->morale, err) != 0 ||
        rules_in_text(obj, path, "name", false, u->name, sizeof u->name, err) != 0 ||
        rules_in_enum(obj, path, "state", false, state_names, 0, &state, err) != 0 ||
        rules_in_text(obj, path, "formation", false, u->formation, sizeof u->formation, err) != 0 ||
        rules_in_text(obj, path, "commander", false, u->commander, sizeof u->commander, err) != 0 ||
        rules_in_bool(obj, path, "bonus", &u->bonus, err) != 0 ||
        rules_in_bool(obj, path, "disorganized_by_combat", &u->disorganized_by_combat, err) != 0)
        return -1;
    u->type = (vc_type)type;
    u->facing = facing;
    u->state = (vc_state)state;
    u->movement = vc_default_movement(u->type);
    if (rules_in_int(obj, path, "movement", false, 0, 30, &u->movement, err) != 0) return -1;
    char sub[JSON_IN_PATH_MAX];
    json_in_path(sub, path, "calibre");
    if (u->type == VC_ARTILLERY) {
        if (rules_in_int(obj, path, "calibre", true, 1, 48, &u->calibre, err) != 0) return -1;
    } else if (rules_in_present(obj, "calibre")) {
        api_error_field(err, sub, "absent: only artillery has a calibre");
        return -1;
    }
    if (u->bonus && u->type != VC_HEAVY_CAVALRY) {
        json_in_path(sub, path, "bonus");
        api_error_field(err, sub, "absent: only heavy cavalry has the bonus");
        return -1;
    }
    if (!in_state && (u->state == VC_ELIMINATED || u->disorganized_by_combat)) {
        json_in_path(sub, path, u->state == VC_ELIMINATED ? "state" : "disorganized_by_combat");
        api_error_field(err, sub, "a setup value: good, disorganized, routed or march_column");
        return -1;
    }
    return 0;
}

json_t *vc_unit_to_json(const vc_unit *u) {
    char at[HEX_NAME_MAX];
    hex_format(u->at, at);
    json_t *o = json_object();
    rules_set_str(o, "id", u->id);
    rules_set_str(o, "side", u->side);
    rules_set_str(o, "type", vc_type_name(u->type));
    rules_set_str(o, "hex", at);
    rules_set_str(o, "facing", hex_dir_name(u->facing));
    rules_set_int(o, "strength", u->strength);
    rules_set_int(o, "morale", u->morale);
    rules_set_str(o, "state", vc_state_name(u->state));
    rules_set_int(o, "movement", u->movement);
    if (!o) return NULL;
    if (u->name[0]) json_object_set_new(o, "name", json_string(u->name));
    if (u->type == VC_ARTILLERY) json_object_set_new(o, "calibre", json_integer(u->calibre));
    if (u->formation[0]) json_object_set_new(o, "formation", json_string(u->formation));
    if (u->commander[0]) json_object_set_new(o, "commander", json_string(u->commander));
    if (u->bonus) json_object_set_new(o, "bonus", json_true());
    if (u->disorganized_by_combat) json_object_set_new(o, "disorganized_by_combat", json_true());
    return o;
}

/* ---- setup ---------------------------------------------------------------------------------- */

static int setup_fail(api_error *err, const char *path, const char *fmt, const char *a,
                      const char *b) {
    api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path), fmt, a, b);
    return -1;
}

/* Placement: on the map, on terrain the unit may stand in, within the stacking limit, one side
 * and one facing a hex. */
static int check_placement(const vc_unit *units, size_t n, const json_t *map, const vc_options *o,
                           api_error *err) {
    hex_grid g;
    hex_map_grid(map, &g);
    for (size_t i = 0; i < n; i++) {
        const vc_unit *u = &units[i];
        char path[JSON_IN_PATH_MAX], at[HEX_NAME_MAX];
        json_in_path_index(path, "setup.units", i);
        hex_format(u->at, at);
        if (!hex_on_grid(&g, u->at)) {
            json_in_path(path, path, "hex");
            return setup_fail(err, path, "unit '%s' stands on hex %s, which is not on the map",
                              u->id, at);
        }
        unsigned terrain = hex_map_terrain(map, &vc_map_spec, u->at);
        /* TET, Woods: forbidden to cavalry (light cavalry may enter, disorganised). */
        if ((terrain & VC_F(VC_WOODS)) && u->type == VC_HEAVY_CAVALRY)
            return setup_fail(err, path,
                              "unit '%s' is heavy cavalry in the woods of hex %s, "
                              "where the Terrain Effects Table forbids cavalry",
                              u->id, at);
        size_t here = 1;
        for (size_t j = 0; j < i; j++) {
            if (!hex_equal(units[j].at, u->at)) continue;
            here++;
            if (strcmp(units[j].side, u->side) != 0)
                return setup_fail(err, path, "unit '%s' shares hex %s with an enemy unit", u->id,
                                  at);
            if (units[j].facing != u->facing)
                return setup_fail(err, path,
                                  "unit '%s' faces another way than the unit stacked with it in "
                                  "hex %s: a stack has one facing",
                                  u->id, at);
        }
        if ((int)here > o->stacking_limit) {
            char limit[16];
            snprintf(limit, sizeof limit, "%d", o->stacking_limit);
            return setup_fail(err, path, "unit '%s' makes a stack of more than %s units", u->id,
                              limit);
        }
    }
    return 0;
}

json_t *vc_units_from_setup(const json_t *units, const json_t *map, const json_t *formations,
                            const json_t *options, api_error *err) {
    size_t n = json_array_size(units);
    vc_unit *list = calloc(n ? n : 1, sizeof *list);
    json_t *out = json_array();
    vc_options o;
    vc_options_read(options, &o);
    if (!list || !out) goto fail;
    for (size_t i = 0; i < n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        vc_unit *u = &list[i];
        if (read_unit(json_array_get(units, i), path, false, u, err) != 0) goto fail;
        for (size_t j = 0; j < i; j++)
            if (strcmp(list[j].id, u->id) == 0) {
                json_in_path(path, path, "id");
                setup_fail(err, path, "unit id '%s' is used twice%s", u->id, "");
                goto fail;
            }
        if (u->formation[0] && formations && !json_object_get(formations, u->formation)) {
            json_in_path(path, path, "formation");
            setup_fail(err, path,
                       "unit '%s' belongs to formation '%s', which setup.formations "
                       "does not list",
                       u->id, u->formation);
            goto fail;
        }
    }
    if (check_placement(list, n, map, &o, err) != 0) goto fail;
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(out, vc_unit_to_json(&list[i])) != 0) goto fail;
    free(list);
    return out;
fail:
    if (!err->status)
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory while reading the setup");
    free(list);
    json_decref(out);
    return NULL;
}

/* ---- the state ------------------------------------------------------------------------------- */

int vc_army_load(const json_t *state, vc_army *army, api_error *err) {
    const json_t *units = json_object_get(state, "units");
    army->n = json_array_size(units);
    army->units = calloc(army->n ? army->n : 1, sizeof *army->units);
    if (!army->units) {
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory while loading units");
        return -1;
    }
    for (size_t i = 0; i < army->n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "state.units", i);
        if (read_unit(json_array_get(units, i), path, true, &army->units[i], err) != 0) {
            /* Not a state this module wrote (a fuzzer's, or a hand-made one): a 422. */
            err->status = 422;
            vc_army_free(army);
            return -1;
        }
        army->units[i].index = (int)i;
    }
    return 0;
}

void vc_army_free(vc_army *army) {
    free(army->units);
    army->units = NULL;
    army->n = 0;
}

vc_unit *vc_army_find(vc_army *army, const char *id) {
    for (size_t i = 0; i < army->n; i++)
        if (strcmp(army->units[i].id, id) == 0) return &army->units[i];
    return NULL;
}

vc_unit *vc_army_get(vc_army *army, const char *id, const char *field, api_error *err) {
    vc_unit *u = vc_army_find(army, id);
    if (!u) {
        rules_unknown_unit(err, field, id);
        return NULL;
    }
    if (!vc_alive(u)) {
        rules_unit_gone(err, "unit_eliminated", field, "unit", id, "has been eliminated");
        return NULL;
    }
    return u;
}

json_t *vc_state_after_new(const json_t *state, const vc_army *army, json_t *pending_take) {
    json_t *units = NULL, *next = rules_state_units_copy_new(state, &units);
    if (!next) {
        json_decref(pending_take);
        return NULL;
    }
    for (size_t i = 0; i < army->n; i++)
        if (army->units[i].changed) json_array_set_new(units, i, vc_unit_to_json(&army->units[i]));
    if (pending_take) json_object_set_new(next, "pending", pending_take);
    return next;
}

int vc_begin(const rules_ctx *ctx, vc_army *army, vc_options *o, api_error *err) {
    vc_options_read(ctx->options, o);
    if (vc_check_pending(ctx->state, NULL, err) != 0) return -1;
    return vc_army_load(ctx->state, army, err);
}

int vc_outcome_finish(const rules_ctx *ctx, vc_army *army, json_t *pending_take, rules_outcome *out,
                      api_error *err) {
    json_t *next = vc_state_after_new(ctx->state, army, pending_take);
    vc_army_free(army);
    return rules_outcome_take_state(out, next, err);
}

int vc_check_owner(const char *actor, const vc_unit *u, const char *field, api_error *err) {
    return rules_check_owner(actor, u->id, u->side, field, err);
}

vc_unit *vc_acting_unit(const rules_ctx *ctx, vc_army *army, api_error *err) {
    const char *id = rules_acting_id(ctx, "this action needs the acting unit", err);
    return id ? vc_army_get(army, id, "unit", err) : NULL;
}

/* ---- options --------------------------------------------------------------------------------- */

void vc_options_read(const json_t *options, vc_options *o) {
    o->morale_dice = 1;
    o->stacking_limit = 2;
    o->facing_change_cost = 1;
    /* House default ranges (light, 6-8 lb, 12 lb, heavier): the charts only say that fire
     * beyond 3 hexes is at -1 and each hex beyond 4 at a further -1. */
    o->max_range[0] = 5;
    o->max_range[1] = 6;
    o->max_range[2] = 7;
    o->max_range[3] = 8;
    json_int_t v;
    if ((v = json_integer_value(json_object_get(options, "morale_dice"))) >= 1 && v <= 2)
        o->morale_dice = (int)v;
    if ((v = json_integer_value(json_object_get(options, "stacking_limit"))) >= 1 && v <= 6)
        o->stacking_limit = (int)v;
    if (json_is_integer(json_object_get(options, "facing_change_cost")) &&
        (v = json_integer_value(json_object_get(options, "facing_change_cost"))) >= 0 && v <= 6)
        o->facing_change_cost = (int)v;
    const json_t *ranges = json_object_get(options, "max_range");
    if (json_array_size(ranges) == 4)
        for (int i = 0; i < 4; i++)
            if ((v = json_integer_value(json_array_get(ranges, (size_t)i))) >= 1 && v <= 20)
                o->max_range[i] = (int)v;
}

int vc_options_check(const json_t *options, api_error *err) {
    static const char *const keys[] = {"morale_dice", "stacking_limit", "facing_change_cost",
                                       "max_range", NULL};
    if (!options) return 0;
    if (!json_is_object(options)) {
        api_error_field(err, "options", "an object");
        return -1;
    }
    int v = 0;
    json_t *ranges = NULL;
    if (json_in_only_keys(options, "options", keys, err) != 0 ||
        rules_in_int(options, "options", "morale_dice", false, 1, 2, &v, err) != 0 ||
        rules_in_int(options, "options", "stacking_limit", false, 1, 6, &v, err) != 0 ||
        rules_in_int(options, "options", "facing_change_cost", false, 0, 6, &v, err) != 0)
        return -1;
    if (json_in_array(options, "options", "max_range", false, 4, &ranges) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (ranges) {
        json_t *holder = json_object();
        bool ok = json_array_size(ranges) == 4;
        for (size_t i = 0; ok && i < 4; i++) {
            json_object_set(holder, "r", json_array_get(ranges, i));
            api_error scratch = {0};
            ok = rules_in_int(holder, "", "r", true, 1, 20, &v, &scratch) == 0;
            api_error_clear(&scratch);
        }
        json_decref(holder);
        if (!ok) {
            api_error_field(err, "options.max_range",
                            "four integers 1-20: ranges of light (up to 4 lb), 6-8 lb, 12 lb and "
                            "heavier guns");
            return -1;
        }
    }
    return 0;
}
