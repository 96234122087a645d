/* The `round` action: a whole melee round, in Hamblen's formalism (3rd edition notes): everyone
 * reveals plays; the speeds of attacks and defenses and their interaction are calculated; then
 * the attacks are resolved in order, using the interactions of step 2. So: run attempts on the
 * Stumble table first (against the attackers as they stand), then changes of tactics, then every
 * hit and DRM is fixed, then the hits are resolved in order. A killed attacker no longer attacks;
 * a later hit on a killed horse strikes its rider with the horse's DRM; armor damaged earlier in
 * the round is damaged for later hits. */
#include "rules/magic_realm/mr.h"

#include "rules/common/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct roster {
    mr_unit *u[MR_ROSTER_MAX];
    int start_wounds[MR_ROSTER_MAX];
    int n;
    /* The round of the plays (play.c) was played before an attack of the Resolution phase
     * could kill a unit that played: such a unit is loaded, and its strikes, and those at it,
     * lapse as within the round (the attacker was killed before its attack, the target is
     * already dead). A round given whole names only the living. */
    bool dead_lapse;
} roster;

typedef struct round_work {
    mr_round_action ra; /* the round as resolved: given whole, or from state.plays */
    roster ro;
    mr_strike strikes[MR_COMBAT_MAX * MR_ATTACKS_MAX];
    mr_strike_result results[MR_COMBAT_MAX * MR_ATTACKS_MAX];
    /* each strike as it stood before its hit determination: what a strike skipped because its
     * attacker or target ran away shows */
    mr_strike undetermined[MR_COMBAT_MAX * MR_ATTACKS_MAX];
    int nstrikes;
    mr_stumble runs[MR_RUNS_MAX];
    mr_attacker_ref attackers[MR_ATTACKERS_MAX];
} round_work;

static void roster_free(roster *ro) {
    for (int i = 0; i < ro->n; i++)
        free(ro->u[i]);
}

/* The unit with this id, loaded once per round. */
static mr_unit *roster_get(roster *ro, const json_t *state, const char *id, const char *field,
                           api_error *err) {
    for (int i = 0; i < ro->n; i++)
        if (strcmp(ro->u[i]->id, id) == 0) return ro->u[i];
    if (ro->n >= MR_ROSTER_MAX) {
        mr_rule_error(err, field, "a round may involve at most %d units", MR_ROSTER_MAX);
        return NULL;
    }
    mr_unit *u = calloc(1, sizeof *u);
    if (!u) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        return NULL;
    }
    if (mr_unit_load(state, id, field, u, err) != 0) {
        free(u);
        return NULL;
    }
    if (u->kind == MR_KIND_BYSTANDER) {
        mr_rule_error(err, field, "unit '%s' takes no part in combat (it has no kind)", id);
        free(u);
        return NULL;
    }
    if (u->dead && !ro->dead_lapse) {
        api_error_set(err, 409, "not_applicable", json_pack("{s:s}", "field", field),
                      "unit '%s' is dead", id);
        free(u);
        return NULL;
    }
    /* maneuvers until the round's entries say more: a denizen maneuvers at its counter's move
     * time (its box unknown: declared hits only); a character has none until its entry */
    if (u->kind == MR_KIND_DENIZEN) u->man = (mr_maneuver){true, MR_BOX_NONE, u->move_time};
    u->horse_man =
        (mr_maneuver){u->horse.present && !u->horse.dead, MR_BOX_NONE, u->horse.move_time};
    ro->start_wounds[ro->n] = u->wounds;
    ro->u[ro->n++] = u;
    return u;
}

static const mr_combatant *entry_of(const mr_round_action *ra, const char *id) {
    for (int i = 0; i < ra->ncombatants; i++)
        if (strcmp(ra->c[i].unit, id) == 0) return &ra->c[i];
    return NULL;
}

/* Step 1: every combatant's entry fits its kind; maneuvers for hit determination. */
static int check_combatants(const rules_ctx *ctx, mr_round_action *ra, round_work *w,
                            api_error *err) {
    for (int i = 0; i < ra->ncombatants; i++) {
        mr_combatant *c = &ra->c[i];
        char f[64];
        snprintf(f, sizeof f, "combatants[%d]", i);
        for (int j = 0; j < i; j++)
            if (strcmp(ra->c[j].unit, c->unit) == 0) {
                mr_rule_error(err, f, "unit '%s' has two entries in combatants", c->unit);
                return -1;
            }
        mr_unit *u = roster_get(&w->ro, ctx->state, c->unit, f, err);
        if (!u) return -1;
        u->in_round = true;
        bool riding = u->horse.present && !u->horse.dead;
        if (u->kind == MR_KIND_CHARACTER) {
            if (c->box || c->target[0] || c->hit.simple || c->hit.pair || c->change_tactics) {
                mr_rule_error(err, f,
                              "%s is a character: it maneuvers (maneuver, horse) and attacks "
                              "(attacks); box, target, hit and change_tactics are a denizen's",
                              u->id);
                return -1;
            }
            if (!c->maneuver_given) {
                mr_rule_error(err, f,
                              "%s: give its maneuver ({\"box\", \"move_time\"}, or null for none)",
                              u->id);
                return -1;
            }
            if (c->maneuver.present && c->maneuver_name[0]) {
                const mr_kit_maneuver *m;
                char mf[80];
                snprintf(mf, sizeof mf, "%s.maneuver.name", f);
                if (mr_kit_maneuver_find(u, c->maneuver_name, mf, &m, err) != 0) return -1;
                c->maneuver.move_time = m->move_time;
            }
            if (riding && !c->horse_given) {
                mr_rule_error(err, f,
                              "%s rides a horse: he must play the horse to do his maneuver "
                              "(5.2); give horse {\"box\", \"move_time\"?}",
                              u->id);
                return -1;
            }
        } else {
            if (c->maneuver_given || c->nattacks) {
                mr_rule_error(err, f,
                              "%s is a denizen: it has a box (and a target), not maneuver or "
                              "attacks",
                              u->id);
                return -1;
            }
            if (!c->box) {
                mr_rule_error(err, f, "%s: give the box it moves to (thrust, swing, smash)", u->id);
                return -1;
            }
            if (c->change_tactics && !u->has_other_side) {
                mr_rule_error(err, f, "%s has no other side (setup other_side) to change to",
                              u->id);
                return -1;
            }
        }
        if (c->horse_given && !riding) {
            mr_rule_error(err, f, "%s rides no active horse", u->id);
            return -1;
        }
    }
    return 0;
}

/* Step 2: run attempts, against the attackers as they stand before changes of tactics. Each is
 * checked and its DRM fixed here; the Stumble rolls come once the whole round is known to be
 * legal (roll_runs). */
static int prepare_runs(const rules_ctx *ctx, mr_round_action *ra, round_work *w, api_error *err) {
    for (int i = 0; i < ra->nruns; i++) {
        mr_run_spec *r = &ra->runs[i];
        char f[64];
        snprintf(f, sizeof f, "runs[%d]", i);
        mr_unit *runner = roster_get(&w->ro, ctx->state, r->unit, f, err);
        if (!runner) return -1;
        if (runner->kind != MR_KIND_CHARACTER) {
            mr_rule_error(err, f, "only a character runs away on the Stumble table (5.1)");
            return -1;
        }
        if (mr_run_take_move(ctx, runner, r, f, err) != 0) return -1;
        for (int j = 0; j < i; j++)
            if (strcmp(ra->runs[j].unit, r->unit) == 0) {
                mr_rule_error(err, f, "%s has two run attempts in one round", r->unit);
                return -1;
            }
        int n = 0;
        if (r->attackers_given) {
            char af[80];
            snprintf(af, sizeof af, "%s.attackers", f);
            if (mr_run_attackers(r, ctx->state, af, w->attackers, err) != 0) return -1;
            n = r->nattackers;
        } else { /* the denizens of this round that attack him */
            for (int j = 0; j < ra->ncombatants; j++) {
                const mr_combatant *c = &ra->c[j];
                if (c->nattacks) {
                    for (int k = 0; k < c->nattacks; k++)
                        if (strcmp(c->attacks[k].target, r->unit) == 0) {
                            mr_rule_error(err, f,
                                          "a character attacks %s: give the run's attackers "
                                          "explicitly (a character's attention inline)",
                                          r->unit);
                            return -1;
                        }
                    continue;
                }
                if (strcmp(c->target, r->unit) != 0) continue;
                const mr_unit *d = roster_get(&w->ro, ctx->state, c->unit, f, err);
                if (!d) return -1;
                w->attackers[n++] = (mr_attacker_ref){"", d->move_time, d->flying,
                                                      d->has_red_side && d->red_side_up};
            }
        }
        if (mr_stumble_check(r, w->attackers, n, runner, f, err) != 0) return -1;
        mr_stumble *st = &w->runs[i];
        *st = (mr_stumble){.move_time = r->move_time, .with = r->with, .flying = r->flying};
        mr_stumble_prepare(st, w->attackers, n);
    }
    return 0;
}

/* The Stumble rolls, in the order of runs: a completed run takes the runner out of the round. */
static void roll_runs(const rules_ctx *ctx, const mr_round_action *ra, round_work *w) {
    for (int i = 0; i < ra->nruns; i++) {
        mr_stumble *st = &w->runs[i];
        mr_stumble_roll(st, ctx->dice);
        for (int j = 0; j < w->ro.n; j++)
            if (strcmp(w->ro.u[j]->id, ra->runs[i].unit) == 0) w->ro.u[j]->escaped = st->completed;
    }
}

/* Step 3: changes of tactics flip the counters; then every maneuver is known. */
static void set_maneuvers(const mr_round_action *ra, round_work *w) {
    for (int i = 0; i < w->ro.n; i++) {
        mr_unit *u = w->ro.u[i];
        const mr_combatant *c = entry_of(ra, u->id);
        if (u->kind == MR_KIND_DENIZEN && c && c->change_tactics) {
            mr_attack_stats a = u->attack;
            int m = u->move_time;
            u->attack = u->other_attack;
            u->move_time = u->other_move_time;
            u->other_attack = a;
            u->other_move_time = m;
            u->changed = true;
        }
        if (u->kind == MR_KIND_DENIZEN)
            u->man = (mr_maneuver){true, c ? c->box : MR_BOX_NONE, u->move_time};
        else if (c)
            u->man = c->maneuver;
        bool riding = u->horse.present && !u->horse.dead;
        u->horse_man = (mr_maneuver){riding, c && c->horse_given ? c->horse_box : MR_BOX_NONE,
                                     c && c->horse_move_time != MR_UNSET ? c->horse_move_time
                                                                         : u->horse.move_time};
    }
}

/* Step 4: every attack's hit and DRM, fixed now. */
static int add_strike(const rules_ctx *ctx, const mr_round_action *ra, round_work *w,
                      const mr_options *o, mr_unit *attacker, const char *target_id,
                      int requested_aim, const mr_attack_spec *spec, const mr_hit_spec *hit,
                      const char *field, api_error *err) {
    char tf[80];
    snprintf(tf, sizeof tf, "%s.target", field);
    mr_unit *t = roster_get(&w->ro, ctx->state, target_id, tf, err);
    if (!t) return -1;
    if (t == attacker) {
        mr_rule_error(err, tf, "a unit does not attack itself");
        return -1;
    }
    if (t->kind == MR_KIND_CHARACTER && !t->in_round) {
        mr_rule_error(err, tf,
                      "%s is attacked: give it an entry in combatants with its maneuver (null "
                      "for none)",
                      t->id);
        return -1;
    }
    int k = w->nstrikes++;
    mr_strike *s = &w->strikes[k];
    memset(s, 0, sizeof *s);
    s->listed = k;
    s->attacker = attacker;
    s->target = t;
    bool denizen = attacker->kind == MR_KIND_DENIZEN;
    if (denizen) {
        const mr_combatant *c = entry_of(ra, attacker->id);
        s->a = attacker->attack;
        s->box = c ? c->box : MR_BOX_NONE;
        snprintf(s->name, sizeof s->name, "%s", attacker->name);
        s->red_side_up_kill =
            attacker->has_red_side && attacker->red_side_up && s->a.kind == MR_STRIKING;
    } else if (mr_strike_take_attack(ctx, attacker, spec, s, field, err) != 0) {
        return -1;
    }
    char af[80];
    snprintf(af, sizeof af, "%s.aim", field);
    if (mr_pick_aim(s, requested_aim, denizen, af, err) != 0) return -1;
    mr_strike_pick_table(s, ra->table, ra->kludge, o);
    if (mr_strike_check(s, field, err) != 0) return -1;
    /* The hit is determined even when a run may take the attacker or the target away: whether
     * it does is for the Stumble roll, and the round's legality may not wait for a die
     * (rules/ruleset.h). skip_escaped() sets such a strike back once the runs are rolled. */
    w->undetermined[k] = *s;
    char hf[80];
    snprintf(hf, sizeof hf, "%s.hit", field);
    return mr_hit_determine(s, hit, hf, err);
}

static int build_strikes(const rules_ctx *ctx, const mr_round_action *ra, round_work *w,
                         const mr_options *o, api_error *err) {
    for (int i = 0; i < ra->ncombatants; i++) {
        const mr_combatant *c = &ra->c[i];
        mr_unit *u = roster_get(&w->ro, ctx->state, c->unit, "combatants", err);
        if (!u) return -1;
        char f[64];
        if (u->kind == MR_KIND_DENIZEN) {
            if (!c->target[0]) continue;
            snprintf(f, sizeof f, "combatants[%d]", i);
            if (add_strike(ctx, ra, w, o, u, c->target, MR_AIM_NONE, NULL, &c->hit, f, err) != 0)
                return -1;
            continue;
        }
        for (int j = 0; j < c->nattacks; j++) {
            const mr_round_attack *a = &c->attacks[j];
            snprintf(f, sizeof f, "combatants[%d].attacks[%d]", i, j);
            if (add_strike(ctx, ra, w, o, u, a->target, a->aim, &a->attack, &a->hit, f, err) != 0)
                return -1;
        }
    }
    return 0;
}

/* After the Stumble rolls: no hit determination for an attack by or on a unit that got away. */
static void skip_escaped(round_work *w) {
    for (int k = 0; k < w->nstrikes; k++) {
        mr_strike *s = &w->strikes[k];
        if (!s->attacker->escaped && !s->target->escaped) continue;
        *s = w->undetermined[k];
        s->hit = MR_HIT_UNSET;
        w->results[k].skipped = true;
        snprintf(w->results[k].why_skipped, sizeof w->results[k].why_skipped, "%s ran away",
                 s->attacker->escaped ? s->attacker->id : s->target->id);
    }
}

/* Step 5: the order of resolution: by time (ties: the longer weapon, then the listed order), by
 * length (ties: the faster attack, then the listed order), or as listed. */
static int goes_after(const mr_strike *a, const mr_strike *b, int kind) {
    if (kind == MR_ORDER_TIME) {
        if (a->a.time != b->a.time) return a->a.time > b->a.time;
        if (a->a.length != b->a.length) return a->a.length < b->a.length;
    } else if (kind == MR_ORDER_LENGTH) {
        if (a->a.length != b->a.length) return a->a.length < b->a.length;
        if (a->a.time != b->a.time) return a->a.time > b->a.time;
    }
    return a->listed > b->listed;
}

/* A stable insertion sort: a round has few attacks. */
static void sort_strikes(mr_strike **order, int n, int kind) {
    for (int i = 1; i < n; i++) {
        mr_strike *x = order[i];
        int j = i - 1;
        while (j >= 0 && goes_after(order[j], x, kind)) {
            order[j + 1] = order[j];
            j--;
        }
        order[j + 1] = x;
    }
}

static json_t *effects_new(const round_work *w) {
    json_t *list = json_array();
    for (int i = 0; i < w->ro.n; i++) {
        const mr_unit *u = w->ro.u[i];
        json_t *e = json_pack("{s:s, s:s}", "unit", u->id, "status",
                              u->dead      ? "killed"
                              : u->escaped ? "escaped"
                                           : "alive");
        if (u->kind == MR_KIND_CHARACTER) {
            json_object_set_new(e, "wounds", json_integer(u->wounds - w->ro.start_wounds[i]));
            json_t *armor = json_array();
            for (int j = 0; j < u->narmor; j++)
                json_array_append_new(armor, json_string(mr_armor_state_name(u->armor[j].state)));
            json_object_set_new(e, "armor", armor);
        }
        if (u->horse.present)
            json_object_set_new(e, "horse", json_string(u->horse.dead ? "killed" : "alive"));
        if (u->has_red_side)
            json_object_set_new(e, "red_side_up", json_string(u->red_side_up ? "yes" : "no"));
        json_array_append_new(list, e);
    }
    return list;
}

static int resolve_round(const rules_ctx *ctx, mr_round_action *ra, round_work *w,
                         rules_outcome *out, api_error *err) {
    mr_options o;
    mr_options_read(ctx->options, &o);
    /* Every refusal comes before the first die (rules/ruleset.h): the entries, the runs and
     * every attack with its hit are checked, then the Stumble rolls, then the attacks. */
    if (check_combatants(ctx, ra, w, err) != 0 || prepare_runs(ctx, ra, w, err) != 0) return -1;
    set_maneuvers(ra, w);
    if (build_strikes(ctx, ra, w, &o, err) != 0) return -1;
    roll_runs(ctx, ra, w);
    skip_escaped(w);

    mr_strike *order[MR_COMBAT_MAX * MR_ATTACKS_MAX];
    for (int i = 0; i < w->nstrikes; i++)
        order[i] = &w->strikes[i];
    sort_strikes(order, w->nstrikes, ra->order ? ra->order : o.order);

    json_t *attacks = json_array(), *runs = json_array(), *tactics = json_array();
    char *sum = out->summary;
    size_t cap = sizeof out->summary;
    sum[0] = '\0';
    mr_say(sum, cap, "Round");
    for (int i = 0; i < ra->nruns; i++) {
        json_array_append_new(runs, mr_stumble_json_new(&w->runs[i], ra->runs[i].unit));
        mr_say(sum, cap, "%s ", i ? ";" : ":");
        mr_stumble_say(&w->runs[i], ra->runs[i].unit, sum, cap);
    }
    for (int i = 0; i < ra->ncombatants; i++)
        if (ra->c[i].change_tactics) {
            json_array_append_new(tactics, json_string(ra->c[i].unit));
            mr_say(sum, cap, "%s %s changes tactics", ra->nruns || i ? ";" : ":", ra->c[i].unit);
        }
    for (int i = 0; i < w->nstrikes; i++) {
        mr_strike *s = order[i];
        mr_strike_result *r = &w->results[s - w->strikes];
        if (!r->skipped) {
            if (s->attacker->dead) {
                r->skipped = true;
                snprintf(r->why_skipped, sizeof r->why_skipped, "%s was killed before its attack",
                         s->attacker->id);
            } else if (s->target->dead) {
                r->skipped = true;
                snprintf(r->why_skipped, sizeof r->why_skipped, "%s is already dead",
                         s->target->id);
            } else {
                mr_strike_resolve(s, &o, ctx->dice, r);
            }
        }
        json_t *j = mr_strike_json_new(s, r);
        json_object_set_new(j, "order", json_integer(i + 1));
        json_array_append_new(attacks, j);
        mr_say(sum, cap, "%s ", (i || ra->nruns || json_array_size(tactics)) ? ";" : ":");
        mr_strike_say(s, r, sum, cap);
    }
    out->result = json_pack("{s:o, s:o, s:o, s:o}", "runs", runs, "tactics_changed", tactics,
                            "attacks", attacks, "effects", effects_new(w));
    out->new_state =
        mr_state_with_units_new(ctx->state, (const mr_unit *const *)w->ro.u, (size_t)w->ro.n);
    if (mr_finish(out, err) != 0) return -1;
    return mr_round_ends(ctx, out, err);
}

int mr_round_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const mr_round_action *given = action;
    bool from_plays = mr_round_from_plays(given);
    /* A round given whole moves every side's units on the referee's word. The round of the
     * plays in the state takes no one's word: any side may call for it; only its order, table
     * and kludge (the table's choices) are the referee's. */
    if (!rules_actor_is_referee(ctx) &&
        (!from_plays || given->order || given->table != MR_TABLE_DEFAULT ||
         given->kludge != MR_UNSET)) {
        api_error_set(err, 403, "forbidden", NULL,
                      from_plays ? "a round's order, table and kludge are the referee's"
                                 : "a round given whole moves every side's units: it is the "
                                   "referee's action (a side plays its units with play)");
        return -1;
    }
    round_work *w = calloc(1, sizeof *w);
    if (!w) {
        api_error_set(err, 503, "out_of_memory", NULL, "the daemon ran out of memory");
        return -1;
    }
    w->ra = *given;
    w->ro.dead_lapse = from_plays;
    int rc = from_plays ? mr_round_of_plays(ctx->state, &w->ra, err) : 0;
    if (rc == 0) rc = resolve_round(ctx, &w->ra, w, out, err);
    roster_free(&w->ro);
    free(w);
    return rc;
}
