/* Each character's kit (issue 23, item 2): the attacks and maneuvers he may play, by name, with
 * their stats, as setup lists them:
 *
 *   "attacks": [{"name": "Broadsword, F M4**", "kind": "striking", "harm": "M", "sharpness": 2,
 *                "time": 4, "length": 5, "spell"?, "alerted"?}],
 *   "maneuvers": [{"name": "Move H4**", "move_time": 4, "kind"?: "move"|"boots"}]
 *
 * In a session an attack, a maneuver or a run names one of them and the umpire takes its stats
 * from here: the acting side states no fact about its own weapon. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <string.h>

#define LENGTH_MAX 20

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

/* The name of a kit item: required, unique within its list. */
static int read_item_name(const json_t *obj, const char *path, char *out, const char *list, int n,
                          size_t stride, api_error *err) {
    if (mr_in_name(obj, path, "name", out, err) != 0) return -1;
    if (!out[0]) {
        char f[JSON_IN_PATH_MAX];
        json_in_path(f, path, "name");
        api_error_field(err, f, "a name, e.g. \"Broadsword, F M4**\" (at most 40 bytes)");
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (strcmp(list + (size_t)i * stride, out) == 0) {
            api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path),
                          "the kit lists '%s' twice", out);
            return -1;
        }
    return 0;
}

static int read_attack(const json_t *obj, const char *path, mr_unit *u, api_error *err) {
    static const char *const keys[] = {"name",   "kind",  "harm",    "sharpness", "time",
                                       "length", "spell", "alerted", NULL};
    static const char *const kinds[] = {"striking", "missile", NULL};
    static const char *const spells[] = {"fiery-blast", "lightning-bolt", "stones-fly", NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, path, "an attack {name, kind, harm, sharpness?, time, length?}");
        return -1;
    }
    mr_kit_attack *a = &u->kit_attacks[u->nkit_attacks];
    memset(a, 0, sizeof *a);
    a->s.kind = MR_STRIKING;
    if (json_in_only_keys(obj, path, keys, err) != 0 ||
        read_item_name(obj, path, a->name, u->kit_attacks[0].name, u->nkit_attacks,
                       sizeof(mr_kit_attack), err) != 0 ||
        mr_in_enum(obj, path, "kind", false, kinds, MR_STRIKING, &a->s.kind, err) != 0 ||
        mr_in_level(obj, path, "harm", true, MR_L, &a->s.harm, err) != 0 ||
        mr_in_int(obj, path, "sharpness", false, 0, 3, &a->s.sharpness, err) != 0 ||
        mr_in_int(obj, path, "time", true, 0, MR_TIME_MAX, &a->s.time, err) != 0 ||
        mr_in_int(obj, path, "length", false, 0, LENGTH_MAX, &a->s.length, err) != 0 ||
        mr_in_enum(obj, path, "spell", false, spells, MR_SPELL_FIERY_BLAST, &a->spell, err) != 0)
        return -1;
    if (json_in_bool(obj, path, "alerted", false, &a->alerted) != 0) return take(err);
    /* The rules checks of an attack (strike.c's, repeated here so that units do not call
     * strikes): a spell is a missile; an alerted attack spell has time 0 (5.6). */
    if (a->spell && (a->s.kind != MR_MISSILE || (a->alerted && a->s.time != 0))) {
        api_error_set(err, 422, "invalid_setup", json_pack("{s:s}", "field", path),
                      "%s: a spell is a missile attack, and an alerted one attacks at time 0",
                      a->name);
        return -1;
    }
    u->nkit_attacks++;
    return 0;
}

static int read_maneuver(const json_t *obj, const char *path, mr_unit *u, api_error *err) {
    static const char *const keys[] = {"name", "move_time", "kind", NULL};
    static const char *const kinds[] = {"move", "boots", NULL};
    if (!json_is_object(obj)) {
        api_error_field(err, path, "a maneuver {name, move_time, kind?: move|boots}");
        return -1;
    }
    mr_kit_maneuver *m = &u->kit_maneuvers[u->nkit_maneuvers];
    memset(m, 0, sizeof *m);
    if (json_in_only_keys(obj, path, keys, err) != 0 ||
        read_item_name(obj, path, m->name, u->kit_maneuvers[0].name, u->nkit_maneuvers,
                       sizeof(mr_kit_maneuver), err) != 0 ||
        mr_in_int(obj, path, "move_time", true, 0, MR_TIME_MAX, &m->move_time, err) != 0 ||
        mr_in_enum(obj, path, "kind", false, kinds, MR_WITH_MOVE, &m->with, err) != 0)
        return -1;
    u->nkit_maneuvers++;
    return 0;
}

int mr_kit_read(const json_t *obj, const char *path, mr_unit *u, api_error *err) {
    json_t *attacks = NULL, *maneuvers = NULL;
    if (json_in_array(obj, path, "attacks", false, MR_KIT_MAX, &attacks) != 0 ||
        json_in_array(obj, path, "maneuvers", false, MR_KIT_MAX, &maneuvers) != 0)
        return take(err);
    u->has_kit = attacks || maneuvers;
    char sub[JSON_IN_PATH_MAX], item[JSON_IN_PATH_MAX];
    size_t i;
    json_t *v;
    json_in_path(sub, path, "attacks");
    json_array_foreach(attacks, i, v) {
        json_in_path_index(item, sub, i);
        if (read_attack(v, item, u, err) != 0) return -1;
    }
    json_in_path(sub, path, "maneuvers");
    json_array_foreach(maneuvers, i, v) {
        json_in_path_index(item, sub, i);
        if (read_maneuver(v, item, u, err) != 0) return -1;
    }
    return 0;
}

void mr_kit_write(const mr_unit *u, json_t *o) {
    if (!u->has_kit) return;
    json_t *attacks = json_array(), *maneuvers = json_array();
    for (int i = 0; i < u->nkit_attacks; i++) {
        const mr_kit_attack *a = &u->kit_attacks[i];
        json_t *ao = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i}", "name", a->name, "kind",
                               a->s.kind == MR_MISSILE ? "missile" : "striking", "harm",
                               mr_level_name(a->s.harm), "sharpness", a->s.sharpness, "time",
                               a->s.time, "length", a->s.length);
        if (a->spell) json_object_set_new(ao, "spell", json_string(mr_spell_name(a->spell)));
        if (a->alerted) json_object_set_new(ao, "alerted", json_true());
        json_array_append_new(attacks, ao);
    }
    for (int i = 0; i < u->nkit_maneuvers; i++) {
        const mr_kit_maneuver *m = &u->kit_maneuvers[i];
        json_array_append_new(maneuvers, json_pack("{s:s, s:i, s:s}", "name", m->name, "move_time",
                                                   m->move_time, "kind",
                                                   m->with == MR_WITH_BOOTS ? "boots" : "move"));
    }
    json_object_set_new(o, "attacks", attacks);
    json_object_set_new(o, "maneuvers", maneuvers);
}

/* "Great Sword, F H6; Light Bow, F H1" (or "nothing") for a refusal. */
static json_t *names_new(const char *first, int n, size_t stride) {
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_string(first + (size_t)i * stride));
    return list;
}

static void names_text(const json_t *list, char *buf, size_t cap) {
    buf[0] = '\0';
    if (json_array_size(list) == 0) {
        snprintf(buf, cap, "none");
        return;
    }
    size_t i, w = 0;
    json_t *v;
    json_array_foreach(list, i, v) {
        int n = snprintf(buf + w, cap - w, "%s%s", i ? "; " : "", json_string_value(v));
        if (n < 0 || (size_t)n >= cap - w) return;
        w += (size_t)n;
    }
}

static int not_in_kit(const mr_unit *u, const char *what, const char *name, const char *field,
                      json_t *has, api_error *err) {
    char text[768];
    names_text(has, text, sizeof text);
    api_error_set(err, 422, "not_in_kit",
                  json_pack("{s:s, s:s, s:s, s:o}", "field", field, "unit", u->id, "name", name,
                            what[0] == 'a' ? "attacks" : "maneuvers", has),
                  "%s has no %s '%s' in its kit; its %ss: %s", u->id, what, name, what, text);
    return -1;
}

int mr_kit_attack_find(const mr_unit *u, const char *name, const char *field,
                       const mr_kit_attack **out, api_error *err) {
    for (int i = 0; i < u->nkit_attacks; i++)
        if (strcmp(u->kit_attacks[i].name, name) == 0) {
            *out = &u->kit_attacks[i];
            return 0;
        }
    return not_in_kit(u, "attack", name, field,
                      names_new(u->kit_attacks[0].name, u->nkit_attacks, sizeof(mr_kit_attack)),
                      err);
}

int mr_kit_maneuver_find(const mr_unit *u, const char *name, const char *field,
                         const mr_kit_maneuver **out, api_error *err) {
    for (int i = 0; i < u->nkit_maneuvers; i++)
        if (strcmp(u->kit_maneuvers[i].name, name) == 0) {
            *out = &u->kit_maneuvers[i];
            return 0;
        }
    return not_in_kit(
        u, "maneuver", name, field,
        names_new(u->kit_maneuvers[0].name, u->nkit_maneuvers, sizeof(mr_kit_maneuver)), err);
}

int mr_flying_check(const rules_ctx *ctx, const mr_unit *runner, bool flying, const char *field,
                    api_error *err) {
    if (!flying || !runner || runner->flying || rules_actor_is_referee(ctx)) return 0;
    api_error_set(err, 422, "not_flying",
                  json_pack("{s:s, s:s}", "field", field, "unit", runner->id),
                  "%s cannot fly away: the setup does not make him flying (the referee may rule "
                  "it)",
                  runner->id);
    return -1;
}

int mr_kit_required(const mr_unit *u, const char *what, const char *field, api_error *err) {
    bool attack = what[0] == 'a';
    json_t *has =
        attack ? names_new(u->kit_attacks[0].name, u->nkit_attacks, sizeof(mr_kit_attack))
               : names_new(u->kit_maneuvers[0].name, u->nkit_maneuvers, sizeof(mr_kit_maneuver));
    char text[768];
    names_text(has, text, sizeof text);
    api_error_set(err, 422, "kit_required",
                  json_pack("{s:s, s:s, s:o}", "field", field, "unit", u->id,
                            attack ? "attacks" : "maneuvers", has),
                  "the umpire takes %s's %s from its kit, not from the acting side: name one "
                  "(%s)%s",
                  u->id, what, text,
                  u->has_kit ? ""
                             : "; this unit has no kit in the setup, so only the referee "
                               "can give its stats");
    return -1;
}

int mr_strike_take_attack(const rules_ctx *ctx, const mr_unit *attacker, const mr_attack_spec *spec,
                          mr_strike *s, const char *field, api_error *err) {
    char f[JSON_IN_PATH_MAX];
    if (!spec->stats_given) {
        if (!attacker) {
            json_in_path(f, field, "name");
            mr_rule_error(err, f,
                          "an attack named '%s' is one of a unit's kit: name the attacking unit",
                          spec->name);
            return -1;
        }
        const mr_kit_attack *k;
        json_in_path(f, field, "name");
        if (mr_kit_attack_find(attacker, spec->name, f, &k, err) != 0) return -1;
        s->a = k->s;
        s->spell = k->spell;
        s->alerted = k->alerted;
        snprintf(s->name, sizeof s->name, "%s", k->name);
    } else {
        if (!rules_actor_is_referee(ctx)) {
            if (attacker) return mr_kit_required(attacker, "attack", field, err);
            mr_rule_error(err, "unit",
                          "a side attacks with one of its own units and an attack of its kit: "
                          "name the unit");
            return -1;
        }
        s->a = spec->s;
        if (s->a.length == MR_UNSET) s->a.length = 0;
        s->spell = spec->spell;
        s->alerted = spec->alerted == 1;
        snprintf(s->name, sizeof s->name, "%s", spec->name);
    }
    s->box = spec->box;
    return 0;
}

int mr_run_take_move(const rules_ctx *ctx, const mr_unit *runner, mr_run_spec *r, const char *field,
                     api_error *err) {
    char f[JSON_IN_PATH_MAX];
    bool riding = runner && runner->horse.present && !runner->horse.dead;
    if (r->maneuver[0]) {
        json_in_path(f, field, "maneuver");
        if (!runner) {
            mr_rule_error(err, f, "a maneuver named '%s' is one of a unit's kit: name the runner",
                          r->maneuver);
            return -1;
        }
        const mr_kit_maneuver *m;
        if (mr_kit_maneuver_find(runner, r->maneuver, f, &m, err) != 0) return -1;
        if (r->with == MR_WITH_HORSE) {
            mr_rule_error(err, f, "a run with the horse is at the horse's move time: no maneuver");
            return -1;
        }
        r->move_time = m->move_time;
        r->with = m->with;
        return 0;
    }
    if (r->move_time == MR_UNSET) {
        if (r->with == MR_WITH_HORSE && riding) {
            r->move_time = runner->horse.move_time;
            return 0;
        }
        json_in_path(f, field, "move_time");
        api_error_field(err, f,
                        "an integer move time, or maneuver (a maneuver of the runner's kit), or "
                        "with horse for a rider");
        return -1;
    }
    if (rules_actor_is_referee(ctx)) return 0;
    if (runner) {
        json_in_path(f, field, "move_time");
        return mr_kit_required(runner, "maneuver", f, err);
    }
    mr_rule_error(err, "unit", "a side runs with one of its own characters: name the unit");
    return -1;
}
