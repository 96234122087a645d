/* Decoding and encoding the parts the actions share: enumerations, the attack object, the
 * declared hit, the target (inline or a unit of the session) and a run's attackers. Every error
 * is a 400 invalid_field naming the field path; encode() writes what decode() reads back to the
 * same struct. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

static const json_t *present(const json_t *obj, const char *name) {
    return rules_in_present(obj, name);
}

int mr_in_table(const json_t *obj, const char *prefix, mr_table_id *out, api_error *err) {
    static const char *const names[] = {"revised", "second-edition", "standard", NULL};
    int t = MR_TABLE_DEFAULT;
    if (mr_in_enum(obj, prefix, "table", false, names, MR_TABLE_REVISED, &t, err) != 0) return -1;
    *out = (mr_table_id)t;
    return 0;
}

int mr_in_box(const json_t *obj, const char *prefix, const char *name, bool maneuver, int *out,
              api_error *err) {
    static const char *const attacks[] = {"thrust", "swing", "smash", NULL};
    static const char *const maneuvers[] = {"charge", "dodge", "duck", NULL};
    return mr_in_enum(obj, prefix, name, false, maneuver ? maneuvers : attacks,
                      MR_BOX_THRUST_CHARGE, out, err);
}

static int read_int(const json_t *obj, const char *prefix, const char *name, bool required, int lo,
                    int hi, int *out, api_error *err) {
    int64_t v = *out;
    if (json_in_int(obj, prefix, name, required, lo, hi, &v) != 0) return take(err);
    *out = (int)v;
    return 0;
}

/* ---- attack ------------------------------------------------------------------------------ */

int mr_attack_spec_decode(const json_t *obj, const char *prefix, mr_attack_spec *a,
                          api_error *err) {
    static const char *const kinds[] = {"striking", "missile", NULL};
    static const char *const spells[] = {"fiery-blast", "lightning-bolt", "stones-fly", NULL};
    static const char *const attackers[] = {"character", "denizen", NULL};
    static const char *const stat_keys[] = {"kind",   "harm",  "sharpness", "time",
                                            "length", "spell", "alerted",   NULL};
    int who = MR_UNSET;
    memset(a, 0, sizeof *a);
    a->present = true;
    a->s.length = MR_UNSET;
    a->attacker_denizen = MR_UNSET;
    a->alerted = MR_UNSET;
    a->red_side_up = MR_UNSET;
    for (const char *const *k = stat_keys; *k; k++)
        if (present(obj, *k)) a->stats_given = true;
    if (!a->stats_given && present(obj, "name")) {
        /* {"name", "box"?}: an attack of the attacker's kit, its stats taken from there */
        if (mr_in_box(obj, prefix, "box", false, &a->box, err) != 0 ||
            mr_in_name(obj, prefix, "name", a->name, err) != 0 ||
            mr_in_enum(obj, prefix, "attacker", false, attackers, 0, &who, err) != 0 ||
            mr_in_tri(obj, prefix, "red_side_up", &a->red_side_up, err) != 0)
            return -1;
        a->attacker_denizen = who;
        return 0;
    }
    a->stats_given = true;
    if (mr_in_enum(obj, prefix, "kind", true, kinds, MR_STRIKING, &a->s.kind, err) != 0 ||
        mr_in_level(obj, prefix, "harm", true, MR_L, &a->s.harm, err) != 0 ||
        read_int(obj, prefix, "sharpness", false, 0, 3, &a->s.sharpness, err) != 0 ||
        read_int(obj, prefix, "time", true, 0, MR_TIME_MAX, &a->s.time, err) != 0 ||
        read_int(obj, prefix, "length", false, 0, 20, &a->s.length, err) != 0 ||
        mr_in_enum(obj, prefix, "spell", false, spells, MR_SPELL_FIERY_BLAST, &a->spell, err) !=
            0 ||
        mr_in_tri(obj, prefix, "alerted", &a->alerted, err) != 0 ||
        mr_in_box(obj, prefix, "box", false, &a->box, err) != 0 ||
        mr_in_name(obj, prefix, "name", a->name, err) != 0 ||
        mr_in_enum(obj, prefix, "attacker", false, attackers, 0, &who, err) != 0 ||
        mr_in_tri(obj, prefix, "red_side_up", &a->red_side_up, err) != 0)
        return -1;
    a->attacker_denizen = who;
    a->sharpness_given = present(obj, "sharpness") != NULL;
    return 0;
}

void mr_attack_spec_encode(const mr_attack_spec *a, json_t *o) {
    if (!a->stats_given) {
        json_object_set_new(o, "name", json_string(a->name));
        if (a->box) json_object_set_new(o, "box", json_string(mr_box_attack_name(a->box)));
        if (a->attacker_denizen != MR_UNSET)
            json_object_set_new(o, "attacker",
                                json_string(a->attacker_denizen ? "denizen" : "character"));
        if (a->red_side_up != MR_UNSET)
            json_object_set_new(o, "red_side_up", json_boolean(a->red_side_up));
        return;
    }
    json_object_set_new(o, "kind", json_string(a->s.kind == MR_MISSILE ? "missile" : "striking"));
    json_object_set_new(o, "harm", json_string(mr_level_name(a->s.harm)));
    json_object_set_new(o, "sharpness", json_integer(a->s.sharpness));
    json_object_set_new(o, "time", json_integer(a->s.time));
    if (a->s.length != MR_UNSET) json_object_set_new(o, "length", json_integer(a->s.length));
    if (a->spell) json_object_set_new(o, "spell", json_string(mr_spell_name(a->spell)));
    if (a->alerted != MR_UNSET) json_object_set_new(o, "alerted", json_boolean(a->alerted));
    if (a->box) json_object_set_new(o, "box", json_string(mr_box_attack_name(a->box)));
    if (a->name[0]) json_object_set_new(o, "name", json_string(a->name));
    if (a->attacker_denizen != MR_UNSET)
        json_object_set_new(o, "attacker",
                            json_string(a->attacker_denizen ? "denizen" : "character"));
    if (a->red_side_up != MR_UNSET)
        json_object_set_new(o, "red_side_up", json_boolean(a->red_side_up));
}

/* ---- hit --------------------------------------------------------------------------------- */

int mr_hit_decode(const json_t *obj, const char *prefix, mr_hit_spec *h, api_error *err) {
    static const char *const horse_hits[] = {"intercept", "undercut", "miss", NULL};
    static const char *const rider_hits[] = {"intercept", "undercut", NULL};
    memset(h, 0, sizeof *h);
    const json_t *v = present(obj, "hit");
    if (!v) return 0;
    if (json_is_object(v)) {
        static const char *const keys[] = {"horse", "rider", NULL};
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, "hit");
        h->pair = true;
        return json_in_only_keys(v, path, keys, err) != 0 ||
                       mr_in_enum(v, path, "horse", true, horse_hits, MR_HIT_INTERCEPT, &h->horse,
                                  err) != 0 ||
                       mr_in_enum(v, path, "rider", true, rider_hits, MR_HIT_INTERCEPT, &h->rider,
                                  err) != 0
                   ? -1
                   : 0;
    }
    if (mr_in_enum(obj, prefix, "hit", false, horse_hits, MR_HIT_INTERCEPT, &h->simple, err) == 0)
        return 0;
    char path[JSON_IN_PATH_MAX];
    json_in_path(path, prefix, "hit");
    api_error_field(err, path, "intercept, undercut, miss, or {\"horse\", \"rider\"}");
    return -1;
}

json_t *mr_hit_encode(const mr_hit_spec *h) {
    if (h->pair)
        return json_pack("{s:s, s:s}", "horse", mr_hit_name(h->horse), "rider",
                         mr_hit_name(h->rider));
    return h->simple ? json_string(mr_hit_name(h->simple)) : NULL;
}

/* ---- target ------------------------------------------------------------------------------ */

static int read_aim(const json_t *obj, const char *prefix, int *aim, api_error *err) {
    static const char *const aims[] = {"horse", "rider", NULL};
    return mr_in_enum(obj, prefix, "aim", false, aims, MR_AIM_HORSE, aim, err);
}

static int read_target_horse(const json_t *obj, const char *prefix, bool inline_, mr_horse_spec *h,
                             api_error *err) {
    static const char *const inline_keys[] = {"move_time", "vulnerability", "armored", NULL};
    static const char *const unit_keys[] = {"move_time", NULL};
    json_t *v = NULL;
    char path[JSON_IN_PATH_MAX];
    if (json_in_object(obj, prefix, "horse", false, &v) != 0) return take(err);
    if (!v) return 0;
    json_in_path(path, prefix, "horse");
    h->present = true;
    h->move_time = MR_UNSET;
    h->armored = MR_UNSET;
    return json_in_only_keys(v, path, inline_ ? inline_keys : unit_keys, err) != 0 ||
                   read_int(v, path, "move_time", inline_, 0, MR_TIME_MAX, &h->move_time, err) !=
                       0 ||
                   mr_in_level(v, path, "vulnerability", false, MR_L, &h->vulnerability, err) !=
                       0 ||
                   mr_in_tri(v, path, "armored", &h->armored, err) != 0
               ? -1
               : 0;
}

/* move_time: an integer, or null for a character who played no maneuver. */
static int read_move_time(const json_t *obj, const char *prefix, bool required, bool null_ok,
                          mr_target_spec *t, api_error *err) {
    const json_t *v = json_object_get(obj, "move_time");
    t->move_time = MR_UNSET;
    if (v && json_is_null(v) && null_ok) {
        t->no_maneuver = true;
        return 0;
    }
    if (!v && required) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, "move_time");
        api_error_field(err, path,
                        null_ok ? "an integer move time, or null for no maneuver"
                                : "an integer move time");
        return -1;
    }
    return read_int(obj, prefix, "move_time", false, 0, MR_TIME_MAX, &t->move_time, err);
}

int mr_target_decode(const json_t *obj, const char *prefix, mr_target_spec *t, api_error *err) {
    static const char *const unit_keys[] = {"unit", "move_time", "horse", "aim", NULL};
    static const char *const denizen_keys[] = {
        "kind", "vulnerability", "armored", "move_time", "red_side_up", "horse", "aim", NULL};
    static const char *const character_keys[] = {"kind",  "vulnerability", "armor", "move_time",
                                                 "horse", "aim",           NULL};
    static const char *const kinds[] = {"character", "denizen", NULL};
    memset(t, 0, sizeof *t);
    t->present = true;
    t->armored = MR_UNSET;
    t->red_side_up = MR_UNSET;
    if (!json_is_object(obj)) {
        api_error_field(err, prefix, "an object: an inline target, or {\"unit\": id}");
        return -1;
    }
    if (present(obj, "unit")) {
        return json_in_only_keys(obj, prefix, unit_keys, err) != 0 ||
                       mr_in_id(obj, prefix, "unit", true, t->unit, err) != 0 ||
                       read_move_time(obj, prefix, false, true, t, err) != 0 ||
                       read_target_horse(obj, prefix, false, &t->horse, err) != 0 ||
                       read_aim(obj, prefix, &t->aim, err) != 0
                   ? -1
                   : 0;
    }
    if (mr_in_enum(obj, prefix, "kind", true, kinds, MR_KIND_CHARACTER, &t->kind, err) != 0 ||
        json_in_only_keys(obj, prefix, t->kind == MR_KIND_DENIZEN ? denizen_keys : character_keys,
                          err) != 0 ||
        mr_in_level(obj, prefix, "vulnerability", true, MR_L, &t->vulnerability, err) != 0 ||
        read_move_time(obj, prefix, true, t->kind == MR_KIND_CHARACTER, t, err) != 0 ||
        read_target_horse(obj, prefix, true, &t->horse, err) != 0 ||
        read_aim(obj, prefix, &t->aim, err) != 0)
        return -1;
    if (t->kind == MR_KIND_DENIZEN)
        return mr_in_tri(obj, prefix, "armored", &t->armored, err) != 0 ||
                       mr_in_tri(obj, prefix, "red_side_up", &t->red_side_up, err) != 0
                   ? -1
                   : 0;
    json_t *armor = NULL;
    if (json_in_array(obj, prefix, "armor", false, MR_ARMOR_MAX, &armor) != 0) return take(err);
    char path[JSON_IN_PATH_MAX];
    json_in_path(path, prefix, "armor");
    size_t i;
    json_t *a;
    json_array_foreach(armor, i, a) {
        char item[JSON_IN_PATH_MAX];
        json_in_path_index(item, path, i);
        if (mr_armor_decode(a, item, true, &t->armor[t->narmor++], err) != 0) return -1;
    }
    return 0;
}

json_t *mr_target_encode(const mr_target_spec *t) {
    json_t *o = json_object();
    if (t->unit[0]) {
        json_object_set_new(o, "unit", json_string(t->unit));
    } else {
        json_object_set_new(o, "kind",
                            json_string(t->kind == MR_KIND_DENIZEN ? "denizen" : "character"));
        json_object_set_new(o, "vulnerability", json_string(mr_level_name(t->vulnerability)));
        if (t->armored != MR_UNSET) json_object_set_new(o, "armored", json_boolean(t->armored));
        if (t->red_side_up != MR_UNSET)
            json_object_set_new(o, "red_side_up", json_boolean(t->red_side_up));
        if (t->kind == MR_KIND_CHARACTER) {
            json_t *armor = json_array();
            for (int i = 0; i < t->narmor; i++)
                json_array_append_new(armor, mr_armor_encode(&t->armor[i], true));
            json_object_set_new(o, "armor", armor);
        }
    }
    if (t->no_maneuver)
        json_object_set_new(o, "move_time", json_null());
    else if (t->move_time != MR_UNSET)
        json_object_set_new(o, "move_time", json_integer(t->move_time));
    if (t->horse.present) {
        json_t *h = json_object();
        if (t->horse.move_time != MR_UNSET)
            json_object_set_new(h, "move_time", json_integer(t->horse.move_time));
        if (t->horse.vulnerability)
            json_object_set_new(h, "vulnerability",
                                json_string(mr_level_name(t->horse.vulnerability)));
        if (t->horse.armored != MR_UNSET)
            json_object_set_new(h, "armored", json_boolean(t->horse.armored));
        json_object_set_new(o, "horse", h);
    }
    if (t->aim)
        json_object_set_new(o, "aim", json_string(t->aim == MR_AIM_HORSE ? "horse" : "rider"));
    return o;
}

/* ---- run --------------------------------------------------------------------------------- */

static int read_attacker(const json_t *v, const char *path, mr_attacker_ref *a, api_error *err) {
    static const char *const keys[] = {"move_time", "flying", "red_side_up", NULL};
    memset(a, 0, sizeof *a);
    if (json_is_string(v)) {
        json_t *holder = json_pack("{s:O}", "unit", v);
        int rc = holder ? mr_in_id(holder, "", "unit", true, a->unit, err) : -1;
        json_decref(holder);
        if (rc != 0) api_error_field(err, path, "a unit id, or {\"move_time\", \"flying\"?}");
        return rc;
    }
    if (!json_is_object(v)) {
        api_error_field(err, path, "a unit id, or {\"move_time\", \"flying\"?}");
        return -1;
    }
    if (json_in_only_keys(v, path, keys, err) != 0 ||
        read_int(v, path, "move_time", true, 0, MR_TIME_MAX, &a->move_time, err) != 0)
        return -1;
    if (json_in_bool(v, path, "flying", false, &a->flying) != 0 ||
        json_in_bool(v, path, "red_side_up", false, &a->red_side_up) != 0)
        return take(err);
    return 0;
}

int mr_run_spec_decode(const json_t *obj, const char *prefix, bool round_entry, mr_run_spec *r,
                       api_error *err) {
    static const char *const withs[] = {"move", "boots", "horse", NULL};
    json_t *attackers = NULL;
    memset(r, 0, sizeof *r);
    r->move_time = MR_UNSET;
    if ((round_entry && mr_in_id(obj, prefix, "unit", true, r->unit, err) != 0) ||
        mr_in_name(obj, prefix, "maneuver", r->maneuver, err) != 0 ||
        read_int(obj, prefix, "move_time", false, 0, MR_TIME_MAX, &r->move_time, err) != 0 ||
        mr_in_enum(obj, prefix, "with", false, withs, MR_WITH_MOVE, &r->with, err) != 0)
        return -1;
    if (json_in_bool(obj, prefix, "flying", false, &r->flying) != 0 ||
        json_in_array(obj, prefix, "attackers", !round_entry, MR_ATTACKERS_MAX, &attackers) != 0)
        return take(err);
    if (r->maneuver[0] && r->move_time != MR_UNSET) {
        char path[JSON_IN_PATH_MAX];
        json_in_path(path, prefix, "move_time");
        api_error_field(err, path, "absent: the maneuver named gives the move time");
        return -1;
    }
    r->attackers_given = attackers != NULL;
    char path[JSON_IN_PATH_MAX];
    json_in_path(path, prefix, "attackers");
    size_t i;
    json_t *v;
    json_array_foreach(attackers, i, v) {
        char item[JSON_IN_PATH_MAX];
        json_in_path_index(item, path, i);
        if (read_attacker(v, item, &r->attackers[r->nattackers++], err) != 0) return -1;
    }
    return 0;
}

void mr_run_spec_encode(const mr_run_spec *r, json_t *o) {
    static const char *const withs[] = {"move", "boots", "horse"};
    if (r->unit[0]) json_object_set_new(o, "unit", json_string(r->unit));
    if (r->maneuver[0]) json_object_set_new(o, "maneuver", json_string(r->maneuver));
    if (r->move_time != MR_UNSET) json_object_set_new(o, "move_time", json_integer(r->move_time));
    json_object_set_new(o, "with", json_string(withs[r->with]));
    json_object_set_new(o, "flying", json_boolean(r->flying));
    if (!r->attackers_given) return;
    json_t *list = json_array();
    for (int i = 0; i < r->nattackers; i++) {
        const mr_attacker_ref *a = &r->attackers[i];
        if (a->unit[0])
            json_array_append_new(list, json_string(a->unit));
        else
            json_array_append_new(list,
                                  json_pack("{s:i, s:b, s:b}", "move_time", a->move_time, "flying",
                                            a->flying, "red_side_up", a->red_side_up));
    }
    json_object_set_new(o, "attackers", list);
}
