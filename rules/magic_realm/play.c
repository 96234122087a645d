/* The `play` action: one unit's plays for this round of combat (issue 23; Hamblen's formalism,
 * 3rd edition notes: "1st - reveals plays"), kept in state.plays until the round resolves them:
 *
 *   character: {"maneuver": {"name", "box"} | null, "horse"?: {"box"},
 *               "attacks"?: [{"name", "box"?, "target", "aim"?}],
 *               "run"?: {"maneuver"? | "with": "horse", "flying"?}}
 *   denizen:   {"box", "target"?, "change_tactics"?, "horse"?: {"box"}}
 *
 * Every attack and maneuver is one of the unit's kit, named (kit.c); the boxes decide every hit
 * (a play declares none). A unit may play again until its side ends its part of the phase: the
 * new play replaces the old. state.plays: [{"unit", ...the play}] in the order first made,
 * which is the round's listed order. */
#include "rules/magic_realm/mr.h"

#include "protocol/json_in.h"
#include "rules/common/units.h"

#include <stdio.h>
#include <string.h>

static int take(api_error *err) {
    json_in_take_error(err);
    return -1;
}

static int read_run(const json_t *obj, mr_run_spec *r, api_error *err) {
    static const char *const keys[] = {"maneuver", "with", "flying", NULL};
    static const char *const withs[] = {"move", "boots", "horse", NULL};
    memset(r, 0, sizeof *r);
    r->move_time = MR_UNSET;
    if (!json_is_object(obj)) {
        api_error_field(err, "run", "an object {maneuver, flying?} or {with: horse}");
        return -1;
    }
    if (json_in_only_keys(obj, "run", keys, err) != 0 ||
        mr_in_name(obj, "run", "maneuver", r->maneuver, err) != 0 ||
        mr_in_enum(obj, "run", "with", false, withs, MR_WITH_MOVE, &r->with, err) != 0)
        return -1;
    if (json_in_bool(obj, "run", "flying", false, &r->flying) != 0) return take(err);
    if (!r->maneuver[0] && r->with != MR_WITH_HORSE) {
        api_error_field(err, "run.maneuver", "a maneuver of the unit's kit (or with: horse)");
        return -1;
    }
    return 0;
}

static json_t *run_json(const mr_run_spec *r) {
    static const char *const withs[] = {"move", "boots", "horse"};
    json_t *o = json_object();
    if (r->maneuver[0]) json_object_set_new(o, "maneuver", json_string(r->maneuver));
    if (r->with == MR_WITH_HORSE) json_object_set_new(o, "with", json_string(withs[r->with]));
    if (r->flying) json_object_set_new(o, "flying", json_true());
    return o;
}

int mr_play_decode(const json_t *fields, void *out, api_error *err) {
    mr_play_action *p = out;
    p->c.horse_move_time = MR_UNSET;
    json_t *copy = json_copy((json_t *)fields);
    if (!copy) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        return -1;
    }
    json_t *run = json_incref(json_object_get(copy, "run"));
    json_object_del(copy, "run");
    int rc = mr_combatant_decode(copy, "", false, &p->c, err);
    json_decref(copy);
    if (rc == 0 && run && !json_is_null(run)) {
        p->has_run = true;
        rc = read_run(run, &p->run, err);
    }
    json_decref(run);
    if (rc != 0) return -1;
    /* A play names the kit and lets the boxes decide: no stats, times or hits of its own. */
    if (p->c.maneuver.present && !p->c.maneuver_name[0]) {
        api_error_field(err, "maneuver.name",
                        "the name of a maneuver of the unit's kit (a play gives no move_time)");
        return -1;
    }
    if (p->c.horse_move_time != MR_UNSET) {
        api_error_field(err, "horse.move_time", "absent: the horse maneuvers at its own time");
        return -1;
    }
    for (int i = 0; i < p->c.nattacks; i++) {
        char f[JSON_IN_PATH_MAX], base[JSON_IN_PATH_MAX];
        json_in_path_index(base, "attacks", (size_t)i);
        if (p->c.attacks[i].attack.stats_given) {
            json_in_path(f, base, "name");
            api_error_field(err, f,
                            "the name of an attack of the unit's kit (a play gives no stats)");
            return -1;
        }
        if (p->c.attacks[i].hit.simple || p->c.attacks[i].hit.pair) {
            json_in_path(f, base, "hit");
            api_error_field(err, f, "absent: the boxes decide the hit");
            return -1;
        }
        if (p->c.attacks[i].attack.attacker_denizen != MR_UNSET ||
            p->c.attacks[i].attack.red_side_up != MR_UNSET) {
            api_error_field(err, base, "{name, box?, target, aim?}");
            return -1;
        }
    }
    return 0;
}

json_t *mr_play_encode(const void *action) {
    const mr_play_action *p = action;
    json_t *o = mr_combatant_encode(&p->c);
    json_object_del(o, "unit");
    if (p->has_run) json_object_set_new(o, "run", run_json(&p->run));
    return o;
}

/* ---- resolve ------------------------------------------------------------------------------ */

static int live_unit(const json_t *state, const char *id, const char *field, mr_unit *u,
                     api_error *err) {
    if (mr_unit_load(state, id, field, u, err) != 0) return -1;
    if (u->kind == MR_KIND_BYSTANDER) {
        mr_rule_error(err, field, "unit '%s' takes no part in combat (it has no kind)", id);
        return -1;
    }
    if (u->dead) {
        api_error_set(err, 409, "not_applicable", json_pack("{s:s}", "field", field),
                      "unit '%s' is dead", id);
        return -1;
    }
    return 0;
}

static int check_target(const rules_ctx *ctx, const mr_unit *u, const char *target,
                        const char *field, api_error *err) {
    mr_unit t;
    if (live_unit(ctx->state, target, field, &t, err) != 0) return -1;
    if (strcmp(t.id, u->id) == 0) {
        mr_rule_error(err, field, "a unit does not attack itself");
        return -1;
    }
    return 0;
}

static int check_character(const rules_ctx *ctx, const mr_play_action *p, const mr_unit *u,
                           char *say, size_t cap, api_error *err) {
    const mr_combatant *c = &p->c;
    bool riding = u->horse.present && !u->horse.dead;
    if (c->box || c->target[0] || c->change_tactics) {
        mr_rule_error(err, "box",
                      "%s is a character: he plays a maneuver and attacks; box, target and "
                      "change_tactics are a denizen's",
                      u->id);
        return -1;
    }
    if (!c->maneuver_given) {
        mr_rule_error(err, "maneuver",
                      "%s: play a maneuver of his kit ({\"name\", \"box\"}), or null for none "
                      "(5.4.4: as move time 8)",
                      u->id);
        return -1;
    }
    if (riding && !c->horse_given) {
        mr_rule_error(err, "horse",
                      "%s rides a horse: he must play the horse to do his maneuver (5.2); give "
                      "horse {\"box\"}",
                      u->id);
        return -1;
    }
    if (c->horse_given && !riding) {
        mr_rule_error(err, "horse", "%s rides no active horse", u->id);
        return -1;
    }
    if (c->maneuver.present) {
        const mr_kit_maneuver *m;
        if (mr_kit_maneuver_find(u, c->maneuver_name, "maneuver.name", &m, err) != 0) return -1;
        mr_say(say, cap, " %s (move %d) to %s", m->name, m->move_time,
               c->maneuver.box ? mr_box_maneuver_name(c->maneuver.box) : "no box");
    } else {
        mr_say(say, cap, " no maneuver");
    }
    if (c->horse_given)
        mr_say(say, cap, ", the horse to %s",
               c->horse_box ? mr_box_maneuver_name(c->horse_box) : "no box");
    for (int i = 0; i < c->nattacks; i++) {
        const mr_round_attack *a = &c->attacks[i];
        char f[JSON_IN_PATH_MAX], base[JSON_IN_PATH_MAX];
        json_in_path_index(base, "attacks", (size_t)i);
        json_in_path(f, base, "name");
        const mr_kit_attack *k;
        if (mr_kit_attack_find(u, a->attack.name, f, &k, err) != 0) return -1;
        json_in_path(f, base, "target");
        if (check_target(ctx, u, a->target, f, err) != 0) return -1;
        mr_say(say, cap, "; %s %s at %s", k->name,
               a->attack.box ? mr_box_attack_name(a->attack.box) : "(no box)", a->target);
    }
    if (p->has_run) {
        if (mr_flying_check(ctx, u, p->run.flying, "run.flying", err) != 0) return -1;
        if (p->run.maneuver[0]) {
            const mr_kit_maneuver *m;
            if (mr_kit_maneuver_find(u, p->run.maneuver, "run.maneuver", &m, err) != 0) return -1;
            mr_say(say, cap, "; runs with %s (move %d)", m->name, m->move_time);
        } else if (!riding) {
            mr_rule_error(err, "run.with", "%s rides no active horse", u->id);
            return -1;
        } else {
            mr_say(say, cap, "; runs with the horse (move %d)", u->horse.move_time);
        }
    }
    return 0;
}

static int check_denizen(const rules_ctx *ctx, const mr_play_action *p, const mr_unit *u, char *say,
                         size_t cap, api_error *err) {
    const mr_combatant *c = &p->c;
    if (c->maneuver_given || c->nattacks || p->has_run) {
        mr_rule_error(err, "maneuver",
                      "%s is a denizen: it moves to a box (and attacks a target); maneuver, "
                      "attacks and run are a character's",
                      u->id);
        return -1;
    }
    if (!c->box) {
        mr_rule_error(err, "box", "%s: give the box it moves to (thrust, swing, smash)", u->id);
        return -1;
    }
    if (c->change_tactics && !u->has_other_side) {
        mr_rule_error(err, "change_tactics", "%s has no other side (setup other_side)", u->id);
        return -1;
    }
    bool riding = u->horse.present && !u->horse.dead;
    if (c->horse_given && !riding) {
        mr_rule_error(err, "horse", "%s rides no active horse", u->id);
        return -1;
    }
    if (c->target[0] && check_target(ctx, u, c->target, "target", err) != 0) return -1;
    mr_say(say, cap, " to %s%s", mr_box_attack_name(c->box),
           c->change_tactics ? ", changing tactics" : "");
    if (c->target[0]) mr_say(say, cap, ", at %s", c->target);
    return 0;
}

int mr_play_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const mr_play_action *p = action;
    const char *id = json_string_value(json_object_get(ctx->unit, "id"));
    if (!id) {
        mr_rule_error(err, "unit", "a play is one unit's: name it in unit");
        return -1;
    }
    mr_unit u;
    if (live_unit(ctx->state, id, "unit", &u, err) != 0) return -1;
    char say[sizeof out->summary] = "";
    mr_say(say, sizeof say, "%s plays:", id);
    if ((u.kind == MR_KIND_CHARACTER ? check_character(ctx, p, &u, say, sizeof say, err)
                                     : check_denizen(ctx, p, &u, say, sizeof say, err)) != 0)
        return -1;
    /* state.plays with this unit's play replaced, or added at the end */
    const json_t *old = json_object_get(ctx->state, "plays");
    json_t *plays = json_array(), *entry = mr_play_encode(p);
    json_object_set_new(entry, "unit", json_string(id));
    bool replaced = false;
    int runs = p->has_run;
    size_t i;
    const json_t *e;
    json_array_foreach(old, i, e) {
        const char *uid = json_string_value(json_object_get(e, "unit"));
        if (uid && strcmp(uid, id) == 0) {
            json_array_append(plays, entry);
            replaced = true;
        } else {
            json_array_append(plays, (json_t *)e);
            runs += json_object_get(e, "run") != NULL;
        }
    }
    if (!replaced) json_array_append(plays, entry);
    if (json_array_size(plays) > MR_COMBAT_MAX || runs > MR_RUNS_MAX) {
        json_decref(plays);
        json_decref(entry);
        mr_rule_error(err, "unit", "a round takes at most %d combatants and %d run attempts",
                      MR_COMBAT_MAX, MR_RUNS_MAX);
        return -1;
    }
    out->result = json_pack("{s:s, s:s, s:o, s:b}", "action", "play", "unit", id, "play", entry,
                            "replaced", replaced);
    if (replaced) mr_say(say, sizeof say, " (replacing its earlier play)");
    memcpy(out->summary, say, sizeof out->summary);
    out->new_state = json_copy((json_t *)ctx->state);
    if (out->new_state)
        json_object_set_new(out->new_state, "plays", plays);
    else
        json_decref(plays);
    return mr_finish(out, err);
}

/* ---- the round of the plays ----------------------------------------------------------------- */

static bool has_entry(const mr_round_action *r, const char *id) {
    for (int i = 0; i < r->ncombatants; i++)
        if (strcmp(r->c[i].unit, id) == 0) return true;
    return false;
}

/* A character attacked who made no play played no maneuver: 5.4.4, as move time 8. */
static void add_unplayed(const json_t *state, mr_round_action *r, const char *target) {
    if (!target[0] || has_entry(r, target) || r->ncombatants >= MR_COMBAT_MAX) return;
    const json_t *u = rules_state_unit(state, target);
    const char *kind = json_string_value(json_object_get(u, "kind"));
    if (!kind || strcmp(kind, "character") != 0) return;
    mr_combatant *c = &r->c[r->ncombatants++];
    memset(c, 0, sizeof *c);
    snprintf(c->unit, sizeof c->unit, "%s", target);
    c->maneuver_given = true;
    c->horse_move_time = MR_UNSET;
}

int mr_round_of_plays(const json_t *state, mr_round_action *r, api_error *err) {
    const json_t *plays = json_object_get(state, "plays");
    if (json_array_size(plays) == 0) {
        api_error_set(err, 422, "no_plays", json_pack("{s:s}", "field", "combatants"),
                      "no unit has played this round: each side plays its units (play), or the "
                      "referee gives the round whole (combatants)");
        return -1;
    }
    size_t i;
    const json_t *e;
    json_array_foreach(plays, i, e) {
        char path[JSON_IN_PATH_MAX];
        json_in_path_index(path, "state.plays", i);
        if (r->ncombatants >= MR_COMBAT_MAX) break;
        json_t *copy = json_copy((json_t *)e);
        if (!copy) {
            api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
            return -1;
        }
        const json_t *run = json_object_get(e, "run");
        json_object_del(copy, "run");
        mr_combatant *c = &r->c[r->ncombatants];
        memset(c, 0, sizeof *c);
        int rc = mr_combatant_decode(copy, path, true, c, err);
        json_decref(copy);
        if (rc != 0) return -1;
        r->ncombatants++;
        if (run && r->nruns < MR_RUNS_MAX) {
            mr_run_spec *rs = &r->runs[r->nruns];
            if (read_run(run, rs, err) != 0) return -1;
            memcpy(rs->unit, c->unit, sizeof rs->unit);
            r->nruns++;
        }
    }
    int played = r->ncombatants;
    for (int k = 0; k < played; k++) {
        add_unplayed(state, r, r->c[k].target);
        for (int j = 0; j < r->c[k].nattacks; j++)
            add_unplayed(state, r, r->c[k].attacks[j].target);
    }
    return 0;
}
