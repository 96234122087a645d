/* The actions of horse-and-musket: fire, melee, move, morale, attach (end_phase is turn.c's).
 *
 * Fire: "Test when a unit loses 25 percent effectiveness or more from firing"; a unit that fails
 * retreats a full move, its back to the enemy, "not applicable if an enemy unit with which fire
 * has been exchanged also loses effectiveness and fails a morale test" (exchange: hits_back).
 * Melee: "the unit suffering the most hits, including any inflicted by firing, retreats a full
 * move ... A tie results in another round of meleeing on the following turn"; losing a melee is
 * a test too; the pair locked by a tie may not move apart or fire elsewhere, and fights its next
 * round in a later turn's Melee phase (turn.c holds the phase back until it has). Hits are given
 * (options.hits "given", the default) or rolled from a dice notation ("rolled"): the firing and
 * melee tables are the game's, not in our source. */
#include "rules/horse_and_musket/hm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/combat_table.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

/* ---- fire and melee: decode / encode --------------------------------------------------------- */

static int read_hits(const json_t *fields, const char *name, int *given, char *expr, size_t cap,
                     bool *present, api_error *err) {
    const json_t *v = rules_in_present(fields, name);
    *present = v != NULL;
    if (!v) return 0;
    if (json_is_string(v)) return rules_in_text(fields, "", name, true, expr, cap, err);
    return rules_in_int(fields, "", name, true, 0, 99, given, err);
}

static int combat_decode(const json_t *fields, hm_combat_action *a, bool melee, api_error *err) {
    static const char *const fire_keys[] = {"target",         "hits",     "hits_back", "situation",
                                            "situation_back", "exchange", NULL};
    static const char *const melee_keys[] = {"target",    "hits",           "hits_back",
                                             "situation", "situation_back", NULL};
    if (json_in_only_keys(fields, "", melee ? melee_keys : fire_keys, err) != 0 ||
        rules_in_text(fields, "", "target", true, a->target, sizeof a->target, err) != 0 ||
        read_hits(fields, "hits", &a->hits, a->hits_expr, sizeof a->hits_expr, &a->has_hits, err) !=
            0 ||
        read_hits(fields, "hits_back", &a->hits_back, a->back_expr, sizeof a->back_expr,
                  &a->has_back, err) != 0 ||
        rules_in_text(fields, "", "situation", false, a->situation, sizeof a->situation, err) !=
            0 ||
        rules_in_text(fields, "", "situation_back", false, a->situation_back,
                      sizeof a->situation_back, err) != 0 ||
        rules_in_bool(fields, "", "exchange", &a->exchange_asked, err) != 0)
        return -1;
    /* Whether the hits are given here or rolled from the setup's table is for resolve, which
     * sees the state (hits_plan). */
    a->exchange = a->has_back || a->exchange_asked || melee;
    return 0;
}

int hm_fire_decode(const json_t *fields, void *out, api_error *err) {
    return combat_decode(fields, out, false, err);
}

int hm_melee_decode(const json_t *fields, void *out, api_error *err) {
    return combat_decode(fields, out, true, err);
}

json_t *hm_combat_encode(const void *action) {
    const hm_combat_action *a = action;
    json_t *o = json_pack("{s:s}", "target", a->target);
    if (!o) return NULL;
    if (a->has_hits)
        json_object_set_new(o, "hits",
                            a->hits_expr[0] ? json_string(a->hits_expr) : json_integer(a->hits));
    if (a->has_back)
        json_object_set_new(o, "hits_back",
                            a->back_expr[0] ? json_string(a->back_expr)
                                            : json_integer(a->hits_back));
    if (a->situation[0]) json_object_set_new(o, "situation", json_string(a->situation));
    if (a->situation_back[0])
        json_object_set_new(o, "situation_back", json_string(a->situation_back));
    if (a->exchange_asked) json_object_set_new(o, "exchange", json_true());
    return o;
}

/* Where one side's hits come from, decided before any die is rolled (rules/ruleset.h: a refusal
 * never follows a die, so both sides' are planned before either is rolled): the setup's firing
 * or melee table (the umpire rolls the row's hits: no fact from the acting side), else the
 * hits given, or rolled from the notation sent when options.hits says so. */
typedef struct hits_plan {
    combat_plan table; /* table.from_table: the setup's row */
    int given;
    const char *expr;
} hits_plan;

/* `m` formats a fire table's range band (NULL: melee, range -1). */
static int hits_plan_make(const rules_ctx *ctx, const char *table_key, const table_measure *m,
                          const hm_unit *by, int64_t range, const char *situation, bool present,
                          int given, const char *expr, const char *field, hits_plan *p,
                          api_error *err) {
    memset(p, 0, sizeof *p);
    if (combat_plan_make(ctx->state, table_key, m, hm_type_name(by->type), range, situation,
                         present, field, &p->table, err) != 0)
        return -1;
    if (p->table.from_table) return 0;
    if (!present) {
        api_error_field(err, field,
                        "the hits scored: an integer, or a dice notation when options.hits is "
                        "rolled (or a setup table that decides them)");
        return -1;
    }
    bool rolled = hm_hits_rolled(ctx->options);
    if (rolled != (expr[0] != '\0')) {
        api_error_set(err, 422, rolled ? "hits_must_be_rolled" : "hits_must_be_given",
                      json_pack("{s:s}", "field", field),
                      rolled ? "options.hits is rolled: send %s as a dice notation (\"2d6-4\")"
                             : "options.hits is given: send %s as an integer",
                      field);
        return -1;
    }
    p->given = given;
    p->expr = expr;
    return rolled ? hm_check_hits(expr, field, err) : 0;
}

/* The hits of one side, once planned: the table row's (rolled), given, or rolled. */
static int hits_roll(const rules_ctx *ctx, const hits_plan *p, const char *field, int *out,
                     api_error *err) {
    if (p->table.from_table) return combat_pick_roll(ctx->dice, &p->table.pick, field, out, err);
    if (!p->expr[0]) {
        *out = p->given;
        return 0;
    }
    return hm_roll_hits(ctx->dice, p->expr, field, out, err);
}

/* What a side's word gives of one side's hits, for a claim: "2 hits", "2d6-4 hits" (rolled when
 * accepted), "hits from the fire table". */
static void plan_claim_text(const hits_plan *p, const char *table, char *s, size_t cap) {
    if (p->table.from_table)
        rules_say(s, cap, "hits from the %s", table);
    else if (p->expr[0])
        rules_say(s, cap, "%s hits", p->expr);
    else
        rules_say(s, cap, "%d hit%s", p->given, p->given == 1 ? "" : "s");
}

/* Whether the hits rest on the acting side's word alone (a side acting, options.trust_claims
 * unset, no table row for them): then the action is a claim (rules/common/claims.h). Not when
 * the word can only cost the claimant: no hits on the target and none of its own it states. */
static bool hits_claimed(const rules_ctx *ctx, const hits_plan *ph, const hits_plan *pb,
                         bool back) {
    bool on_target = !ph->table.from_table && (ph->expr[0] || ph->given > 0);
    bool on_self = back && !pb->table.from_table;
    return !claims_trusted(ctx) && (on_target || on_self);
}

/* Makes the action the pending claim, awaiting the target's side; frees the army. */
static int pend(const rules_ctx *ctx, const char *type, const hm_combat_action *a, hm_army *army,
                const hm_unit *target, const char *text, rules_outcome *out, api_error *err) {
    char awaiting[sizeof target->side];
    snprintf(awaiting, sizeof awaiting, "%s", target->side);
    hm_army_free(army);
    return claims_pend(ctx, type, hm_combat_encode(a), awaiting, text, out, err);
}

/* " (fire table row 2: line infantry, 0 in to 12 in, 1d6-3)" after a side's hits. */
static void plan_say(const hits_plan *p, const char *table, char *s, size_t cap) {
    if (p->table.from_table) rules_say(s, cap, " (%s %s)", table, p->table.text);
}

/* The row of each table that decided, for the result (new reference, or NULL for none). */
static json_t *plans_json(const hits_plan *hits, const hits_plan *back) {
    if (!hits->table.from_table && !back->table.from_table) return NULL;
    json_t *o = json_object();
    if (hits->table.from_table) json_object_set_new(o, "hits", json_integer(hits->table.pick.row));
    if (back->table.from_table)
        json_object_set_new(o, "hits_back", json_integer(back->table.pick.row));
    return o;
}

static json_t *after_json(hm_unit *const *units, int n) {
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, json_pack("{s:s, s:i, s:s}", "unit", units[i]->id,
                                              "effectiveness", units[i]->quarters * 25, "state",
                                              hm_state_name(units[i]->state)));
    return list;
}

/* The target of u's fire or melee: an enemy. A retreating u has not returned to normal action
 * (the recovery rule): it neither fires nor fights until it recovers. */
static hm_unit *enemy(hm_army *a, const hm_unit *u, const char *id, api_error *err) {
    if (u->state == HM_RETREATING) {
        api_error_set(err, 409, "retreating", json_pack("{s:s}", "unit", u->id),
                      "unit '%s' is retreating: it returns to normal action only by recovering, "
                      "rolled at the start of its side's turn",
                      u->id);
        return NULL;
    }
    hm_unit *t = hm_army_get(a, id, "target", err);
    if (t && strcmp(t->side, u->side) == 0) {
        hm_rule_error(err, "target", "unit '%s' is on the same side as '%s'", id, u->id);
        return NULL;
    }
    return t;
}

int hm_turn_number(const json_t *state) {
    const json_t *n = json_object_get(json_object_get(state, "turn"), "number");
    return json_is_integer(n) ? (int)json_integer_value(n) : 0;
}

int hm_engaged_check(const rules_ctx *ctx, const hm_unit *u, const hm_unit *target,
                     const char *action, api_error *err) {
    const hm_unit *locked = u->engaged[0] ? u : target && target->engaged[0] ? target : NULL;
    if (!locked) return 0;
    const char *partner = locked->engaged;
    const hm_unit *other = locked == u ? target : u;
    if (!other || strcmp(other->id, partner) != 0) {
        /* "A tie results in another round of meleeing on the following turn": the pair stays
         * together until it has fought it. */
        api_error_set(err, 409, "engaged",
                      json_pack("{s:s, s:s}", "unit", locked->id, "engaged", partner),
                      "unit '%s' is locked in melee with '%s' after a tie: it may not %s until "
                      "their next round of melee",
                      locked->id, partner, action);
        return -1;
    }
    int now = hm_turn_number(ctx->state);
    if (now > 0 && locked->engaged_turn >= now) {
        api_error_set(err, 409, "melee_next_turn",
                      json_pack("{s:s, s:s, s:i}", "unit", u->id, "target", target->id, "turn",
                                locked->engaged_turn + 1),
                      "'%s' and '%s' tied this turn: their next round of melee is on the "
                      "following turn (turn %d)",
                      u->id, target->id, locked->engaged_turn + 1);
        return -1;
    }
    return 0;
}

/* ---- fire ----------------------------------------------------------------------------------- */

int hm_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const hm_combat_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    json_t *tests = json_array(), *retreats = json_array();
    hm_unit *u = hm_acting(ctx, &army, err), *t = u ? enemy(&army, u, a->target, err) : NULL;
    int hits = 0, back = 0;
    hits_plan ph, pb;
    memset(&pb, 0, sizeof pb);
    int64_t range = t ? table_dist(u->at, t->at) : 0;
    table_measure m;
    table_measure_read(ctx->options, &m);
    if (!t ||
        hits_plan_make(ctx, "fire_table", &m, u, range, a->situation, a->has_hits, a->hits,
                       a->hits_expr, "hits", &ph, err) != 0 ||
        (a->exchange &&
         hits_plan_make(ctx, "fire_table", &m, t, range, a->situation_back, a->has_back,
                        a->hits_back, a->back_expr, "hits_back", &pb, err) != 0))
        goto fail;
    if (hm_engaged_check(ctx, u, NULL, "fire", err) != 0 ||
        (a->exchange && hm_engaged_check(ctx, t, NULL, "fire back", err) != 0))
        goto fail;
    if (a->exchange && t->state == HM_RETREATING) {
        hm_rule_error(err, "hits_back",
                      "unit '%s' is retreating and does not fire back until it recovers", t->id);
        goto fail;
    }
    if (hits_claimed(ctx, &ph, &pb, a->exchange)) {
        char text[256] = "";
        rules_say(text, sizeof text, "%s fires at %s: ", u->id, t->id);
        plan_claim_text(&ph, "fire table", text, sizeof text);
        if (a->exchange) {
            rules_say(text, sizeof text, ", %s fires back: ", t->id);
            plan_claim_text(&pb, "fire table", text, sizeof text);
        }
        json_decref(tests);
        json_decref(retreats);
        return pend(ctx, "fire", a, &army, t, text, out, err);
    }
    /* The fire is legal: from here on it commits with whatever the dice say. */
    if (hits_roll(ctx, &ph, "hits", &hits, err) != 0 ||
        (a->exchange && hits_roll(ctx, &pb, "hits_back", &back, err) != 0))
        goto fail;
    table_pt u_at = u->at, t_at = t->at;
    hm_unit *side[2] = {t, u};
    int lost[2] = {hm_take_hits(t, hits), a->exchange ? hm_take_hits(u, back) : 0};
    bool failed[2] = {false, false};
    char *s = out->summary;
    size_t cap = sizeof out->summary;
    rules_say(s, cap, "%s fires at %s", u->id, t->id);
    if (ph.table.from_table || pb.table.from_table) {
        char len[48];
        table_length_text(&m, range, len, sizeof len);
        rules_say(s, cap, " at %s", len);
    }
    rules_say(s, cap, ": %d hit%s", hits, hits == 1 ? "" : "s");
    plan_say(&ph, "fire table", s, cap);
    if (a->exchange) {
        rules_say(s, cap, ", %s fires back: %d hit%s", t->id, back, back == 1 ? "" : "s");
        plan_say(&pb, "fire table", s, cap);
    }
    for (int i = 0; i < 2; i++) {
        if (lost[i] == 0) continue;
        rules_say(s, cap, "; %s loses %d%% (now %d%%)", side[i]->id, lost[i] * 25,
                  side[i]->quarters * 25);
        if (side[i]->state == HM_ELIMINATED) {
            rules_say(s, cap, ": eliminated");
            continue;
        }
        hm_test test;
        if (hm_morale_test(ctx, &army, side[i], "lost 25% to fire", &test) != 0) goto dice;
        rules_say(s, cap, "; ");
        hm_test_text(&test, s, cap);
        json_array_append_new(tests, hm_test_json_new(&test));
        failed[i] = !test.passed;
    }
    for (int i = 0; i < 2; i++) {
        if (!failed[i] || side[i]->state == HM_ELIMINATED) continue;
        if (a->exchange && failed[1 - i]) {
            /* The exception: the enemy it exchanged fire with also lost and failed. */
            rules_say(s, cap,
                      "; %s does not retreat: %s, with which it exchanged fire, also lost "
                      "and failed",
                      side[i]->id, side[1 - i]->id);
            continue;
        }
        if (hm_retreat(ctx, &army, side[i], i == 0 ? u_at : t_at, retreats, s, cap) != 0) goto dice;
    }
    out->result =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:o, s:o, s:o}", "action", "fire", "unit", u->id,
                  "target", t->id, "hits", hits, "hits_back", back, "exchange", a->exchange,
                  "tests", tests, "retreats", retreats, "after", after_json(side, 2));
    json_t *rows = plans_json(&ph, &pb);
    if (rows && out->result)
        json_object_set_new(out->result, "table_rows", rows);
    else
        json_decref(rows);
    return hm_finish(ctx, &army, out, err);
dice:
    api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
fail:
    json_decref(tests);
    json_decref(retreats);
    hm_army_free(&army);
    return -1;
}

/* ---- melee ---------------------------------------------------------------------------------- */

int hm_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const hm_combat_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    json_t *tests = json_array(), *retreats = json_array();
    hm_unit *u = hm_acting(ctx, &army, err), *t = u ? enemy(&army, u, a->target, err) : NULL;
    int hits = 0, back = 0;
    hits_plan ph, pb;
    if (!t ||
        hits_plan_make(ctx, "melee_table", NULL, u, -1, a->situation, a->has_hits, a->hits,
                       a->hits_expr, "hits", &ph, err) != 0 ||
        hits_plan_make(ctx, "melee_table", NULL, t, -1, a->situation_back, a->has_back,
                       a->hits_back, a->back_expr, "hits_back", &pb, err) != 0 ||
        hm_engaged_check(ctx, u, t, "fight another melee", err) != 0)
        goto fail;
    if (hits_claimed(ctx, &ph, &pb, true)) {
        char text[256] = "";
        rules_say(text, sizeof text, "melee %s vs %s: ", u->id, t->id);
        plan_claim_text(&ph, "melee table", text, sizeof text);
        rules_say(text, sizeof text, " on %s, ", t->id);
        plan_claim_text(&pb, "melee table", text, sizeof text);
        rules_say(text, sizeof text, " on %s", u->id);
        json_decref(tests);
        json_decref(retreats);
        return pend(ctx, "melee", a, &army, t, text, out, err);
    }
    /* The melee is legal: from here on it commits with whatever the dice say. */
    if (hits_roll(ctx, &ph, "hits", &hits, err) != 0 ||
        hits_roll(ctx, &pb, "hits_back", &back, err) != 0)
        goto fail;
    hm_take_hits(t, hits);
    hm_take_hits(u, back);
    char *s = out->summary;
    size_t cap = sizeof out->summary;
    rules_say(s, cap, "melee %s vs %s: %d and %d hits", u->id, t->id, hits, back);
    if (ph.table.from_table && pb.table.from_table)
        rules_say(s, cap, " (melee table %s; %s)", ph.table.text, pb.table.text);
    else
        plan_say(ph.table.from_table ? &ph : &pb, "melee table", s, cap);
    rules_say(s, cap, "; this turn (fire included) %s %d, %s %d", u->id, u->hits_this_turn, t->id,
              t->hits_this_turn);
    hm_unit *both[2] = {u, t};
    const char *outcome;
    if (u->hits_this_turn == t->hits_this_turn) {
        outcome = "tie";
        rules_say(s, cap, ": a tie, the melee goes on next turn");
        snprintf(u->engaged, sizeof u->engaged, "%s", t->id);
        snprintf(t->engaged, sizeof t->engaged, "%s", u->id);
        u->engaged_turn = t->engaged_turn = hm_turn_number(ctx->state);
        u->changed = t->changed = true;
    } else {
        hm_unit *loser = u->hits_this_turn > t->hits_this_turn ? u : t;
        hm_unit *winner = loser == u ? t : u;
        outcome = loser == u ? "attacker_lost" : "defender_lost";
        rules_say(s, cap, ": %s suffered the most hits and loses", loser->id);
        loser->engaged[0] = winner->engaged[0] = '\0';
        loser->changed = winner->changed = true;
        if (loser->state == HM_ELIMINATED) {
            rules_say(s, cap, " (eliminated)");
        } else {
            hm_test test;
            if (hm_morale_test(ctx, &army, loser, "lost a melee", &test) != 0) goto dice;
            rules_say(s, cap, "; ");
            hm_test_text(&test, s, cap);
            json_array_append_new(tests, hm_test_json_new(&test));
            if (loser->state != HM_ELIMINATED &&
                hm_retreat(ctx, &army, loser, winner->at, retreats, s, cap) != 0)
                goto dice;
        }
    }
    out->result =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:o, s:o, s:o}", "action", "melee", "unit", u->id,
                  "target", t->id, "hits", hits, "hits_back", back, "outcome", outcome, "tests",
                  tests, "retreats", retreats, "after", after_json(both, 2));
    json_t *rows = plans_json(&ph, &pb);
    if (rows && out->result)
        json_object_set_new(out->result, "table_rows", rows);
    else
        json_decref(rows);
    return hm_finish(ctx, &army, out, err);
dice:
    api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
fail:
    json_decref(tests);
    json_decref(retreats);
    hm_army_free(&army);
    return -1;
}

/* ---- move ------------------------------------------------------------------------------------ */

int hm_move_decode(const json_t *fields, void *out, api_error *err) {
    hm_simple_action *a = out;
    return table_move_decode(fields, &a->move, err);
}

json_t *hm_move_encode(const void *action) {
    const hm_simple_action *a = action;
    return table_move_encode(&a->move);
}

int hm_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const hm_simple_action *a = action;
    hm_army army;
    table_measure m;
    table_measure_read(ctx->options, &m);
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    hm_unit *u = hm_acting(ctx, &army, err);
    if (!u) goto fail;
    if (u->state == HM_RETREATING) {
        api_error_set(err, 409, "retreating", json_pack("{s:s}", "unit", u->id),
                      "unit '%s' is retreating: it rolls to recover at the start of its side's "
                      "turn",
                      u->id);
        goto fail;
    }
    if (hm_engaged_check(ctx, u, NULL, "move", err) != 0) goto fail;
    int64_t length = table_move_length(u->at, &a->move);
    char len[32], allow[32];
    table_length_text(&m, length, len, sizeof len);
    table_length_text(&m, u->movement, allow, sizeof allow);
    if (length > u->movement) {
        hm_rule_error(err, "to", "the move measures %s; unit '%s' moves at most %s", len, u->id,
                      allow);
        goto fail;
    }
    table_pt from = u->at;
    u->at = a->move.to;
    if (a->move.facing >= 0) u->facing = a->move.facing;
    u->changed = true;
    rules_say(out->summary, sizeof out->summary, "%s moves %s of %s to [%lld, %lld] facing %d",
              u->id, len, allow, (long long)u->at.x, (long long)u->at.y, u->facing);
    out->result =
        json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:i}", "action", "move", "unit", u->id, "from",
                  table_pt_json(from), "to", table_pt_json(u->at), "distance", (json_int_t)length,
                  "allowance", (json_int_t)u->movement, "facing", u->facing);
    return hm_finish(ctx, &army, out, err);
fail:
    hm_army_free(&army);
    return -1;
}

/* ---- morale, attach ----------------------------------------------------------------------------
 */

int hm_morale_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"reason", NULL};
    hm_simple_action *a = out;
    return json_in_only_keys(fields, "", keys, err) != 0 ||
                   rules_in_text(fields, "", "reason", false, a->text, sizeof a->text, err) != 0
               ? -1
               : 0;
}

json_t *hm_morale_encode(const void *action) {
    const hm_simple_action *a = action;
    json_t *o = json_object();
    if (o && a->text[0]) json_object_set_new(o, "reason", json_string(a->text));
    return o;
}

int hm_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                      api_error *err) {
    const hm_simple_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    hm_unit *u = hm_acting(ctx, &army, err);
    hm_test t;
    if (!u) goto fail;
    if (hm_morale_test(ctx, &army, u, a->text[0] ? a->text : "called by the table", &t) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    hm_test_text(&t, out->summary, sizeof out->summary);
    hm_unit *after[1] = {u};
    out->result =
        json_pack("{s:s, s:s, s:o, s:b, s:o}", "action", "morale", "unit", u->id, "test",
                  hm_test_json_new(&t), "passed", t.passed, "after", after_json(after, 1));
    return hm_finish(ctx, &army, out, err);
fail:
    hm_army_free(&army);
    return -1;
}

int hm_attach_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"general", NULL};
    hm_simple_action *a = out;
    return json_in_only_keys(fields, "", keys, err) != 0 ||
                   rules_in_text(fields, "", "general", true, a->text, sizeof a->text, err) != 0
               ? -1
               : 0;
}

json_t *hm_attach_encode(const void *action) {
    const hm_simple_action *a = action;
    return json_pack("{s:s}", "general", a->text);
}

int hm_attach_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                      api_error *err) {
    const hm_simple_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    hm_unit *u = hm_acting(ctx, &army, err), *from = NULL;
    if (!u) goto fail;
    for (size_t i = 0; i < army.n; i++)
        if (army.units[i].state != HM_ELIMINATED && strcmp(army.units[i].general, a->text) == 0)
            from = &army.units[i];
    if (!from || strcmp(from->side, u->side) != 0) {
        hm_rule_error(err, "general", "no unit of side '%s' has general '%s' attached", u->side,
                      a->text);
        goto fail;
    }
    if (from == u || u->general[0]) {
        hm_rule_error(err, "unit", "unit '%s' already has general '%s'", u->id, u->general);
        goto fail;
    }
    /* "The general may switch units" */
    snprintf(u->general, sizeof u->general, "%s", a->text);
    from->general[0] = '\0';
    u->changed = from->changed = true;
    rules_say(out->summary, sizeof out->summary, "general %s leaves %s and joins %s", a->text,
              from->id, u->id);
    out->result = json_pack("{s:s, s:s, s:s, s:s}", "action", "attach", "general", a->text, "from",
                            from->id, "to", u->id);
    return hm_finish(ctx, &army, out, err);
fail:
    hm_army_free(&army);
    return -1;
}
