/* The `attack` and `run` actions: one attack (inline, or between units of the session) and one
 * attempt to run away. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <string.h>

/* ---- attack: decode / encode --------------------------------------------------------------- */

int mr_attack_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"table", "kludge", "attack", "target", "hit", "aim", NULL};
    static const char *const attack_keys[] = {"kind",   "harm",     "sharpness",   "time",
                                              "length", "spell",    "alerted",     "box",
                                              "name",   "attacker", "red_side_up", NULL};
    mr_attack_action *a = out;
    json_t *attack = NULL, *target = NULL;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        mr_in_table(fields, "", &a->table, err) != 0 ||
        mr_in_tri(fields, "", "kludge", &a->kludge, err) != 0)
        return -1;
    if (json_in_object(fields, "", "attack", false, &attack) != 0 ||
        json_in_object(fields, "", "target", true, &target) != 0) {
        json_in_take_error(err);
        return -1;
    }
    if (attack && (json_in_only_keys(attack, "attack", attack_keys, err) != 0 ||
                   mr_attack_spec_decode(attack, "attack", &a->attack, err) != 0))
        return -1;
    if (mr_target_decode(target, "target", &a->target, err) != 0 ||
        mr_hit_decode(fields, "", &a->hit, err) != 0)
        return -1;
    if (!a->hit.pair && a->hit.simple == MR_HIT_UNSET) {
        api_error_field(err, "hit",
                        "intercept, undercut, miss, or {\"horse\", \"rider\"} (the attack action "
                        "takes a declared hit; a round finds it from the boxes)");
        return -1;
    }
    int aim = MR_AIM_NONE;
    static const char *const aims[] = {"horse", "rider", NULL};
    if (mr_in_enum(fields, "", "aim", false, aims, MR_AIM_HORSE, &aim, err) != 0) return -1;
    if (aim && a->target.aim && aim != a->target.aim) {
        api_error_field(err, "aim", "the same as target.aim (give aim once)");
        return -1;
    }
    if (aim) a->target.aim = aim;
    return 0;
}

json_t *mr_attack_encode(const void *action) {
    const mr_attack_action *a = action;
    json_t *o = json_object();
    if (a->table != MR_TABLE_DEFAULT)
        json_object_set_new(o, "table", json_string(mr_table_name(a->table)));
    if (a->kludge != MR_UNSET) json_object_set_new(o, "kludge", json_boolean(a->kludge));
    if (a->attack.present) {
        json_t *at = json_object();
        mr_attack_spec_encode(&a->attack, at);
        json_object_set_new(o, "attack", at);
    }
    json_object_set_new(o, "target", mr_target_encode(&a->target));
    json_t *hit = mr_hit_encode(&a->hit);
    if (hit) json_object_set_new(o, "hit", hit);
    return o;
}

/* ---- attack: resolve ---------------------------------------------------------------------- */

static int unit_alive(const mr_unit *u, const char *field, api_error *err) {
    if (u->kind == MR_KIND_BYSTANDER) {
        mr_rule_error(err, field, "unit '%s' takes no part in combat (it has no kind)", u->id);
        return -1;
    }
    if (u->dead) {
        api_error_set(err, 409, "not_applicable", json_pack("{s:s}", "field", field),
                      "unit '%s' is dead", u->id);
        return -1;
    }
    return 0;
}

/* A character target's maneuver when a side attacks it: from its play this round (state.plays,
 * the maneuver named from its kit), not from the attacker's word (issue 23: no fact from the
 * acting side alone). No play, or a play of no maneuver: none (5.4.4, as the round of the plays
 * reads it). 0, or -1 with err. */
static int target_from_play(const rules_ctx *ctx, const mr_target_spec *t, mr_unit *u,
                            api_error *err) {
    if (t->move_time != MR_UNSET || t->no_maneuver ||
        (t->horse.present && t->horse.move_time != MR_UNSET)) {
        api_error_set(err, 422, "target_from_play",
                      json_pack("{s:s, s:s}", "field", "target.move_time", "unit", u->id),
                      "the umpire takes %s's maneuver from its play this round, not from the "
                      "attacker: send the target's unit alone",
                      u->id);
        return -1;
    }
    u->man.present = false;
    size_t i;
    const json_t *e;
    json_array_foreach(json_object_get(ctx->state, "plays"), i, e) {
        if (strcmp(json_string_value(json_object_get(e, "unit")) ?: "", u->id) != 0) continue;
        const char *name =
            json_string_value(json_object_get(json_object_get(e, "maneuver"), "name"));
        if (!name) return 0;
        const mr_kit_maneuver *m;
        if (mr_kit_maneuver_find(u, name, "target.unit", &m, err) != 0) return -1;
        u->man = (mr_maneuver){true, MR_BOX_NONE, m->move_time};
        return 0;
    }
    return 0;
}

/* The target as a unit, with its maneuvers for this attack. */
static int build_target(const rules_ctx *ctx, const mr_target_spec *t, mr_unit *u, api_error *err) {
    if (t->unit[0]) {
        if (mr_unit_load(ctx->state, t->unit, "target.unit", u, err) != 0 ||
            unit_alive(u, "target.unit", err) != 0)
            return -1;
        if (u->kind == MR_KIND_CHARACTER && !rules_actor_is_referee(ctx)) {
            if (target_from_play(ctx, t, u, err) != 0) return -1;
            bool riding = u->horse.present && !u->horse.dead;
            u->horse_man = (mr_maneuver){riding, MR_BOX_NONE, u->horse.move_time};
            return 0;
        }
        if (u->kind == MR_KIND_DENIZEN) {
            if (t->move_time != MR_UNSET || t->no_maneuver) {
                mr_rule_error(err, "target.move_time",
                              "a denizen maneuvers at the move time of its counter (%d)",
                              u->move_time);
                return -1;
            }
            u->man = (mr_maneuver){true, MR_BOX_NONE, u->move_time};
        } else if (t->no_maneuver) {
            u->man.present = false;
        } else if (t->move_time == MR_UNSET) {
            mr_rule_error(err, "target.move_time",
                          "the move time %s plays this round is needed (null: no maneuver)", u->id);
            return -1;
        } else {
            u->man = (mr_maneuver){true, MR_BOX_NONE, t->move_time};
        }
        bool riding = u->horse.present && !u->horse.dead;
        if (t->horse.present && !riding) {
            mr_rule_error(err, "target.horse", "%s rides no active horse", u->id);
            return -1;
        }
        /* No target.horse (or one without move_time): the horse's side in the state. The
         * decoded spec's move_time is meaningful only when horse is present. */
        bool given = t->horse.present && t->horse.move_time != MR_UNSET;
        u->horse_man =
            (mr_maneuver){riding, MR_BOX_NONE, given ? t->horse.move_time : u->horse.move_time};
        return 0;
    }
    memset(u, 0, sizeof *u);
    u->index = -1;
    u->kind = t->kind;
    u->vulnerability = t->vulnerability;
    u->armored = t->armored == 1;
    u->narmor = t->narmor;
    memcpy(u->armor, t->armor, sizeof u->armor);
    if (t->no_maneuver)
        u->man.present = false;
    else
        u->man = (mr_maneuver){true, MR_BOX_NONE, t->move_time};
    if (t->horse.present) {
        u->horse.present = true;
        u->horse.move_time = t->horse.move_time;
        u->horse.vulnerability = t->horse.vulnerability;
        u->horse.armored = t->horse.armored == 1;
        u->horse_man = (mr_maneuver){true, MR_BOX_NONE, t->horse.move_time};
    }
    return 0;
}

int mr_pick_aim(mr_strike *s, int requested, bool attacker_denizen, const char *field,
                api_error *err) {
    const mr_unit *t = s->target;
    bool riding = t->horse.present && !t->horse.dead;
    if (!riding) {
        if (requested) {
            mr_rule_error(err, field, "aim applies to a target riding a horse; %s rides none",
                          mr_unit_label(t));
            return -1;
        }
        s->aim = MR_AIM_NONE;
        return 0;
    }
    if (s->red_side_up_kill) { /* 5.3: red-side-up Tremendous monsters attack the rider */
        if (requested == MR_AIM_HORSE) {
            mr_rule_error(err, field, "a red-side-up Tremendous monster attacks the rider (5.3)");
            return -1;
        }
        s->aim = MR_AIM_RIDER;
        return 0;
    }
    if (attacker_denizen) { /* 5.3: denizens always attack the horse first */
        if (requested == MR_AIM_RIDER) {
            mr_rule_error(err, field,
                          "denizens attack the horse, not the rider, except red-side-up "
                          "Tremendous monsters (5.3)");
            return -1;
        }
        s->aim = MR_AIM_HORSE;
        return 0;
    }
    if (!requested) {
        mr_rule_error(err, field,
                      "%s rides a horse: say whether the attack aims at the horse or the rider "
                      "(aim, 5.3)",
                      mr_unit_label(t));
        return -1;
    }
    s->aim = requested;
    return 0;
}

int mr_attack_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                      api_error *err) {
    const mr_attack_action *a = action;
    mr_options o;
    mr_options_read(ctx->options, &o);
    mr_unit target, attacker;
    mr_strike s;
    memset(&s, 0, sizeof s);
    memset(&attacker, 0, sizeof attacker);
    if (build_target(ctx, &a->target, &target, err) != 0) return -1;
    s.target = &target;

    bool attacker_denizen = a->attack.attacker_denizen == 1 || a->attack.red_side_up == 1;
    bool red = a->attack.red_side_up == 1;
    const char *acting = json_string_value(json_object_get(ctx->unit, "id"));
    if (acting) {
        if (mr_unit_load(ctx->state, acting, "unit", &attacker, err) != 0 ||
            unit_alive(&attacker, "unit", err) != 0)
            return -1;
        if (target.id[0] && strcmp(target.id, attacker.id) == 0) {
            mr_rule_error(err, "target.unit", "a unit does not attack itself");
            return -1;
        }
        s.attacker = &attacker;
        if (a->attack.present &&
            (a->attack.attacker_denizen != MR_UNSET || a->attack.red_side_up != MR_UNSET)) {
            mr_rule_error(err, "attack",
                          "attack.attacker and attack.red_side_up describe an inline attacker; "
                          "%s is known to the session",
                          attacker.id);
            return -1;
        }
        attacker_denizen = false;
        red = false;
        if (attacker.kind == MR_KIND_DENIZEN) {
            if (a->attack.present) {
                mr_rule_error(err, "attack",
                              "%s is a denizen: it attacks with its counter's attack (omit "
                              "attack)",
                              attacker.id);
                return -1;
            }
            attacker_denizen = true;
            red = attacker.has_red_side && attacker.red_side_up;
            s.a = attacker.attack;
            s.box = MR_BOX_NONE;
            snprintf(s.name, sizeof s.name, "%s", attacker.name);
        }
    } else if (!rules_actor_is_referee(ctx)) {
        /* In a session a side attacks with one of its units (no fact from the acting side
         * alone: the attack is its kit's, the target a unit of the session). Odds act as the
         * referee, so the inline calculator keeps taking everything inline. */
        mr_rule_error(err, "unit",
                      "a side attacks with one of its own units and an attack of its kit: name "
                      "the unit");
        return -1;
    }
    if (!s.attacker || s.attacker->kind != MR_KIND_DENIZEN) {
        if (!a->attack.present) {
            api_error_field(err, "attack",
                            "an object: {\"name\", \"box\"?} naming an attack of the unit's "
                            "kit, or (the referee, inline odds) kind, harm and time");
            return -1;
        }
        if (mr_strike_take_attack(ctx, s.attacker, &a->attack, &s, "attack", err) != 0) return -1;
    }
    if (s.attacker && !rules_actor_is_referee(ctx) && !target.id[0]) {
        mr_rule_error(err, "target.unit",
                      "a side attacks a unit of the session: name it in target.unit (an inline "
                      "target's facts would be the acting side's alone)");
        return -1;
    }
    s.red_side_up_kill = red && s.a.kind == MR_STRIKING;
    if (mr_pick_aim(&s, a->target.aim, attacker_denizen, "target.aim", err) != 0) return -1;
    if (s.aim == MR_AIM_HORSE && !target.horse.vulnerability) {
        api_error_field(err, "target.horse.vulnerability",
                        "L, M, H or T (the attack aims at the horse)");
        return -1;
    }
    mr_strike_pick_table(&s, a->table, a->kludge, &o);
    if (mr_strike_check(&s, "attack", err) != 0 || mr_hit_determine(&s, &a->hit, "hit", err) != 0)
        return -1;
    /* The declared hit is the attacker's word on where the attack met the target's maneuver (a
     * round finds it from the boxes): a claim the target's side accepts (rules/common/claims.h),
     * unless it declares a miss. */
    if (!claims_trusted(ctx) && a->hit.simple != MR_HIT_MISS) {
        char text[240];
        snprintf(text, sizeof text, "%s attacks %s%s%s: ", attacker.id, target.id,
                 a->attack.name[0] ? " with " : "", a->attack.name);
        if (a->hit.pair)
            mr_say(text, sizeof text, "the horse %s, the rider %s", mr_hit_name(a->hit.horse),
                   mr_hit_name(a->hit.rider));
        else
            mr_say(text, sizeof text, "%s", mr_hit_name(a->hit.simple));
        return claims_pend(ctx, "attack", mr_attack_encode(a), target.side[0] ? target.side : NULL,
                           text, out, err);
    }
    mr_strike_result r;
    mr_strike_resolve(&s, &o, ctx->dice, &r);
    out->result = mr_strike_json_new(&s, &r);
    out->summary[0] = '\0';
    mr_strike_say(&s, &r, out->summary, sizeof out->summary);
    const mr_unit *units[2] = {&target, &attacker};
    out->new_state = mr_state_with_units_new(ctx->state, units, 2);
    return mr_finish(out, err);
}

/* ---- run --------------------------------------------------------------------------------- */

int mr_run_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"move_time", "maneuver",  "with",
                                       "flying",    "attackers", NULL};
    if (json_in_only_keys(fields, "", keys, err) != 0) return -1;
    return mr_run_spec_decode(fields, "", false, out, err);
}

json_t *mr_run_encode(const void *action) {
    json_t *o = json_object();
    mr_run_spec_encode(action, o);
    return o;
}

int mr_run_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    mr_run_spec run = *(const mr_run_spec *)action, *r = &run;
    mr_unit runner;
    mr_attacker_ref attackers[MR_ATTACKERS_MAX];
    const char *acting = json_string_value(json_object_get(ctx->unit, "id"));
    if (acting) {
        if (mr_unit_load(ctx->state, acting, "unit", &runner, err) != 0 ||
            unit_alive(&runner, "unit", err) != 0)
            return -1;
        if (runner.kind != MR_KIND_CHARACTER) {
            mr_rule_error(err, "unit", "only a character runs away on the Stumble table (5.1)");
            return -1;
        }
    }
    if (mr_flying_check(ctx, acting ? &runner : NULL, r->flying, "flying", err) != 0 ||
        mr_run_take_move(ctx, acting ? &runner : NULL, r, "", err) != 0)
        return -1;
    if (!rules_actor_is_referee(ctx))
        for (int i = 0; i < r->nattackers; i++)
            if (!r->attackers[i].unit[0]) {
                char f[JSON_IN_PATH_MAX];
                json_in_path_index(f, "attackers", (size_t)i);
                mr_rule_error(err, f,
                              "a side names the attackers on its sheet by unit: their move "
                              "times are the umpire's to know, not the runner's to give");
                return -1;
            }
    if (mr_run_attackers(r, ctx->state, "attackers", attackers, err) != 0 ||
        mr_stumble_check(r, attackers, r->nattackers, acting ? &runner : NULL, "with", err) != 0)
        return -1;
    mr_stumble st = {.move_time = r->move_time, .with = r->with, .flying = r->flying};
    mr_stumble_prepare(&st, attackers, r->nattackers);
    mr_stumble_roll(&st, ctx->dice);
    out->result = mr_stumble_json_new(&st, acting);
    out->summary[0] = '\0';
    mr_stumble_say(&st, acting, out->summary, sizeof out->summary);
    out->new_state = json_copy((json_t *)ctx->state);
    return mr_finish(out, err);
}
