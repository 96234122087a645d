/* The morale test (TM, TM+n) and rally: the charts use them but do not say how they are rolled
 * (rules-notes: 12.2 and 12.5 are not in our source). The module ships a labelled house default,
 * logged with every test, and options.morale_dice overrides its die:
 *   roll 1d6 (or 2d6), add the test's modifier (TM+2: +2); the unit passes when the total is at
 *   most its morale. A failure costs one grade: good order or march column -> disorganized,
 *   disorganized -> routed, routed -> one step lost.
 * Rally (sequence of play, B): a routed unit tests and, passing, becomes disorganized (12.5); a
 * disorganized unit in an enemy zone of control tests and, passing, is back in good order; one
 * outside any enemy zone of control reorganises without a test (12.2). A failed rally changes
 * nothing. */
#include "rules/vaevictis_corbach/vc.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"

#include <stdio.h>
#include <string.h>

const char vc_morale_procedure[] =
    "house default: 1d6 (options.morale_dice) + modifier <= morale passes; a failure costs one "
    "grade (good order -> disorganized -> routed -> a step)";

static void grade_down(vc_unit *u, bool by_combat, vc_test *t) {
    switch (u->state) {
    case VC_GOOD:
    case VC_MARCH_COLUMN:
        u->state = VC_DISORGANIZED;
        if (by_combat) u->disorganized_by_combat = true;
        break;
    case VC_DISORGANIZED:
        u->state = VC_ROUTED;
        break;
    case VC_ROUTED:
        u->strength--;
        t->steps_lost = 1;
        if (u->strength <= 0) {
            u->strength = 0;
            u->state = VC_ELIMINATED;
        }
        break;
    case VC_ELIMINATED:
        break;
    }
}

int vc_morale_test(dice_source *ds, const vc_options *o, vc_unit *u, int modifier, bool by_combat,
                   const char *why, vc_test *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->unit, sizeof out->unit, "%s", u->id);
    snprintf(out->why, sizeof out->why, "%s", why);
    out->modifier = modifier;
    out->before = u->state;
    int dice[2] = {0, 0};
    if (dice_roll(ds, "morale", o->morale_dice == 2 ? "2d6" : "1d6", o->morale_dice, 6, dice) != 0)
        return -1;
    out->roll = dice[0] + dice[1];
    dice_set_value(ds, out->roll);
    out->passed = out->roll + modifier <= u->morale;
    if (!out->passed) grade_down(u, by_combat, out);
    u->changed = true;
    out->after = u->state;
    return 0;
}

json_t *vc_test_json_new(const vc_test *t) {
    return json_pack("{s:s, s:s, s:i, s:i, s:b, s:s, s:s, s:i}", "unit", t->unit, "test", t->why,
                     "modifier", t->modifier, "roll", t->roll, "passed", t->passed, "before",
                     vc_state_name(t->before), "after", vc_state_name(t->after), "steps_lost",
                     t->steps_lost);
}

void vc_test_text(const vc_test *t, const vc_unit *u, char *out, size_t cap) {
    rules_say(out, cap, "%s %s: %d", t->unit, t->why, t->roll);
    if (t->modifier) rules_say(out, cap, "%+d=%d", t->modifier, t->roll + t->modifier);
    rules_say(out, cap, " %s morale %d, %s", t->passed ? "<=" : ">", u->morale,
              t->passed       ? "passes"
              : t->steps_lost ? (t->after == VC_ELIMINATED ? "fails: loses its last step"
                                                           : "fails: loses a step")
                              : "fails");
    if (!t->passed && !t->steps_lost) rules_say(out, cap, ": %s", vc_state_name(t->after));
}

/* ---- the `morale` action: a test the referee or the owner calls for -------------------------- */

int vc_morale_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"modifier", "reason", NULL};
    vc_morale_action *a = out;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_int(fields, "", "modifier", false, -6, 6, &a->modifier, err) != 0 ||
        rules_in_text(fields, "", "reason", false, a->reason, sizeof a->reason, err) != 0)
        return -1;
    return 0;
}

json_t *vc_morale_encode(const void *action) {
    const vc_morale_action *a = action;
    json_t *o = json_pack("{s:i}", "modifier", a->modifier);
    if (o && a->reason[0]) json_object_set_new(o, "reason", json_string(a->reason));
    return o;
}

int vc_morale_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                      api_error *err) {
    const vc_morale_action *a = action;
    vc_army army;
    vc_options o;
    if (vc_begin(ctx, &army, &o, err) != 0) return -1;
    vc_unit *u = vc_acting_unit(ctx, &army, err);
    char why[64] = "TM";
    if (a->modifier) rules_say(why, sizeof why, "%+d", a->modifier);
    if (a->reason[0]) rules_say(why, sizeof why, " %s", a->reason);
    vc_test t;
    if (!u || vc_morale_test(ctx->dice, &o, u, a->modifier, false, why, &t) != 0) {
        if (!err->status) api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        vc_army_free(&army);
        return -1;
    }
    vc_test_text(&t, u, out->summary, sizeof out->summary);
    rules_say(out->summary, sizeof out->summary, " (%s)", vc_morale_procedure);
    json_t *result = json_pack("{s:s, s:o, s:s}", "action", "morale", "test", vc_test_json_new(&t),
                               "procedure", vc_morale_procedure);
    out->result = result;
    return vc_outcome_finish(ctx, &army, NULL, out, err);
}

/* ---- the `rally` action ------------------------------------------------------------------------
 */

/* Its fields: none (the unit is the action's; seq_end_phase_decode/encode, vc_actions). */
int vc_rally_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    (void)action;
    vc_army army;
    vc_options o;
    if (vc_begin(ctx, &army, &o, err) != 0) return -1;
    vc_unit *u = vc_acting_unit(ctx, &army, err);
    if (!u) {
        vc_army_free(&army);
        return -1;
    }
    const json_t *map = json_object_get(ctx->state, "map");
    vc_state before = u->state;
    json_t *test = json_null();
    const char *rule;
    if (u->state == VC_ROUTED ||
        (u->state == VC_DISORGANIZED && vc_in_enemy_zoc(map, &army, u->side, u->at))) {
        bool routed = u->state == VC_ROUTED;
        rule = routed ? "12.5: a routed unit rallies to disorganized on a passed test"
                      : "12.2: a disorganized unit in an enemy ZoC rallies on a passed test";
        vc_test t;
        /* The rally test: the TM procedure, but a failure costs nothing. */
        vc_unit probe = *u;
        if (vc_morale_test(ctx->dice, &o, &probe, 0, false, "rally", &t) != 0) {
            api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
            vc_army_free(&army);
            return -1;
        }
        if (t.passed) {
            u->state = routed ? VC_DISORGANIZED : VC_GOOD;
            if (!routed) u->disorganized_by_combat = false;
        }
        t.after = u->state;
        u->changed = true;
        test = vc_test_json_new(&t);
        rules_say(out->summary, sizeof out->summary,
                  "%s rallies: roll %d %s morale %d, %s (%s; house default: %s <= morale "
                  "passes, a failure changes nothing)",
                  u->id, t.roll, t.passed ? "<=" : ">", u->morale,
                  t.passed ? (routed ? "passes: disorganized" : "passes: good order")
                           : "fails: no change",
                  rule, o.morale_dice == 2 ? "2d6" : "1d6");
    } else if (u->state == VC_DISORGANIZED) {
        rule = "12.2: a disorganized unit outside enemy ZoC reorganises";
        u->state = VC_GOOD;
        u->disorganized_by_combat = false;
        u->changed = true;
        rules_say(out->summary, sizeof out->summary,
                  "%s reorganises outside enemy ZoC: good order (%s, house default: no test)",
                  u->id, rule);
    } else {
        vc_rule_error(err, "unit", "unit '%s' is in %s: only routed or disorganized units rally",
                      u->id, vc_state_name(u->state));
        vc_army_free(&army);
        return -1;
    }
    json_t *result = json_pack("{s:s, s:s, s:s, s:s, s:o, s:s}", "action", "rally", "unit", u->id,
                               "before", vc_state_name(before), "after", vc_state_name(u->state),
                               "test", test, "rule", rule);
    out->result = result;
    return vc_outcome_finish(ctx, &army, NULL, out, err);
}
