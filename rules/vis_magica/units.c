/* Bases: validating setup.units, reading them back from the state, writing changed ones into a
 * copy-on-write state, and the options.
 *
 * Base (setup and state): {"id", "side", "type": close_order|open_order|cavalry|chariots|other,
 *   "at": [x, y], "facing": 0-359, "strength", "name"?, "flying"?, "morale"?: good|shaken|routed
 *   (the state adds removed), "disordered"?, "orders"?, "movement"?, "range"?: {"short", "long"},
 *   "lost_this_phase"?, "flank_rear_casualties"? and "flank_rear_in_melee"? (state)} */
#include "rules/vis_magica/vm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/fields.h"
#include "rules/common/units.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vm_type_names[] = {"close_order", "open_order", "cavalry",
                                     "chariots",    "other",      NULL};
static const char *const morale_names[] = {"good", "shaken", "routed", "removed", NULL};
const char *const vm_terrain_types[] = {"difficult", "impassable", NULL};

const char *vm_type_name(vm_type t) {
    return vm_type_names[t];
}

const char *vm_morale_name(vm_morale m) {
    return morale_names[m];
}

void vm_rule_error(api_error *err, const char *field, const char *fmt, ...) {
    char msg[sizeof err->message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    api_error_set(err, 422, "rules_violation", json_pack("{s:s}", "field", field), "%s", msg);
}

static int read_len(const json_t *obj, const char *prefix, const char *name, int64_t *out,
                    api_error *err) {
    int v = (int)*out;
    if (rules_in_int(obj, prefix, name, false, 0, TABLE_COORD_MAX, &v, err) != 0) return -1;
    *out = v;
    return 0;
}

static int read_base(const json_t *obj, const char *path, bool in_state, vm_base *b,
                     api_error *err) {
    static const char *const keys[] = {"id",
                                       "side",
                                       "type",
                                       "at",
                                       "facing",
                                       "strength",
                                       "name",
                                       "flying",
                                       "morale",
                                       "disordered",
                                       "orders",
                                       "movement",
                                       "range",
                                       "lost_this_phase",
                                       "flank_rear_casualties",
                                       "flank_rear_in_melee",
                                       NULL};
    static const char *const range_keys[] = {"short", "long", NULL};
    memset(b, 0, sizeof *b);
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with id, side, type, at, facing, strength");
        return -1;
    }
    int type = 0, morale = VM_GOOD;
    if (json_in_only_keys(obj, path, keys, err) != 0 ||
        rules_in_text(obj, path, "id", true, b->id, sizeof b->id, err) != 0 ||
        rules_in_text(obj, path, "side", true, b->side, sizeof b->side, err) != 0 ||
        rules_in_enum(obj, path, "type", true, vm_type_names, 0, &type, err) != 0 ||
        table_pt_read(obj, path, "at", true, &b->at, err) != 0 ||
        rules_in_int(obj, path, "facing", true, 0, 359, &b->facing, err) != 0 ||
        rules_in_int(obj, path, "strength", true, in_state ? 0 : 1, 99, &b->strength, err) != 0 ||
        rules_in_text(obj, path, "name", false, b->name, sizeof b->name, err) != 0 ||
        rules_in_bool(obj, path, "flying", &b->flying, err) != 0 ||
        rules_in_enum(obj, path, "morale", false, morale_names, 0, &morale, err) != 0 ||
        rules_in_bool(obj, path, "disordered", &b->disordered, err) != 0 ||
        rules_in_text(obj, path, "orders", false, b->orders, sizeof b->orders, err) != 0 ||
        read_len(obj, path, "movement", &b->movement, err) != 0 ||
        rules_in_int(obj, path, "lost_this_phase", false, 0, 99, &b->lost_this_phase, err) != 0 ||
        rules_in_bool(obj, path, "flank_rear_casualties", &b->flank_rear_casualties, err) != 0 ||
        rules_in_bool(obj, path, "flank_rear_in_melee", &b->flank_rear_in_melee, err) != 0)
        return -1;
    b->type = (vm_type)type;
    b->morale = (vm_morale)morale;
    const json_t *range = rules_in_present(obj, "range");
    if (range) {
        char sub[JSON_IN_PATH_MAX];
        json_in_path(sub, path, "range");
        if (!json_is_object(range)) {
            api_error_field(err, sub, "{\"short\", \"long\"}");
            return -1;
        }
        if (json_in_only_keys(range, sub, range_keys, err) != 0 ||
            read_len(range, sub, "short", &b->range_short, err) != 0 ||
            read_len(range, sub, "long", &b->range_long, err) != 0)
            return -1;
        if (b->range_short <= 0 || b->range_long < b->range_short) {
            api_error_field(err, sub, "short > 0 and long >= short");
            return -1;
        }
    }
    if (!in_state && (b->morale == VM_REMOVED || b->lost_this_phase || b->flank_rear_casualties ||
                      b->flank_rear_in_melee)) {
        api_error_field(err, path,
                        "a setup base: morale good, shaken or routed, no casualties yet");
        return -1;
    }
    return 0;
}

json_t *vm_base_to_json(const vm_base *b) {
    json_t *o = json_pack("{s:s, s:s, s:s, s:o, s:i, s:i, s:s, s:b, s:i, s:b}", "id", b->id, "side",
                          b->side, "type", vm_type_name(b->type), "at", table_pt_json(b->at),
                          "facing", b->facing, "strength", b->strength, "morale",
                          vm_morale_name(b->morale), "disordered", b->disordered, "lost_this_phase",
                          b->lost_this_phase, "flank_rear_casualties", b->flank_rear_casualties);
    if (!o) return NULL;
    if (b->flank_rear_in_melee) json_object_set_new(o, "flank_rear_in_melee", json_true());
    if (b->name[0]) json_object_set_new(o, "name", json_string(b->name));
    if (b->flying) json_object_set_new(o, "flying", json_true());
    if (b->orders[0]) json_object_set_new(o, "orders", json_string(b->orders));
    if (b->movement) json_object_set_new(o, "movement", json_integer(b->movement));
    if (b->range_short)
        json_object_set_new(o, "range",
                            json_pack("{s:I, s:I}", "short", (json_int_t)b->range_short, "long",
                                      (json_int_t)b->range_long));
    return o;
}

json_t *vm_bases_from_setup(const json_t *units, api_error *err) {
    json_t *out = json_array();
    size_t n = json_array_size(units);
    for (size_t i = 0; out && i < n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "setup.units", i);
        vm_base b;
        if (read_base(json_array_get(units, i), path, false, &b, err) != 0) {
            json_decref(out);
            return NULL;
        }
        for (size_t j = 0; j < i; j++)
            if (strcmp(json_string_value(json_object_get(json_array_get(out, j), "id")), b.id) ==
                0) {
                api_error_set(err, 422, "invalid_setup", json_pack("{s:s+}", "field", path, ".id"),
                              "unit id '%s' is used twice", b.id);
                json_decref(out);
                return NULL;
            }
        json_array_append_new(out, vm_base_to_json(&b));
    }
    if (!out) api_error_set(err, 503, "out_of_memory", NULL, "out of memory reading the setup");
    return out;
}

int vm_table_load(const json_t *state, vm_table *t, api_error *err) {
    const json_t *units = json_object_get(state, "units");
    t->n = json_array_size(units);
    t->bases = calloc(t->n ? t->n : 1, sizeof *t->bases);
    if (!t->bases) {
        api_error_set(err, 503, "out_of_memory", NULL, "out of memory loading bases");
        return -1;
    }
    for (size_t i = 0; i < t->n; i++) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "state.units", i);
        if (read_base(json_array_get(units, i), path, true, &t->bases[i], err) != 0) {
            err->status = 422; /* a state this module did not write */
            vm_table_free(t);
            return -1;
        }
    }
    return 0;
}

void vm_table_free(vm_table *t) {
    free(t->bases);
    t->bases = NULL;
    t->n = 0;
}

vm_base *vm_table_get(vm_table *t, const char *id, const char *field, api_error *err) {
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->bases[i].id, id) == 0) {
            if (t->bases[i].morale == VM_REMOVED) {
                rules_unit_gone(err, "unit_removed", field, "base", id,
                                "has been removed from the field");
                return NULL;
            }
            return &t->bases[i];
        }
    rules_unknown_unit(err, field, id);
    return NULL;
}

vm_base *vm_acting(const rules_ctx *ctx, vm_table *t, api_error *err) {
    const char *id = rules_acting_id(ctx, "this action needs the acting base", err);
    return id ? vm_table_get(t, id, "unit", err) : NULL;
}

int vm_finish(const rules_ctx *ctx, vm_table *t, rules_outcome *out, api_error *err) {
    json_t *units = NULL, *next = rules_state_units_copy_new(ctx->state, &units);
    for (size_t i = 0; next && i < t->n; i++)
        if (t->bases[i].changed) json_array_set_new(units, i, vm_base_to_json(&t->bases[i]));
    vm_table_free(t);
    return rules_outcome_take_state(out, next, err);
}

int vm_options_check(const json_t *options, api_error *err) {
    static const char *const keys[] = {"measure", "resolution", "modifiers", "trust_claims", NULL};
    if (!options) return 0;
    if (!json_is_object(options)) {
        api_error_field(err, "options", "an object");
        return -1;
    }
    if (json_in_only_keys(options, "options", keys, err) != 0 ||
        table_measure_check(options, err) != 0 || claims_option_check(options, err) != 0)
        return -1;
    const json_t *mods = rules_in_present(options, "modifiers");
    if (!mods) return 0;
    if (!json_is_object(mods) || json_object_size(mods) > 32) {
        api_error_field(err, "options.modifiers",
                        "an object of at most 32 named morale modifiers, e.g. "
                        "{\"flank_or_rear_casualties\": -2}");
        return -1;
    }
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)mods, k, v) {
        if (!json_is_integer(v) || json_integer_value(v) < -20 || json_integer_value(v) > 20 ||
            strlen(k) == 0 || strlen(k) >= RULES_TERM_NAME_MAX) {
            char path[JSON_IN_PATH_MAX];
            json_in_path(path, "options.modifiers", k);
            api_error_field(err, path, "an integer -20..20 (names up to 47 bytes)");
            return -1;
        }
    }
    return 0;
}
