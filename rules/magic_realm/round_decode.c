/* Decoding and encoding the `round` action:
 *
 * {"order"?: "time"|"length"|"listed", "table"?, "kludge"?,
 *  "runs"?: [{"unit", "move_time", "with"?, "flying"?, "attackers"?}],
 *  "combatants": [
 *    {"unit": <character>, "maneuver": {"box"?, "move_time"} | null, "horse"?: {"box"?,
 *     "move_time"?}, "attacks"?: [{"target", "aim"?, "hit"?, "kind", "harm", "sharpness"?,
 *     "time", "length"?, "spell"?, "alerted"?, "box"?, "name"?}]},
 *    {"unit": <denizen>, "box", "target"?, "hit"?, "change_tactics"?, "horse"?: {...}}]}
 *
 * An attack may name one of the character's kit instead of its stats ({"target", "name",
 * "box"?, ...}), a maneuver likewise ({"box", "name"}), a run its maneuver ("maneuver": name).
 * With neither combatants nor runs the round resolves the plays in the state (play.c).
 *
 * Which of the two shapes an entry must have depends on the unit's kind in the session; the
 * resolver checks that (422 naming the field). */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"

#include <stdio.h>
#include <string.h>

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

static int read_attack(const json_t *obj, const char *path, mr_round_attack *a, api_error *err) {
    static const char *const keys[] = {"target",    "aim",  "hit",    "kind",  "harm",
                                       "sharpness", "time", "length", "spell", "alerted",
                                       "box",       "name", NULL};
    static const char *const aims[] = {"horse", "rider", NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an attack object with target, kind, harm and time");
        return -1;
    }
    return json_in_only_keys(obj, path, keys, err) != 0 ||
                   mr_in_id(obj, path, "target", true, a->target, err) != 0 ||
                   mr_in_enum(obj, path, "aim", false, aims, MR_AIM_HORSE, &a->aim, err) != 0 ||
                   mr_hit_decode(obj, path, &a->hit, err) != 0 ||
                   mr_attack_spec_decode(obj, path, &a->attack, err) != 0
               ? -1
               : 0;
}

int mr_combatant_decode(const json_t *obj, const char *path, bool need_unit, mr_combatant *c,
                        api_error *err) {
    static const char *const keys[] = {"unit",   "maneuver", "horse",          "attacks", "box",
                                       "target", "hit",      "change_tactics", NULL};
    static const char *const play_keys[] = {"maneuver", "horse",          "attacks", "box",
                                            "target",   "change_tactics", NULL};
    static const char *const maneuver_keys[] = {"box", "move_time", "name", NULL};
    static const char *const horse_keys[] = {"box", "move_time", NULL};
    char sub[JSON_IN_PATH_MAX];
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an object with unit");
        return -1;
    }
    c->horse_move_time = MR_UNSET;
    if (json_in_only_keys(obj, path, need_unit ? keys : play_keys, err) != 0 ||
        (need_unit && mr_in_id(obj, path, "unit", true, c->unit, err) != 0) ||
        mr_in_box(obj, path, "box", false, &c->box, err) != 0 ||
        mr_in_id(obj, path, "target", false, c->target, err) != 0 ||
        mr_hit_decode(obj, path, &c->hit, err) != 0)
        return -1;
    if (json_in_bool(obj, path, "change_tactics", false, &c->change_tactics) != 0) return take(err);

    json_t *m = json_object_get(obj, "maneuver");
    json_in_path(sub, path, "maneuver");
    if (m) {
        c->maneuver_given = true;
        if (!json_is_null(m)) {
            if (!json_is_object(m)) {
                api_error_field(err, sub, "an object with move_time (and box), or null");
                return -1;
            }
            c->maneuver.present = true;
            /* {"box", "name"}: a maneuver of the kit (its move time from there); or
             * {"box", "move_time"} (the referee) */
            if (json_in_only_keys(m, sub, maneuver_keys, err) != 0 ||
                mr_in_box(m, sub, "box", true, &c->maneuver.box, err) != 0 ||
                mr_in_name(m, sub, "name", c->maneuver_name, err) != 0 ||
                mr_in_int(m, sub, "move_time", !c->maneuver_name[0], 0, MR_TIME_MAX,
                          &c->maneuver.move_time, err) != 0)
                return -1;
            if (c->maneuver_name[0] && json_object_get(m, "move_time")) {
                char f[JSON_IN_PATH_MAX];
                json_in_path(f, sub, "move_time");
                api_error_field(err, f, "absent: the maneuver named gives the move time");
                return -1;
            }
        }
    }
    json_t *h = NULL;
    if (json_in_object(obj, path, "horse", false, &h) != 0) return take(err);
    json_in_path(sub, path, "horse");
    if (h) {
        c->horse_given = true;
        if (json_in_only_keys(h, sub, horse_keys, err) != 0 ||
            mr_in_box(h, sub, "box", true, &c->horse_box, err) != 0 ||
            mr_in_int(h, sub, "move_time", false, 0, MR_TIME_MAX, &c->horse_move_time, err) != 0)
            return -1;
    }
    json_t *attacks = NULL;
    if (json_in_array(obj, path, "attacks", false, MR_ATTACKS_MAX, &attacks) != 0) return take(err);
    json_in_path(sub, path, "attacks");
    size_t i;
    json_t *a;
    json_array_foreach(attacks, i, a) {
        char item[JSON_IN_PATH_MAX];
        json_in_path_index(item, sub, i);
        if (read_attack(a, item, &c->attacks[c->nattacks++], err) != 0) return -1;
    }
    return 0;
}

int mr_round_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"order", "table", "kludge", "runs", "combatants", NULL};
    static const char *const orders[] = {"time", "length", "listed", NULL};
    static const char *const run_keys[] = {"unit",   "maneuver",  "move_time", "with",
                                           "flying", "attackers", NULL};
    mr_round_action *r = out;
    json_t *runs = NULL, *combatants = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        mr_in_enum(fields, "", "order", false, orders, MR_ORDER_TIME, &r->order, err) != 0 ||
        mr_in_table(fields, "", &r->table, err) != 0 ||
        mr_in_tri(fields, "", "kludge", &r->kludge, err) != 0)
        return -1;
    if (json_in_array(fields, "", "runs", false, MR_RUNS_MAX, &runs) != 0 ||
        json_in_array(fields, "", "combatants", false, MR_COMBAT_MAX, &combatants) != 0)
        return take(err);
    size_t i;
    json_t *v;
    json_array_foreach(runs, i, v) {
        char item[JSON_IN_PATH_MAX];
        json_in_path_index(item, "runs", i);
        if (!json_is_object(v)) {
            api_error_field(err, item, "an object with unit and move_time");
            return -1;
        }
        if (json_in_only_keys(v, item, run_keys, err) != 0 ||
            mr_run_spec_decode(v, item, true, &r->runs[r->nruns++], err) != 0)
            return -1;
    }
    json_array_foreach(combatants, i, v) {
        char item[JSON_IN_PATH_MAX];
        json_in_path_index(item, "combatants", i);
        if (mr_combatant_decode(v, item, true, &r->c[r->ncombatants++], err) != 0) return -1;
    }
    /* Neither combatants nor runs: the round of the plays in the state (mr_round_of_plays). */
    return 0;
}

bool mr_round_from_plays(const mr_round_action *r) {
    return r->nruns == 0 && r->ncombatants == 0;
}

json_t *mr_combatant_encode(const mr_combatant *c) {
    json_t *o = c->unit[0] ? json_pack("{s:s}", "unit", c->unit) : json_object();
    if (c->maneuver_given) {
        if (c->maneuver.present) {
            /* box is optional: an absent box (0) is left out, never written as "none", which
             * would not decode again (found by fuzz_action_decode). */
            json_t *m = c->maneuver_name[0]
                            ? json_pack("{s:s}", "name", c->maneuver_name)
                            : json_pack("{s:i}", "move_time", c->maneuver.move_time);
            if (c->maneuver.box)
                json_object_set_new(m, "box", json_string(mr_box_maneuver_name(c->maneuver.box)));
            json_object_set_new(o, "maneuver", m);
        } else
            json_object_set_new(o, "maneuver", json_null());
    }
    if (c->horse_given) {
        json_t *h = json_object();
        if (c->horse_box)
            json_object_set_new(h, "box", json_string(mr_box_maneuver_name(c->horse_box)));
        if (c->horse_move_time != MR_UNSET)
            json_object_set_new(h, "move_time", json_integer(c->horse_move_time));
        json_object_set_new(o, "horse", h);
    }
    if (c->nattacks) {
        json_t *list = json_array();
        for (int i = 0; i < c->nattacks; i++) {
            const mr_round_attack *a = &c->attacks[i];
            json_t *ao = json_pack("{s:s}", "target", a->target);
            if (a->aim)
                json_object_set_new(ao, "aim",
                                    json_string(a->aim == MR_AIM_HORSE ? "horse" : "rider"));
            json_t *hit = mr_hit_encode(&a->hit);
            if (hit) json_object_set_new(ao, "hit", hit);
            mr_attack_spec_encode(&a->attack, ao);
            json_array_append_new(list, ao);
        }
        json_object_set_new(o, "attacks", list);
    }
    if (c->box) json_object_set_new(o, "box", json_string(mr_box_attack_name(c->box)));
    if (c->target[0]) json_object_set_new(o, "target", json_string(c->target));
    json_t *hit = mr_hit_encode(&c->hit);
    if (hit) json_object_set_new(o, "hit", hit);
    if (c->change_tactics) json_object_set_new(o, "change_tactics", json_true());
    return o;
}

json_t *mr_round_encode(const void *action) {
    static const char *const orders[] = {"", "time", "length", "listed"};
    const mr_round_action *r = action;
    json_t *o = json_object();
    if (r->order) json_object_set_new(o, "order", json_string(orders[r->order]));
    if (r->table != MR_TABLE_DEFAULT)
        json_object_set_new(o, "table", json_string(mr_table_name(r->table)));
    if (r->kludge != MR_UNSET) json_object_set_new(o, "kludge", json_boolean(r->kludge));
    if (r->nruns) {
        json_t *runs = json_array();
        for (int i = 0; i < r->nruns; i++) {
            json_t *ro = json_object();
            mr_run_spec_encode(&r->runs[i], ro);
            json_array_append_new(runs, ro);
        }
        json_object_set_new(o, "runs", runs);
    }
    json_t *list = json_array();
    for (int i = 0; i < r->ncombatants; i++)
        json_array_append_new(list, mr_combatant_encode(&r->c[i]));
    json_object_set_new(o, "combatants", list);
    return o;
}
