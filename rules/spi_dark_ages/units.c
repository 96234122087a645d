/* Units: validating setup.units, reading them back from the state and writing changed ones.
 *
 * Unit (setup): {"id", "side", "type" (a key of setup.charts.units), "hex", "facing"
 *   (n|ne|se|s|sw|nw; a Viking Fleet has none), "name"?, "aboard"? (a fleet's id), "bank"? (in a
 *   stream hex: a hexside of the bank it stands on)}.
 * The state adds what the errata makes a unit remember: "demoralized" {"game_turn", "phase"}
 * (when it was demoralized), "panicked", "panic_edge", "moved", "moved_from", "charge", "fired",
 * "meleed", "missile_target", "allocated" {"fire"?: hex, "melee"?: hex}, "contact" [ids],
 * "mounted_type", "mount_of", "eliminated", "off_map", "rallied" (the Player-Turn). */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {"I",       "II",    "III",   "IV", "V",
                                          "command", "fleet", "mount", NULL};

const char *da_class_name(da_class c) {
    return (unsigned)c < 8 ? class_names[c] : "?";
}

static const char *const dir_names[] = {"n", "ne", "se", "s", "sw", "nw", NULL};

void da_rule_error(api_error *err, const char *field, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "rules_violation", json_pack("{s:s}", "field", field), "%s", msg);
}

int da_read_hex(const json_t *obj, const char *prefix, const char *name, hex *out, api_error *err) {
    const json_t *v = json_object_get(obj, name);
    if (json_is_string(v) && hex_parse(json_string_value(v), out)) return 0;
    char p[JSON_IN_PATH_MAX];
    json_in_path(p, prefix, name);
    api_error_field(err, p, "a hex as printed on the map, four digits (\"1204\")");
    return -1;
}

static int read_when(const json_t *obj, const char *path, da_when *w, api_error *err) {
    char p[JSON_IN_PATH_MAX];
    json_in_path(p, path, "demoralized");
    const json_t *v = json_object_get(obj, "demoralized");
    if (!json_is_object(v)) {
        api_error_field(err, p, "{\"game_turn\", \"phase\"}");
        return -1;
    }
    return rules_in_int(v, p, "game_turn", true, 0, DA_GAME_TURN_MAX, &w->game_turn, err) != 0 ||
                   rules_in_int(v, p, "phase", true, 0, 2 * DA_PHASES - 1, &w->phase, err) != 0
               ? -1
               : 0;
}

/* Reads one unit; `charts` gives its class (NULL units chart: class I until an action needs the
 * chart and answers chart_missing). `in_state` admits the fields only the state carries. */
static int read_unit(const json_t *obj, const char *path, bool in_state, const json_t *charts,
                     da_unit *u, api_error *err) {
    static const char *const setup_keys[] = {"id",   "side",   "type", "hex", "facing",
                                             "name", "aboard", "bank", NULL};
    static const char *const state_keys[] = {
        "id",         "side",      "type",       "hex",          "facing",
        "name",       "aboard",    "bank",       "demoralized",  "panicked",
        "panic_edge", "moved",     "moved_from", "charge",       "fired",
        "meleed",     "allocated", "contact",    "mounted_type", "mount_of",
        "eliminated", "off_map",   "rallied",    "remounted",    "missile_target",
        NULL};
    memset(u, 0, sizeof *u);
    u->bank = -1;
    u->rallied = -1;
    u->panic_edge = -1;
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with id, side, type, hex, facing");
        return -1;
    }
    if (json_in_only_keys(obj, path, in_state ? state_keys : setup_keys, err) != 0 ||
        rules_in_text(obj, path, "id", true, u->id, sizeof u->id, err) != 0 ||
        rules_in_text(obj, path, "side", true, u->side, sizeof u->side, err) != 0 ||
        rules_in_text(obj, path, "type", true, u->type, sizeof u->type, err) != 0 ||
        da_read_hex(obj, path, "hex", &u->at, err) != 0 ||
        rules_in_text(obj, path, "name", false, u->name, sizeof u->name, err) != 0 ||
        rules_in_text(obj, path, "aboard", false, u->aboard, sizeof u->aboard, err) != 0 ||
        rules_in_enum(obj, path, "bank", false, dir_names, 0, &u->bank, err) != 0)
        return -1;
    char p[JSON_IN_PATH_MAX];
    const json_t *units_chart = json_object_get(charts, "units");
    if (in_state &&
        rules_in_text(obj, path, "mount_of", false, u->mount_of, sizeof u->mount_of, err) != 0)
        return -1;
    u->chart = json_object_get(units_chart, u->type);
    if (u->mount_of[0]) {
        u->cls = DA_MOUNT;
    } else if (units_chart && !u->chart) {
        json_in_path(p, path, "type");
        api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", p),
                      "unit '%s' is of type '%s', which setup.charts.units does not list", u->id,
                      u->type);
        return -1;
    } else if (u->chart) {
        int c = 0;
        if (rules_in_enum(u->chart, "", "class", true, class_names, 0, &c, err) != 0) return -1;
        if (c == DA_MOUNT) {
            api_error_set(err, 422, "invalid_state", NULL,
                          "unit type '%s' has class mount, which only a dismount makes", u->type);
            return -1;
        }
        u->cls = (da_class)c;
    }
    /* FACING: "Viking Fleet units are exempt from all Facing rules." */
    if (u->cls == DA_FLEET) {
        u->facing = HEX_N;
        if (rules_in_present(obj, "facing") &&
            rules_in_enum(obj, path, "facing", false, dir_names, 0, &u->facing, err) != 0)
            return -1;
    } else if (rules_in_enum(obj, path, "facing", true, dir_names, 0, &u->facing, err) != 0) {
        return -1;
    }
    if (!in_state) return 0;
    if (rules_in_present(obj, "demoralized")) {
        if (read_when(obj, path, &u->demoralized_since, err) != 0) return -1;
        u->demoralized = true;
    }
    static const char *const edges[] = {"north", "east", "south", "west", NULL};
    int charge = 0;
    if (rules_in_bool(obj, path, "panicked", &u->panicked, err) != 0 ||
        rules_in_enum(obj, path, "panic_edge", false, edges, 0, &u->panic_edge, err) != 0 ||
        rules_in_bool(obj, path, "moved", &u->moved, err) != 0 ||
        rules_in_int(obj, path, "charge", false, 0, 99, &charge, err) != 0 ||
        rules_in_bool(obj, path, "fired", &u->fired, err) != 0 ||
        rules_in_bool(obj, path, "meleed", &u->meleed, err) != 0 ||
        rules_in_bool(obj, path, "missile_target", &u->missile_target, err) != 0 ||
        rules_in_text(obj, path, "mounted_type", false, u->mounted_type, sizeof u->mounted_type,
                      err) != 0 ||
        rules_in_bool(obj, path, "eliminated", &u->eliminated, err) != 0 ||
        rules_in_bool(obj, path, "off_map", &u->off_map, err) != 0 ||
        rules_in_bool(obj, path, "remounted", &u->remounted, err) != 0 ||
        rules_in_int(obj, path, "rallied", false, -1, 2 * DA_GAME_TURN_MAX + 1, &u->rallied, err) !=
            0)
        return -1;
    u->charge = charge;
    if (u->moved && da_read_hex(obj, path, "moved_from", &u->moved_from, err) != 0) return -1;
    const json_t *al = json_object_get(obj, "allocated");
    if (al) {
        static const char *const al_keys[] = {"fire", "melee", NULL};
        json_in_path(p, path, "allocated");
        if (!json_is_object(al) || json_in_only_keys(al, p, al_keys, err) != 0 ||
            (json_object_get(al, "fire") &&
             da_read_hex(al, p, "fire", &u->fire_target, err) != 0) ||
            (json_object_get(al, "melee") &&
             da_read_hex(al, p, "melee", &u->melee_target, err) != 0)) {
            if (!err->status) api_error_field(err, p, "{\"fire\"?: hex, \"melee\"?: hex}");
            return -1;
        }
        u->alloc_fire = json_object_get(al, "fire") != NULL;
        u->alloc_melee = json_object_get(al, "melee") != NULL;
    }
    const json_t *contact = json_object_get(obj, "contact");
    if (contact) {
        json_in_path(p, path, "contact");
        if (!json_is_array(contact) || json_array_size(contact) > DA_CONTACT_MAX) {
            api_error_field(err, p, "an array of unit ids");
            return -1;
        }
        size_t i;
        const json_t *c;
        json_array_foreach(contact, i, c) {
            if (!json_is_string(c) || json_string_length(c) > UNIT_ID_MAX) {
                api_error_field(err, p, "an array of unit ids");
                return -1;
            }
            snprintf(u->contact[u->ncontact++], UNIT_ID_MAX + 1, "%s", json_string_value(c));
        }
    }
    return 0;
}

static json_t *when_json(da_when w) {
    return json_pack("{s:i, s:i}", "game_turn", w.game_turn, "phase", w.phase);
}

json_t *da_unit_to_json(const da_unit *u) {
    char at[HEX_NAME_MAX];
    hex_format(u->at, at);
    json_t *o =
        json_pack("{s:s, s:s, s:s, s:s}", "id", u->id, "side", u->side, "type", u->type, "hex", at);
    if (!o) return NULL;
    if (u->cls != DA_FLEET) json_object_set_new(o, "facing", json_string(hex_dir_name(u->facing)));
    if (u->name[0]) json_object_set_new(o, "name", json_string(u->name));
    if (u->aboard[0]) json_object_set_new(o, "aboard", json_string(u->aboard));
    if (u->bank >= 0) json_object_set_new(o, "bank", json_string(hex_dir_name(u->bank)));
    if (u->demoralized) json_object_set_new(o, "demoralized", when_json(u->demoralized_since));
    if (u->panicked) json_object_set_new(o, "panicked", json_true());
    if (u->panic_edge >= 0)
        json_object_set_new(o, "panic_edge", json_string(da_edge_name(u->panic_edge)));
    if (u->moved) {
        char from[HEX_NAME_MAX];
        hex_format(u->moved_from, from);
        json_object_set_new(o, "moved", json_true());
        json_object_set_new(o, "moved_from", json_string(from));
    }
    if (u->charge) json_object_set_new(o, "charge", json_integer(u->charge));
    if (u->fired) json_object_set_new(o, "fired", json_true());
    if (u->meleed) json_object_set_new(o, "meleed", json_true());
    if (u->missile_target) json_object_set_new(o, "missile_target", json_true());
    if (u->alloc_fire || u->alloc_melee) {
        char t[HEX_NAME_MAX];
        json_t *al = json_object();
        if (u->alloc_fire) {
            hex_format(u->fire_target, t);
            json_object_set_new(al, "fire", json_string(t));
        }
        if (u->alloc_melee) {
            hex_format(u->melee_target, t);
            json_object_set_new(al, "melee", json_string(t));
        }
        json_object_set_new(o, "allocated", al);
    }
    if (u->ncontact) {
        json_t *c = json_array();
        for (int i = 0; i < u->ncontact; i++)
            json_array_append_new(c, json_string(u->contact[i]));
        json_object_set_new(o, "contact", c);
    }
    if (u->mounted_type[0]) json_object_set_new(o, "mounted_type", json_string(u->mounted_type));
    if (u->mount_of[0]) json_object_set_new(o, "mount_of", json_string(u->mount_of));
    if (u->eliminated) json_object_set_new(o, "eliminated", json_true());
    if (u->off_map) json_object_set_new(o, "off_map", json_true());
    if (u->remounted) json_object_set_new(o, "remounted", json_true());
    if (u->rallied >= 0) json_object_set_new(o, "rallied", json_integer(u->rallied));
    return o;
}

/* ---- setup ---------------------------------------------------------------------------------- */

static int setup_fail(api_error *err, const char *path, const char *fmt, const char *a,
                      const char *b) {
    api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path), fmt, a, b);
    return -1;
}

/* Placement: on the map, sides that are the setup's, no two sides in a hex, a fleet's load. */
static int check_placement(da_unit *units, size_t n, const json_t *map, const json_t *streams,
                           const json_t *sides, api_error *err) {
    hex_grid g;
    hex_map_grid(map, &g);
    for (size_t i = 0; i < n; i++) {
        da_unit *u = &units[i];
        char path[JSON_IN_PATH_MAX], at[HEX_NAME_MAX], p[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        hex_format(u->at, at);
        if (!hex_on_grid(&g, u->at)) {
            json_in_path(p, path, "hex");
            return setup_fail(err, p, "unit '%s' stands on hex %s, which is not on the map", u->id,
                              at);
        }
        if (sides && !json_object_get(sides, u->side)) {
            json_in_path(p, path, "side");
            return setup_fail(err, p,
                              "unit '%s' is of side '%s', which setup.players does not list", u->id,
                              u->side);
        }
        unsigned terrain = hex_map_terrain(map, &da_map_spec, u->at);
        /* TEC (Clarification): "Units (except Viking Fleet units) may never enter a river hex
         * unless it is also a bridge hex." */
        if ((terrain & DA_F(DA_RIVER)) && !(terrain & DA_F(DA_BRIDGE)) && u->cls != DA_FLEET &&
            !u->aboard[0])
            return setup_fail(err, path,
                              "unit '%s' stands in river hex %s, off a bridge and not "
                              "aboard a fleet",
                              u->id, at);
        for (size_t j = 0; j < i; j++)
            if (hex_equal(units[j].at, u->at) && strcmp(units[j].side, u->side) != 0)
                return setup_fail(err, path, "unit '%s' shares hex %s with an enemy unit", u->id,
                                  at);
        /* bank: a hexside off the stream's course, in a stream hex with a course */
        if (u->bank >= 0) {
            const json_t *course = json_object_get(streams, at);
            int c[2] = {-1, -1};
            if (json_array_size(course) == 2) {
                c[0] = hex_dir_parse(json_string_value(json_array_get(course, 0)));
                c[1] = hex_dir_parse(json_string_value(json_array_get(course, 1)));
            }
            if (c[0] < 0 || c[1] < 0 || da_stream_bank(c, u->bank) < 0) {
                json_in_path(p, path, "bank");
                return setup_fail(err, p,
                                  "unit '%s': a bank is a hexside off the stream's course, in a "
                                  "stream hex that setup.streams gives a course (%s)",
                                  u->id, at);
            }
        }
        if (u->aboard[0] && (u->cls == DA_FLEET || strcmp(u->aboard, u->id) == 0)) {
            json_in_path(p, path, "aboard");
            return setup_fail(err, p,
                              "unit '%s' cannot be aboard '%s': only land units board a "
                              "fleet",
                              u->id, u->aboard);
        }
        if (u->aboard[0]) {
            const da_unit *f = NULL;
            int load = 0;
            for (size_t j = 0; j < n; j++) {
                if (strcmp(units[j].id, u->aboard) == 0) f = &units[j];
                if (j < i && strcmp(units[j].aboard, u->aboard) == 0 && da_combat(&units[j]))
                    load++;
            }
            json_in_path(p, path, "aboard");
            if (!f || f->cls != DA_FLEET || strcmp(f->side, u->side) != 0 ||
                !hex_equal(f->at, u->at))
                return setup_fail(err, p,
                                  "unit '%s' is aboard '%s', which is not a friendly Viking Fleet "
                                  "in its hex",
                                  u->id, u->aboard);
            if (da_combat(u) && load >= DA_FLEET_LOAD)
                return setup_fail(err, p,
                                  "fleet '%s' would carry more than three combat units (VIKING "
                                  "FLEETS (A)), with '%s'",
                                  u->aboard, u->id);
        }
        if (u->cls == DA_FLEET)
            for (size_t j = 0; j < i; j++)
                if (units[j].cls == DA_FLEET && hex_equal(units[j].at, u->at))
                    return setup_fail(err, path,
                                      "two Viking Fleet units in hex %s ('%s'): STACKING (C) "
                                      "allows one",
                                      at, u->id);
    }
    return 0;
}

json_t *da_units_from_setup(const json_t *units, const json_t *map, const json_t *streams,
                            const json_t *charts, const json_t *sides, api_error *err) {
    size_t n = json_array_size(units);
    da_unit *list = calloc(n ? n : 1, sizeof *list);
    json_t *out = json_array();
    if (!list || !out) goto fail;
    for (size_t i = 0; i < n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        da_unit *u = &list[i];
        if (read_unit(json_array_get(units, i), path, false, charts, u, err) != 0) goto fail;
        for (size_t j = 0; j < i; j++)
            if (strcmp(list[j].id, u->id) == 0) {
                char idp[JSON_IN_PATH_MAX];
                json_in_path(idp, path, "id");
                setup_fail(err, idp, "unit id '%s' is used twice%s", u->id, "");
                goto fail;
            }
    }
    if (check_placement(list, n, map, streams, sides, err) != 0) goto fail;
    for (size_t i = 0; i < n; i++)
        if (json_array_append_new(out, da_unit_to_json(&list[i])) != 0) goto fail;
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

int da_army_load(const json_t *state, da_army *army, api_error *err) {
    const json_t *units = json_object_get(state, "units");
    const json_t *charts = json_object_get(state, "charts");
    army->n = json_array_size(units);
    if (!json_is_array(units) || army->n > UNITS_MAX) {
        api_error_set(err, 422, "invalid_state", NULL,
                      "the state's units are not this ruleset's (an array of at most %d)",
                      UNITS_MAX);
        army->n = 0;
        army->units = NULL;
        return -1;
    }
    army->added = false;
    /* Room for one more (a dismount adds the riderless mount). */
    army->units = calloc(army->n + 1, sizeof *army->units);
    if (!army->units) {
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory while loading units");
        return -1;
    }
    for (size_t i = 0; i < army->n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "state.units", i);
        if (read_unit(json_array_get(units, i), path, true, charts, &army->units[i], err) != 0) {
            err->status = 422; /* not a state this module wrote */
            da_army_free(army);
            return -1;
        }
        army->units[i].index = (int)i;
    }
    return 0;
}

void da_army_free(da_army *army) {
    free(army->units);
    army->units = NULL;
    army->n = 0;
}

da_unit *da_army_append(da_army *army) {
    if (army->added || army->n >= UNITS_MAX) return NULL;
    da_unit *u = &army->units[army->n];
    memset(u, 0, sizeof *u);
    u->index = (int)army->n++;
    u->bank = u->rallied = u->panic_edge = -1;
    u->changed = true;
    army->added = true;
    return u;
}

da_unit *da_army_find(da_army *army, const char *id) {
    for (size_t i = 0; i < army->n; i++)
        if (strcmp(army->units[i].id, id) == 0) return &army->units[i];
    return NULL;
}

da_unit *da_army_get(da_army *army, const char *id, const char *field, api_error *err) {
    da_unit *u = da_army_find(army, id);
    if (!u) {
        rules_unknown_unit(err, field, id);
        return NULL;
    }
    if (!da_alive(u)) {
        rules_unit_gone(err, "unit_eliminated", field, "unit", id,
                        u->eliminated ? "is no longer on the map (eliminated)"
                                      : "is no longer on the map (left the map)");
        return NULL;
    }
    return u;
}

int da_check_owner(const char *actor, const da_unit *u, const char *field, api_error *err) {
    return rules_check_owner(actor, u->id, u->side, field, err);
}

da_unit *da_acting_unit(const rules_ctx *ctx, da_army *army, api_error *err) {
    const char *id = rules_acting_id(ctx, "this action needs the acting unit", err);
    da_unit *u = id ? da_army_get(army, id, "unit", err) : NULL;
    if (u && da_check_owner(ctx->actor, u, "unit", err) != 0) return NULL;
    return u;
}
