/* The table actions of vis-magica: move (measured; the amendment to page 48), fire (shooting; the
 * correction to page 45: flying targets), melee (casualties; a routed base forced into melee is
 * removed, 10.2) and end_phase (the sequence of play; the casualties of a phase, for 10.2's
 * half-strength rule).
 *
 * House defaults (the rulebook is not among our sources; docs/rules/vis-magica.md): hits are
 * given by the table (the shooting and melee tables are the rulebook's); casualties come from the
 * flank or rear when the attacker's centre lies more than 45 degrees off the target's facing. */
#include "rules/vis_magica/vm.h"

#include "protocol/json_in.h"
#include "rules/common/claims.h"
#include "rules/common/combat_table.h"
#include "rules/common/fields.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define FLANK_ANGLE 45

/* Whether `from` lies more than FLANK_ANGLE degrees off b's facing, on the exact angle (a
 * bearing rounded to the degree would put 45.3 degrees in front). */
static bool off_front(const vm_base *b, table_pt from) {
    double dx = (double)(from.x - b->at.x), dy = (double)(from.y - b->at.y);
    double len = sqrt(dx * dx + dy * dy);
    if (len == 0) return false;
    double a = b->facing * (M_PI / 180.0); /* the facing as a unit vector: 0 is +y */
    return (dx * sin(a) + dy * cos(a)) / len < cos(FLANK_ANGLE * (M_PI / 180.0)) - 1e-12;
}

void vm_casualties(vm_base *b, const vm_base *from, int hits, bool melee, char *text, size_t cap) {
    if (hits <= 0) return;
    bool flank = off_front(b, from->at);
    int lost = hits > b->strength ? b->strength : hits;
    b->strength -= lost;
    b->lost_this_phase += lost;
    if (flank) b->flank_rear_casualties = true;
    if (flank && melee) b->flank_rear_in_melee = true;
    if (b->strength == 0) b->morale = VM_REMOVED;
    b->changed = true;
    rules_say(text, cap, "%s loses %d (strength %d%s)%s", b->id, lost, b->strength,
              b->strength == 0 ? ": removed" : "", flank ? " from the flank or rear" : "");
}

/* ---- move ------------------------------------------------------------------------------------ */

int vm_move_decode(const json_t *fields, void *out, api_error *err) {
    return table_move_decode(fields, out, err);
}

json_t *vm_move_encode(const void *action) {
    return table_move_encode(action);
}

int vm_move_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vm_move_action *a = action;
    vm_table t;
    table_measure m;
    table_measure_read(ctx->options, &m);
    if (vm_table_load(ctx->state, &t, err) != 0) return -1;
    vm_base *b = vm_acting(ctx, &t, err);
    if (!b) goto fail;
    int64_t length = table_move_length(b->at, a);
    char len[32], allow[32];
    table_length_text(&m, length, len, sizeof len);
    table_length_text(&m, b->movement, allow, sizeof allow);
    if (b->movement <= 0) {
        vm_rule_error(err, "unit", "base '%s' has no movement distance in the setup", b->id);
        goto fail;
    }
    if (length > b->movement) {
        vm_rule_error(err, "to", "the move measures %s; base '%s' moves at most %s", len, b->id,
                      allow);
        goto fail;
    }
    const json_t *terrain = json_object_get(ctx->state, "terrain");
    unsigned where = table_terrain_at(terrain, vm_terrain_types, a->to);
    table_pt from = b->at;
    b->at = a->to;
    if (a->facing >= 0) b->facing = a->facing;
    b->changed = true;
    /* Amendment to page 48: close order troops, cavalry and chariots ending a move in difficult
     * or impassable terrain are disordered. */
    bool bad = where & ((1u << VM_DIFFICULT) | (1u << VM_IMPASSABLE));
    bool affected = b->type == VM_CLOSE_ORDER || b->type == VM_CAVALRY || b->type == VM_CHARIOTS;
    bool disorders = bad && affected && !b->disordered;
    if (bad && affected) b->disordered = true;
    const char *kind = where & (1u << VM_IMPASSABLE) ? "impassable" : "difficult";
    rules_say(out->summary, sizeof out->summary, "%s moves %s of %s to [%lld, %lld] facing %d",
              b->id, len, allow, (long long)a->to.x, (long long)a->to.y, b->facing);
    if (bad)
        rules_say(out->summary, sizeof out->summary, "; ends in %s terrain: %s", kind,
                  affected
                      ? (disorders ? "disordered (amendment to page 48)" : "already disordered")
                      : "not disordered (not close order, cavalry or chariots)");
    out->result = json_pack("{s:s, s:s, s:o, s:o, s:I, s:I, s:s, s:b}", "action", "move", "unit",
                            b->id, "from", table_pt_json(from), "to", table_pt_json(b->at),
                            "distance", (json_int_t)length, "allowance", (json_int_t)b->movement,
                            "ends_in", bad ? kind : "open", "disordered", b->disordered);
    return vm_finish(ctx, &t, out, err);
fail:
    vm_table_free(&t);
    return -1;
}

/* ---- shoot and melee ------------------------------------------------------------------------- */

static int hits_decode(const json_t *fields, vm_hits_action *a, bool melee, api_error *err) {
    static const char *const shoot_keys[] = {"target", "hits", "situation", NULL};
    static const char *const melee_keys[] = {"target",    "hits",           "hits_back",
                                             "situation", "situation_back", NULL};
    a->has_hits = rules_in_present(fields, "hits") != NULL;
    a->has_back = rules_in_present(fields, "hits_back") != NULL;
    if (json_in_only_keys(fields, "", melee ? melee_keys : shoot_keys, err) != 0 ||
        rules_in_text(fields, "", "target", true, a->target, sizeof a->target, err) != 0 ||
        rules_in_int(fields, "", "hits", false, 0, 99, &a->hits, err) != 0 ||
        rules_in_int(fields, "", "hits_back", false, 0, 99, &a->hits_back, err) != 0 ||
        rules_in_text(fields, "", "situation", false, a->situation, sizeof a->situation, err) !=
            0 ||
        rules_in_text(fields, "", "situation_back", false, a->situation_back,
                      sizeof a->situation_back, err) != 0)
        return -1;
    return 0;
}

static json_t *hits_encode(const vm_hits_action *a, bool melee) {
    json_t *o = json_pack("{s:s}", "target", a->target);
    if (!o) return NULL;
    if (a->has_hits) json_object_set_new(o, "hits", json_integer(a->hits));
    if (melee && a->has_back) json_object_set_new(o, "hits_back", json_integer(a->hits_back));
    if (a->situation[0]) json_object_set_new(o, "situation", json_string(a->situation));
    if (a->situation_back[0])
        json_object_set_new(o, "situation_back", json_string(a->situation_back));
    return o;
}

/* Where one side's hits come from, decided before any die (rules/ruleset.h): the setup's
 * shooting or melee table, rolled by the umpire; else the hits the table gave (house default: 0
 * when none). */
static int hits_plan(const rules_ctx *ctx, const char *key, const table_measure *m,
                     const vm_base *by, int64_t range, const char *situation, bool sent,
                     const char *field, combat_plan *h, api_error *err) {
    return combat_plan_make(ctx->state, key, m, vm_type_name(by->type), range, situation, sent,
                            field, h, err);
}

int vm_fire_decode(const json_t *fields, void *out, api_error *err) {
    return hits_decode(fields, out, false, err);
}

json_t *vm_fire_encode(const void *action) {
    return hits_encode(action, false);
}

int vm_melee_decode(const json_t *fields, void *out, api_error *err) {
    return hits_decode(fields, out, true, err);
}

json_t *vm_melee_encode(const void *action) {
    return hits_encode(action, true);
}

static vm_base *enemy_target(vm_table *t, const vm_base *b, const char *id, api_error *err) {
    vm_base *target = vm_table_get(t, id, "target", err);
    if (target && strcmp(target->side, b->side) == 0) {
        vm_rule_error(err, "target", "base '%s' is on the same side as '%s'", id, b->id);
        return NULL;
    }
    return target;
}

int vm_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vm_hits_action *a = action;
    vm_table t;
    table_measure m;
    table_measure_read(ctx->options, &m);
    if (vm_table_load(ctx->state, &t, err) != 0) return -1;
    vm_base *b = vm_acting(ctx, &t, err), *target = b ? enemy_target(&t, b, a->target, err) : NULL;
    if (!target) goto fail;
    if (!b->range_short) {
        vm_rule_error(err, "unit", "base '%s' has no range in the setup: it does not shoot", b->id);
        goto fail;
    }
    int64_t d = table_dist(b->at, target->at);
    char dist[32], s_range[32], l_range[32];
    table_length_text(&m, d, dist, sizeof dist);
    table_length_text(&m, b->range_short, s_range, sizeof s_range);
    table_length_text(&m, b->range_long, l_range, sizeof l_range);
    const char *band;
    if (target->flying) {
        /* Correction to page 45: flying bases only at short range, and that counts as long. */
        if (!table_within(b->at, target->at, b->range_short)) {
            vm_rule_error(err, "target",
                          "base '%s' flies and is %s away: flying bases can be shot at only at "
                          "short range (%s) (correction to page 45)",
                          target->id, dist, s_range);
            goto fail;
        }
        band = "long";
    } else if (table_within(b->at, target->at, b->range_short)) {
        band = "short";
    } else if (table_within(b->at, target->at, b->range_long)) {
        band = "long";
    } else {
        vm_rule_error(err, "target", "base '%s' is %s away, beyond long range (%s)", target->id,
                      dist, l_range);
        goto fail;
    }
    combat_plan hs;
    if (hits_plan(ctx, "fire_table", &m, b, d, a->situation, a->has_hits, "hits", &hs, err) != 0)
        goto fail;
    /* Hits given without a table are the shooter's word: a claim the target's side accepts
     * (rules/common/claims.h), unless it claims none. */
    if (!hs.from_table && a->hits > 0 && !claims_trusted(ctx)) {
        char text[200];
        snprintf(text, sizeof text, "%s shoots at %s at %s: %d hit%s", b->id, target->id, dist,
                 a->hits, a->hits == 1 ? "" : "s");
        char awaiting[sizeof target->side];
        snprintf(awaiting, sizeof awaiting, "%s", target->side);
        vm_table_free(&t);
        return claims_pend(ctx, "fire", vm_fire_encode(a), awaiting, text, out, err);
    }
    /* The shot is legal: from here on it commits with whatever the dice say. */
    int hits = a->hits;
    if (hs.from_table && combat_pick_roll(ctx->dice, &hs.pick, "hits", &hits, err) != 0) goto fail;
    rules_say(out->summary, sizeof out->summary, "%s shoots at %s%s at %s: %s range%s", b->id,
              target->id, target->flying ? " (flying)" : "", dist, band,
              target->flying ? " (a flying target: only at short range, counted as long)" : "");
    if (hs.from_table)
        rules_say(out->summary, sizeof out->summary, "; %d hit%s (shooting table %s)", hits,
                  hits == 1 ? "" : "s", hs.text);
    if (hits) {
        rules_say(out->summary, sizeof out->summary, "; ");
        vm_casualties(target, b, hits, false, out->summary, sizeof out->summary);
    } else {
        rules_say(out->summary, sizeof out->summary, "; no hits");
    }
    out->result = json_pack(
        "{s:s, s:s, s:s, s:I, s:s, s:b, s:i, s:i, s:i, s:b, s:s}", "action", "fire", "unit", b->id,
        "target", target->id, "distance", (json_int_t)d, "range", band, "flying_target",
        target->flying, "hits", hits, "target_strength", target->strength, "lost_this_phase",
        target->lost_this_phase, "flank_rear_casualties", target->flank_rear_casualties,
        "target_morale", vm_morale_name(target->morale));
    if (hs.from_table && out->result)
        json_object_set_new(out->result, "table_rows", json_pack("{s:i}", "hits", hs.pick.row));
    return vm_finish(ctx, &t, out, err);
fail:
    vm_table_free(&t);
    return -1;
}

int vm_melee_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const vm_hits_action *a = action;
    vm_table t;
    if (vm_table_load(ctx->state, &t, err) != 0) return -1;
    vm_base *b = vm_acting(ctx, &t, err), *target = b ? enemy_target(&t, b, a->target, err) : NULL;
    if (!target) goto fail;
    if (b->morale == VM_ROUTED) {
        vm_rule_error(err, "unit", "base '%s' is routed and does not charge into melee", b->id);
        goto fail;
    }
    bool removed = false;
    combat_plan hs, hb;
    memset(&hs, 0, sizeof hs);
    memset(&hb, 0, sizeof hb);
    int hits = a->hits, back = a->hits_back;
    if (target->morale != VM_ROUTED &&
        (hits_plan(ctx, "melee_table", NULL, b, -1, a->situation, a->has_hits, "hits", &hs, err) !=
             0 ||
         hits_plan(ctx, "melee_table", NULL, target, -1, a->situation_back, a->has_back,
                   "hits_back", &hb, err) != 0))
        goto fail;
    /* Either side's hits without a table row are the attacker's word: a claim the target's
     * side accepts (rules/common/claims.h). A routed target is removed whatever the hits. */
    if (target->morale != VM_ROUTED && (!hs.from_table || !hb.from_table) && !claims_trusted(ctx)) {
        char text[200];
        snprintf(text, sizeof text, "%s in melee with %s: ", b->id, target->id);
        rules_say(text, sizeof text, hs.from_table ? "hits from the melee table" : "%d hit%s", hits,
                  hits == 1 ? "" : "s");
        rules_say(text, sizeof text,
                  hb.from_table ? " and hits back from the melee table" : " and %d hit%s back",
                  back, back == 1 ? "" : "s");
        char awaiting[sizeof target->side];
        snprintf(awaiting, sizeof awaiting, "%s", target->side);
        vm_table_free(&t);
        return claims_pend(ctx, "melee", vm_melee_encode(a), awaiting, text, out, err);
    }
    if (target->morale == VM_ROUTED) {
        /* 10.2: a routed base forced into melee by an enemy base is removed from the field. */
        target->morale = VM_REMOVED;
        target->changed = true;
        removed = true;
        rules_say(out->summary, sizeof out->summary,
                  "%s forces routed %s into melee: %s is removed from the field (10.2)", b->id,
                  target->id, target->id);
    } else {
        /* The melee is legal: from here on it commits with whatever the dice say. */
        if ((hs.from_table && combat_pick_roll(ctx->dice, &hs.pick, "hits", &hits, err) != 0) ||
            (hb.from_table && combat_pick_roll(ctx->dice, &hb.pick, "hits_back", &back, err) != 0))
            goto fail;
        rules_say(out->summary, sizeof out->summary, "%s in melee with %s: ", b->id, target->id);
        if (hs.from_table)
            rules_say(out->summary, sizeof out->summary, "%d and %d hits (melee table %s; %s); ",
                      hits, back, hs.text, hb.text);
        char text[300] = "";
        vm_casualties(target, b, hits, true, text, sizeof text);
        if (hits && back) rules_say(text, sizeof text, "; ");
        vm_casualties(b, target, back, true, text, sizeof text);
        rules_say(out->summary, sizeof out->summary, "%s", text[0] ? text : "no casualties");
    }
    out->result =
        json_pack("{s:s, s:s, s:s, s:b, s:i, s:i, s:i, s:i, s:s, s:s}", "action", "melee", "unit",
                  b->id, "target", target->id, "target_removed", removed, "hits", hits, "hits_back",
                  back, "strength", b->strength, "target_strength", target->strength, "morale",
                  vm_morale_name(b->morale), "target_morale", vm_morale_name(target->morale));
    if (!removed && hs.from_table && out->result)
        json_object_set_new(out->result, "table_rows",
                            json_pack("{s:i, s:i}", "hits", hs.pick.row, "hits_back", hb.pick.row));
    return vm_finish(ctx, &t, out, err);
fail:
    vm_table_free(&t);
    return -1;
}

/* ---- end_phase ---------------------------------------------------------------------------------
 */

/* The next phase (vm_sequence). A phase's end clears its casualties (10.2: "lost half or more of
 * its remaining strength that phase"); a new turn also ends "this turn's melee phase" of 10.1's
 * flank or rear casualties. rules_resolve has checked that the player or the referee ends it. */
int vm_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err) {
    (void)action;
    seq_turn turn;
    seq_change chg;
    if (seq_end_phase_begin(&vm_sequence, ctx, &turn, &chg, out, err) != 0) return -1;
    vm_table t;
    if (vm_table_load(ctx->state, &t, err) != 0) return -1;
    int reset = 0;
    for (size_t i = 0; i < t.n; i++) {
        vm_base *b = &t.bases[i];
        if (!b->lost_this_phase && !(chg.new_turn && b->flank_rear_in_melee)) continue;
        b->lost_this_phase = 0;
        if (chg.new_turn) b->flank_rear_in_melee = false;
        b->changed = true;
        reset++;
    }
    if (reset)
        rules_say(out->summary, sizeof out->summary,
                  "; the casualties of the phase are cleared on %d base%s (10.2 counts losses "
                  "within a phase)",
                  reset, reset == 1 ? "" : "s");
    if (chg.new_turn)
        rules_say(out->summary, sizeof out->summary,
                  "; the last turn's melee no longer counts as flank or rear casualties (10.1)");
    out->result = seq_end_phase_result_new(&vm_sequence, &turn, &chg);
    json_object_set_new(out->result, "bases_reset", json_integer(reset));
    if (vm_finish(ctx, &t, out, err) != 0) return -1;
    json_object_set_new(out->new_state, "turn", seq_turn_json(&vm_sequence, &turn));
    return 0;
}
