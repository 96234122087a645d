/* Units: validating setup.units, reading them back from the state, writing changed ones into a
 * copy-on-write state, and the options.
 *
 * Unit (setup and state): {"id", "side", "type": line_infantry|light_infantry|cavalry|artillery,
 *   "quality": elite|regular|poor|militia, "at": [x, y], "facing": 0-359, "movement" (a full
 *   move), "effectiveness"?: 100|75|50|25 (default 100), "hits_per_quarter"? (default 1),
 *   "general"?, "name"?; the state adds "state" (normal|retreating|eliminated), "hits",
 *   "hits_this_turn", "retreat_from", "supporting", "engaged", "engaged_turn" (the turn of the
 *   tie)} */
#include "rules/horse_and_musket/hm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/fields.h"
#include "rules/common/json_build.h"
#include "rules/common/units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const hm_type_names[] = {"line_infantry", "light_infantry", "cavalry", "artillery",
                                     NULL};
static const char *const quality_names[] = {"elite", "regular", "poor", "militia", NULL};
static const char *const state_names[] = {"normal", "retreating", "eliminated", NULL};

const char *hm_type_name(hm_type t) {
    return hm_type_names[t];
}

const char *hm_quality_name(hm_quality q) {
    return quality_names[q];
}

const char *hm_state_name(hm_state s) {
    return state_names[s];
}

void hm_rule_error(api_error *err, const char *field, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "rules_violation", json_pack("{s:s}", "field", field), "%s", msg);
}

static int read_unit(const json_t *obj, const char *path, bool in_state, hm_unit *u,
                     api_error *err) {
    static const char *const keys[] = {"id",
                                       "side",
                                       "type",
                                       "quality",
                                       "at",
                                       "facing",
                                       "movement",
                                       "effectiveness",
                                       "hits_per_quarter",
                                       "general",
                                       "name",
                                       "state",
                                       "hits",
                                       "hits_this_turn",
                                       "retreat_from",
                                       "supporting",
                                       "engaged",
                                       "engaged_turn",
                                       NULL};
    memset(u, 0, sizeof *u);
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with id, side, type, quality, at, facing, movement");
        return -1;
    }
    int type = 0, quality = 0, state = HM_NORMAL, eff = 100, movement = 0;
    u->hits_per_quarter = 1;
    if (json_in_only_keys(obj, path, keys, err) != 0 ||
        rules_in_text(obj, path, "id", true, u->id, sizeof u->id, err) != 0 ||
        rules_in_text(obj, path, "side", true, u->side, sizeof u->side, err) != 0 ||
        rules_in_enum(obj, path, "type", true, hm_type_names, 0, &type, err) != 0 ||
        rules_in_enum(obj, path, "quality", true, quality_names, 0, &quality, err) != 0 ||
        table_pt_read(obj, path, "at", true, &u->at, err) != 0 ||
        rules_in_int(obj, path, "facing", true, 0, 359, &u->facing, err) != 0 ||
        rules_in_int(obj, path, "movement", true, 1, TABLE_COORD_MAX, &movement, err) != 0 ||
        rules_in_int(obj, path, "effectiveness", false, 0, 100, &eff, err) != 0 ||
        rules_in_int(obj, path, "hits_per_quarter", false, 1, 99, &u->hits_per_quarter, err) != 0 ||
        rules_in_text(obj, path, "general", false, u->general, sizeof u->general, err) != 0 ||
        rules_in_text(obj, path, "name", false, u->name, sizeof u->name, err) != 0)
        return -1;
    if (eff % 25 != 0 || (!in_state && eff == 0)) {
        char sub[JSON_IN_PATH_MAX];
        json_in_path(sub, path, "effectiveness");
        api_error_field(err, sub, in_state ? "0, 25, 50, 75 or 100" : "25, 50, 75 or 100");
        return -1;
    }
    u->type = (hm_type)type;
    u->quality = (hm_quality)quality;
    u->quarters = eff / 25;
    u->movement = movement;
    if (in_state &&
        (rules_in_enum(obj, path, "state", false, state_names, 0, &state, err) != 0 ||
         rules_in_int(obj, path, "hits", false, 0, 99, &u->hits, err) != 0 ||
         rules_in_int(obj, path, "hits_this_turn", false, 0, 999, &u->hits_this_turn, err) != 0 ||
         table_pt_read(obj, path, "retreat_from", false, &u->retreat_from, err) != 0 ||
         rules_in_text(obj, path, "supporting", false, u->supporting, sizeof u->supporting, err) !=
             0 ||
         rules_in_text(obj, path, "engaged", false, u->engaged, sizeof u->engaged, err) != 0 ||
         rules_in_int(obj, path, "engaged_turn", false, 0, 1000000, &u->engaged_turn, err) != 0))
        return -1;
    if (!in_state) {
        static const char *const state_only[] = {"state",        "hits",       "hits_this_turn",
                                                 "retreat_from", "supporting", "engaged",
                                                 "engaged_turn", NULL};
        for (const char *const *k = state_only; *k; k++)
            if (rules_in_present(obj, *k)) {
                char sub[JSON_IN_PATH_MAX];
                json_in_path(sub, path, *k);
                api_error_field(err, sub, "absent in a setup (the game keeps it)");
                return -1;
            }
    }
    u->state = (hm_state)state;
    return 0;
}

json_t *hm_unit_to_json(const hm_unit *u) {
    json_t *o = json_object();
    rules_set_str(o, "id", u->id);
    rules_set_str(o, "side", u->side);
    rules_set_str(o, "type", hm_type_name(u->type));
    rules_set_str(o, "quality", hm_quality_name(u->quality));
    rules_set_new(o, "at", table_pt_json(u->at));
    rules_set_int(o, "facing", u->facing);
    rules_set_int(o, "movement", (json_int_t)u->movement);
    rules_set_int(o, "effectiveness", u->quarters * 25);
    rules_set_int(o, "hits_per_quarter", u->hits_per_quarter);
    rules_set_str(o, "state", hm_state_name(u->state));
    rules_set_int(o, "hits", u->hits);
    rules_set_int(o, "hits_this_turn", u->hits_this_turn);
    if (!o) return NULL;
    if (u->name[0]) json_object_set_new(o, "name", json_string(u->name));
    if (u->general[0]) json_object_set_new(o, "general", json_string(u->general));
    if (u->state == HM_RETREATING)
        json_object_set_new(o, "retreat_from", table_pt_json(u->retreat_from));
    if (u->supporting[0]) json_object_set_new(o, "supporting", json_string(u->supporting));
    if (u->engaged[0]) json_object_set_new(o, "engaged", json_string(u->engaged));
    if (u->engaged[0] && u->engaged_turn)
        json_object_set_new(o, "engaged_turn", json_integer(u->engaged_turn));
    return o;
}

json_t *hm_units_from_setup(const json_t *units, api_error *err) {
    json_t *out = json_array();
    size_t n = json_array_size(units);
    for (size_t i = 0; out && i < n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        hm_unit u;
        if (read_unit(json_array_get(units, i), path, false, &u, err) != 0) {
            json_decref(out);
            return NULL;
        }
        for (size_t j = 0; j < i; j++) {
            const json_t *other = json_array_get(out, j);
            const char *g = json_string_value(json_object_get(other, "general"));
            bool dup_id = strcmp(json_string_value(json_object_get(other, "id")), u.id) == 0;
            if (dup_id || (u.general[0] && g && strcmp(g, u.general) == 0)) {
                api_error_set(err, 422, "invalid_setup",
                              json_pack("{s:s+}", "field", path, dup_id ? ".id" : ".general"),
                              dup_id ? "unit id '%s' is used twice"
                                     : "general '%s' is attached to two units",
                              dup_id ? u.id : u.general);
                json_decref(out);
                return NULL;
            }
        }
        json_array_append_new(out, hm_unit_to_json(&u));
    }
    if (!out) api_error_set(err, 503, "out_of_memory", NULL, "out of memory reading the setup");
    return out;
}

int hm_army_load(const json_t *state, hm_army *a, api_error *err) {
    const json_t *units = json_object_get(state, "units");
    a->n = json_array_size(units);
    a->units = calloc(a->n ? a->n : 1, sizeof *a->units);
    if (!a->units) {
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory loading units");
        return -1;
    }
    for (size_t i = 0; i < a->n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "state.units", i);
        if (read_unit(json_array_get(units, i), path, true, &a->units[i], err) != 0) {
            err->status = 422; /* a state this module did not write */
            hm_army_free(a);
            return -1;
        }
    }
    return 0;
}

void hm_army_free(hm_army *a) {
    free(a->units);
    a->units = NULL;
    a->n = 0;
}

hm_unit *hm_army_get(hm_army *a, const char *id, const char *field, api_error *err) {
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->units[i].id, id) == 0) {
            if (a->units[i].state == HM_ELIMINATED) {
                rules_unit_gone(err, "unit_eliminated", field, "unit", id, "has been eliminated");
                return NULL;
            }
            return &a->units[i];
        }
    rules_unknown_unit(err, field, id);
    return NULL;
}

hm_unit *hm_acting(const rules_ctx *ctx, hm_army *a, api_error *err) {
    const char *id = rules_acting_id(ctx, "this action needs the acting unit", err);
    return id ? hm_army_get(a, id, "unit", err) : NULL;
}

int hm_finish(const rules_ctx *ctx, hm_army *a, rules_outcome *out, api_error *err) {
    json_t *units = NULL, *next = rules_state_units_copy_new(ctx->state, &units);
    for (size_t i = 0; next && i < a->n; i++)
        if (a->units[i].changed) json_array_set_new(units, i, hm_unit_to_json(&a->units[i]));
    hm_army_free(a);
    return rules_outcome_take_state(out, next, err);
}

int hm_options_check(const json_t *options, api_error *err) {
    static const char *const keys[] = {"measure",     "resolution",   "hits",
                                       "base_radius", "trust_claims", NULL};
    static const char *const hits[] = {"given", "rolled", NULL};
    if (!options) return 0;
    if (!json_is_object(options)) {
        api_error_field(err, "options", "an object");
        return -1;
    }
    int v = 0;
    if (json_in_only_keys(options, "options", keys, err) != 0 ||
        table_measure_check(options, err) != 0 ||
        rules_in_enum(options, "options", "hits", false, hits, 0, &v, err) != 0 ||
        rules_in_int(options, "options", "base_radius", false, 1, TABLE_COORD_MAX, &v, err) != 0 ||
        claims_option_check(options, err) != 0)
        return -1;
    return 0;
}

bool hm_hits_rolled(const json_t *options) {
    const char *h = json_string_value(json_object_get(options, "hits"));
    return h && strcmp(h, "rolled") == 0;
}

int64_t hm_base_contact(const json_t *options) {
    const json_t *r = json_object_get(options, "base_radius");
    if (json_is_integer(r) && json_integer_value(r) > 0) return 2 * json_integer_value(r);
    table_measure m;
    table_measure_read(options, &m);
    /* House default: bases are discs of half an inch (1.5 cm) around their centre, so two touch
     * with their centres one inch (3 cm) apart: the resolution (three times it), an integer at
     * every resolution, where the radius alone (0.5 at resolution 1) is not. */
    return strcmp(m.unit, "cm") == 0 ? 3 * (int64_t)m.resolution : (int64_t)m.resolution;
}
