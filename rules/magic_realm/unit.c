/* Units: validating setup.units, reading them back from the state, writing changed ones into a
 * copy-on-write state, and the session options.
 *
 * Character: {"id", "side", "kind": "character", "name"?, "vulnerability", "armor"?: [{"toughness",
 *   "state"?, "protects"?, "name"?}], "horse"?: {...}, "flying"?, "wounds"?, "status"?,
 *   "attacks"?: [...], "maneuvers"?: [...]} (the kit: kit.c)
 * Denizen: {"id", "side", "kind": "denizen", "name"?, "vulnerability", "armored"?, "move_time",
 *   "attack": {"kind"?, "harm", "sharpness"?, "time", "length"?}, "other_side"?: {"attack",
 *   "move_time"}, "flying"?, "red_side_up"?, "horse"?: {...}, "status"?}
 * Horse: {"vulnerability", "move_time", "armored"?, "name"?, "status"?}
 * A unit without "kind" takes no part in combat (a bystander the core still knows by id/side). */
#include "rules/magic_realm/mr.h"

#include "rules/common/claims.h"
#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

#define ALL_BOXES                                                                                  \
    ((1u << MR_BOX_THRUST_CHARGE) | (1u << MR_BOX_SWING_DODGE) | (1u << MR_BOX_SMASH_DUCK))
#define LENGTH_MAX 20

static const char *const kind_names[] = {"character", "denizen", NULL};
static const char *const status_names[] = {"alive", "killed", NULL};
static const char *const attack_kind_names[] = {"striking", "missile", NULL};
static const char *const armor_state_names[] = {"intact", "damaged", "destroyed", NULL};

bool mr_armor_protects(const mr_armor *a, int box) {
    return box == MR_BOX_NONE || (a->protects & (1u << box)) != 0;
}

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

static int read_bool(const json_t *obj, const char *prefix, const char *name, bool *out,
                     api_error *err) {
    if (json_in_bool(obj, prefix, name, false, out) != 0) return take(err);
    return 0;
}

int mr_armor_decode(const json_t *obj, const char *prefix, bool with_state, mr_armor *a,
                    api_error *err) {
    static const char *const keys[] = {"toughness", "state", "protects", "name", NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, prefix, "an object with toughness");
        return -1;
    }
    if (json_in_only_keys(obj, prefix, keys, err) != 0 ||
        mr_in_level(obj, prefix, "toughness", true, MR_M, &a->toughness, err) != 0 ||
        mr_in_name(obj, prefix, "name", a->name, err) != 0)
        return -1;
    a->state = MR_ARMOR_INTACT;
    if (mr_in_enum(obj, prefix, "state", false, armor_state_names, 0, &a->state, err) != 0)
        return -1;
    (void)with_state;
    a->protects = ALL_BOXES;
    json_t *p = NULL;
    if (json_in_array(obj, prefix, "protects", false, 3, &p) != 0) return take(err);
    if (p) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, "protects");
        if (json_array_size(p) == 0) {
            api_error_field(err, path, "an array of one to three of thrust, swing, smash");
            return -1;
        }
        a->protects = 0;
        size_t i;
        json_t *v;
        json_array_foreach(p, i, v) {
            static const char *const boxes[] = {"thrust", "swing", "smash", NULL};
            int box = 0;
            json_t *holder = json_pack("{s:O}", "box", v);
            char item[JSON_IN_PATH_MAX];
            json_in_path_index(item, path, i);
            /* read as a one-key object so the error names the item */
            int rc = holder ? mr_in_enum(holder, "", "box", true, boxes, 1, &box, err) : -1;
            json_decref(holder);
            if (rc != 0 || (a->protects & (1u << box))) {
                api_error_field(err, item, "thrust, swing or smash, each at most once");
                return -1;
            }
            a->protects |= 1u << box;
        }
    }
    return 0;
}

json_t *mr_armor_encode(const mr_armor *a, bool with_state) {
    json_t *o = json_pack("{s:s}", "toughness", mr_level_name(a->toughness));
    if (with_state) json_object_set_new(o, "state", json_string(mr_armor_state_name(a->state)));
    if (a->protects != ALL_BOXES) {
        json_t *p = json_array();
        for (int b = MR_BOX_THRUST_CHARGE; b <= MR_BOX_SMASH_DUCK; b++)
            if (a->protects & (1u << b))
                json_array_append_new(p, json_string(mr_box_attack_name(b)));
        json_object_set_new(o, "protects", p);
    }
    if (a->name[0]) json_object_set_new(o, "name", json_string(a->name));
    return o;
}

static int read_horse(const json_t *obj, const char *prefix, mr_horse *h, api_error *err) {
    static const char *const keys[] = {"vulnerability", "move_time", "armored",
                                       "name",          "status",    NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, prefix, "an object with vulnerability and move_time");
        return -1;
    }
    int status = 0;
    h->present = true;
    if (json_in_only_keys(obj, prefix, keys, err) != 0 ||
        mr_in_level(obj, prefix, "vulnerability", true, MR_L, &h->vulnerability, err) != 0 ||
        mr_in_int(obj, prefix, "move_time", true, 0, MR_TIME_MAX, &h->move_time, err) != 0 ||
        read_bool(obj, prefix, "armored", &h->armored, err) != 0 ||
        mr_in_name(obj, prefix, "name", h->name, err) != 0 ||
        mr_in_enum(obj, prefix, "status", false, status_names, 0, &status, err) != 0)
        return -1;
    h->dead = status == 1;
    return 0;
}

static json_t *horse_json(const mr_horse *h) {
    json_t *o = json_pack("{s:s, s:i, s:b, s:s}", "vulnerability", mr_level_name(h->vulnerability),
                          "move_time", h->move_time, "armored", h->armored, "status",
                          h->dead ? "killed" : "alive");
    if (h->name[0]) json_object_set_new(o, "name", json_string(h->name));
    return o;
}

static int read_attack_stats(const json_t *obj, const char *prefix, mr_attack_stats *a,
                             api_error *err) {
    static const char *const keys[] = {"kind", "harm", "sharpness", "time", "length", NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, prefix, "an object with harm and time");
        return -1;
    }
    a->kind = MR_STRIKING;
    a->sharpness = 0;
    a->length = 0;
    if (json_in_only_keys(obj, prefix, keys, err) != 0 ||
        mr_in_enum(obj, prefix, "kind", false, attack_kind_names, MR_STRIKING, &a->kind, err) !=
            0 ||
        mr_in_level(obj, prefix, "harm", true, MR_L, &a->harm, err) != 0 ||
        mr_in_int(obj, prefix, "sharpness", false, 0, 3, &a->sharpness, err) != 0 ||
        mr_in_int(obj, prefix, "time", true, 0, MR_TIME_MAX, &a->time, err) != 0 ||
        mr_in_int(obj, prefix, "length", false, 0, LENGTH_MAX, &a->length, err) != 0)
        return -1;
    return 0;
}

static json_t *attack_stats_json(const mr_attack_stats *a) {
    return json_pack("{s:s, s:s, s:i, s:i, s:i}", "kind",
                     a->kind == MR_MISSILE ? "missile" : "striking", "harm", mr_level_name(a->harm),
                     "sharpness", a->sharpness, "time", a->time, "length", a->length);
}

static int read_other_side(const json_t *obj, const char *prefix, mr_unit *u, api_error *err) {
    static const char *const keys[] = {"attack", "move_time", NULL};
    char path[JSON_IN_PATH_MAX];
    json_t *atk = NULL;
    if (!json_is_object(obj)) {
        api_error_field(err, prefix, "an object with attack and move_time");
        return -1;
    }
    if (json_in_only_keys(obj, prefix, keys, err) != 0) return -1;
    if (json_in_object(obj, prefix, "attack", true, &atk) != 0) return take(err);
    json_in_path(path, prefix, "attack");
    u->has_other_side = true;
    return read_attack_stats(atk, path, &u->other_attack, err) != 0 ||
                   mr_in_int(obj, prefix, "move_time", true, 0, MR_TIME_MAX, &u->other_move_time,
                             err) != 0
               ? -1
               : 0;
}

/* The fields of one unit, in setup or in the state (the same shape). */
static int read_unit(const json_t *obj, const char *path, mr_unit *u, api_error *err) {
    static const char *const bystander_keys[] = {"id", "side", NULL};
    static const char *const character_keys[] = {
        "id",     "side",   "kind",   "name",    "vulnerability", "armor", "horse",
        "flying", "wounds", "status", "attacks", "maneuvers",     NULL};
    static const char *const denizen_keys[] = {
        "id",     "side",       "kind",   "name",  "vulnerability", "armored", "move_time",
        "attack", "other_side", "flying", "horse", "red_side_up",   "status",  NULL};
    const char *id = NULL, *side = NULL;
    char sub[JSON_IN_PATH_MAX];
    memset(u, 0, sizeof *u);
    u->index = -1;
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with id and side");
        return -1;
    }
    if (json_in_string(obj, path, "id", true, MR_ID_MAX, &id) != 0 ||
        json_in_string(obj, path, "side", true, SIDE_NAME_MAX, &side) != 0)
        return take(err);
    snprintf(u->id, sizeof u->id, "%s", id);
    snprintf(u->side, sizeof u->side, "%s", side);
    if (!json_object_get(obj, "kind")) {
        u->kind = MR_KIND_BYSTANDER;
        return json_in_only_keys(obj, path, bystander_keys, err);
    }
    int status = 0;
    if (mr_in_enum(obj, path, "kind", true, kind_names, MR_KIND_CHARACTER, &u->kind, err) != 0 ||
        json_in_only_keys(obj, path, u->kind == MR_KIND_CHARACTER ? character_keys : denizen_keys,
                          err) != 0 ||
        mr_in_name(obj, path, "name", u->name, err) != 0 ||
        mr_in_level(obj, path, "vulnerability", true, MR_L, &u->vulnerability, err) != 0 ||
        read_bool(obj, path, "flying", &u->flying, err) != 0 ||
        mr_in_enum(obj, path, "status", false, status_names, 0, &status, err) != 0)
        return -1;
    u->dead = status == 1;
    json_t *horse = NULL;
    if (json_in_object(obj, path, "horse", false, &horse) != 0) return take(err);
    json_in_path(sub, path, "horse");
    if (horse && read_horse(horse, sub, &u->horse, err) != 0) return -1;

    if (u->kind == MR_KIND_CHARACTER) {
        json_t *armor = NULL;
        if (json_in_array(obj, path, "armor", false, MR_ARMOR_MAX, &armor) != 0) return take(err);
        if (mr_in_int(obj, path, "wounds", false, 0, 1000, &u->wounds, err) != 0) return -1;
        json_in_path(sub, path, "armor");
        size_t i;
        json_t *a;
        json_array_foreach(armor, i, a) {
            char item[JSON_IN_PATH_MAX];
            json_in_path_index(item, sub, i);
            if (mr_armor_decode(a, item, true, &u->armor[u->narmor++], err) != 0) return -1;
        }
        return mr_kit_read(obj, path, u, err);
    }
    json_t *attack = NULL, *other = NULL;
    bool red = false;
    if (read_bool(obj, path, "armored", &u->armored, err) != 0 ||
        mr_in_int(obj, path, "move_time", true, 0, MR_TIME_MAX, &u->move_time, err) != 0 ||
        read_bool(obj, path, "red_side_up", &red, err) != 0)
        return -1;
    if (json_in_object(obj, path, "attack", true, &attack) != 0 ||
        json_in_object(obj, path, "other_side", false, &other) != 0)
        return take(err);
    json_in_path(sub, path, "attack");
    u->has_attack = true;
    if (read_attack_stats(attack, sub, &u->attack, err) != 0) return -1;
    json_in_path(sub, path, "other_side");
    if (other && read_other_side(other, sub, u, err) != 0) return -1;
    if (json_object_get(obj, "red_side_up") && !json_is_null(json_object_get(obj, "red_side_up"))) {
        if (u->vulnerability != MR_T) {
            json_in_path(sub, path, "red_side_up");
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", sub),
                          "only a Tremendous monster (vulnerability T) has a red side");
            return -1;
        }
        u->has_red_side = true;
        u->red_side_up = red;
    }
    return 0;
}

int mr_unit_from_setup(const json_t *obj, const char *path, mr_unit *u, api_error *err) {
    return read_unit(obj, path, u, err);
}

int mr_unit_from_state(const json_t *obj, int index, mr_unit *u, api_error *err) {
    char path[JSON_IN_PATH_MAX];
    json_in_path_index(path, "state.units", (size_t)index);
    if (read_unit(obj, path, u, err) != 0) return -1;
    u->index = index;
    return 0;
}

json_t *mr_unit_to_json(const mr_unit *u) {
    json_t *o = json_pack("{s:s, s:s}", "id", u->id, "side", u->side);
    if (u->kind == MR_KIND_BYSTANDER) return o;
    json_object_set_new(o, "kind",
                        json_string(u->kind == MR_KIND_CHARACTER ? "character" : "denizen"));
    if (u->name[0]) json_object_set_new(o, "name", json_string(u->name));
    json_object_set_new(o, "vulnerability", json_string(mr_level_name(u->vulnerability)));
    json_object_set_new(o, "status", json_string(u->dead ? "killed" : "alive"));
    json_object_set_new(o, "flying", json_boolean(u->flying));
    if (u->horse.present) json_object_set_new(o, "horse", horse_json(&u->horse));
    if (u->kind == MR_KIND_CHARACTER) {
        json_t *armor = json_array();
        for (int i = 0; i < u->narmor; i++)
            json_array_append_new(armor, mr_armor_encode(&u->armor[i], true));
        json_object_set_new(o, "armor", armor);
        json_object_set_new(o, "wounds", json_integer(u->wounds));
        mr_kit_write(u, o);
        return o;
    }
    json_object_set_new(o, "armored", json_boolean(u->armored));
    json_object_set_new(o, "move_time", json_integer(u->move_time));
    json_object_set_new(o, "attack", attack_stats_json(&u->attack));
    if (u->has_other_side)
        json_object_set_new(o, "other_side",
                            json_pack("{s:o, s:i}", "attack", attack_stats_json(&u->other_attack),
                                      "move_time", u->other_move_time));
    if (u->has_red_side) json_object_set_new(o, "red_side_up", json_boolean(u->red_side_up));
    return o;
}

int mr_unit_load(const json_t *state, const char *id, const char *field, mr_unit *u,
                 api_error *err) {
    size_t i;
    json_t *obj;
    json_array_foreach(json_object_get(state, "units"), i, obj) {
        const char *uid = json_string_value(json_object_get(obj, "id"));
        if (uid && strcmp(uid, id) == 0) return mr_unit_from_state(obj, (int)i, u, err);
    }
    api_error_set(err, 422, "unknown_unit", json_pack("{s:s, s:s}", "unit", id, "field", field),
                  "there is no unit '%s' in this session (%s)", id, field);
    return -1;
}

json_t *mr_state_with_units_new(const json_t *state, const mr_unit *const *units, size_t n) {
    json_t *ns = json_copy((json_t *)state); /* shallow: shares every child */
    json_t *old = json_object_get(state, "units");
    json_t *arr = json_is_array(old) ? json_copy(old) : json_array();
    if (!ns || !arr) {
        json_decref(ns);
        json_decref(arr);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (units[i]->changed && units[i]->index >= 0)
            json_array_set_new(arr, (size_t)units[i]->index, mr_unit_to_json(units[i]));
    json_object_set_new(ns, "units", arr);
    return ns;
}

/* ---- options ----------------------------------------------------------------------------- */

static const char *const table_option_names[] = {"revised", "second-edition", "standard", NULL};
static const char *const beyond_names[] = {"kill", "armor-absorbs", NULL};
static const char *const order_names[] = {"time", "length", "listed", NULL};

int mr_options_check(const json_t *options, api_error *err) {
    static const char *const keys[] = {"missile_table", "hamblens_kludge", "beyond_t_vs_armor",
                                       "order",         "trust_claims",    NULL};
    int v;
    bool b;
    if (!options) return 0;
    return json_in_only_keys(options, "options", keys, err) != 0 ||
                   mr_in_enum(options, "options", "missile_table", false, table_option_names,
                              MR_TABLE_REVISED, &v, err) != 0 ||
                   read_bool(options, "options", "hamblens_kludge", &b, err) != 0 ||
                   mr_in_enum(options, "options", "beyond_t_vs_armor", false, beyond_names, 0, &v,
                              err) != 0 ||
                   mr_in_enum(options, "options", "order", false, order_names, MR_ORDER_TIME, &v,
                              err) != 0 ||
                   claims_option_check(options, err) != 0
               ? -1
               : 0;
}

void mr_options_read(const json_t *options, mr_options *o) {
    api_error ignored = {0};
    int table = MR_TABLE_REVISED, beyond = 0, order = MR_ORDER_TIME;
    bool kludge = false;
    o->kludge = MR_UNSET;
    if (options) {
        (void)mr_in_enum(options, "options", "missile_table", false, table_option_names,
                         MR_TABLE_REVISED, &table, &ignored);
        (void)mr_in_enum(options, "options", "beyond_t_vs_armor", false, beyond_names, 0, &beyond,
                         &ignored);
        (void)mr_in_enum(options, "options", "order", false, order_names, MR_ORDER_TIME, &order,
                         &ignored);
        if (json_is_boolean(json_object_get(options, "hamblens_kludge")) &&
            read_bool(options, "options", "hamblens_kludge", &kludge, &ignored) == 0)
            o->kludge = kludge;
    }
    api_error_clear(&ignored);
    o->missile_table = (mr_table_id)table;
    o->beyond_t_kills = beyond == 0;
    o->order = order;
}
