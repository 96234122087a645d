/* The morale rule (shared/rules-sources/horse-and-musket-morale.txt): the test, support from
 * behind, losses in 25% steps, retreats with their back to the enemy, blocked retreats, and
 * rolled hits.
 *
 * The test: "Roll a die. If the following score is not made, remove a further 25 per cent
 * effectiveness. Elite: 3-6. Regular: 4-6. Poor, militia: 5-6." +1 with an attached general;
 * +1 with a friendly unit directly behind that can reach it in two turns by normal movement (not
 * light infantry or artillery; one supported unit each).
 * House defaults (docs/rules/horse-and-musket.md): "directly behind" is within 30 degrees of
 * straight behind; bases are discs of options.base_radius (half an inch, 1.5 cm, exactly); a
 * supporter is the nearest that qualifies and supports that unit for the rest of the turn
 * (new_turn frees it); a retreat is blocked by the first unit its base would touch. */
#include "rules/horse_and_musket/hm.h"

#include "rules/common/notation_roll.h"

#include <stdio.h>
#include <string.h>

#define BEHIND_ANGLE 150 /* within 30 degrees of straight behind */

void hm_lose_quarters(hm_unit *u, int n) {
    u->quarters -= n;
    if (u->quarters <= 0) {
        u->quarters = 0;
        u->state = HM_ELIMINATED;
        /* "The general ... is eliminated if the unit it is with is eliminated." */
        u->general[0] = '\0';
    }
    u->changed = true;
}

int hm_take_hits(hm_unit *u, int hits) {
    u->hits_this_turn += hits;
    if (u->hits_this_turn > 999) u->hits_this_turn = 999; /* the state's bound */
    u->hits += hits;
    int q = u->hits / u->hits_per_quarter;
    u->hits %= u->hits_per_quarter;
    if (q > u->quarters) q = u->quarters;
    hm_lose_quarters(u, q);
    return q;
}

static hm_unit *find_supporter(hm_army *a, const hm_unit *u) {
    hm_unit *best = NULL;
    int64_t best_d = 0;
    for (size_t i = 0; i < a->n; i++) {
        hm_unit *s = &a->units[i];
        if (s == u || s->state != HM_NORMAL || strcmp(s->side, u->side) != 0) continue;
        /* "light infantry and artillery units cannot give support" */
        if (s->type == HM_LIGHT_INFANTRY || s->type == HM_ARTILLERY) continue;
        /* "such a friendly unit can only give support to one unit" */
        if (s->supporting[0] && strcmp(s->supporting, u->id) != 0) continue;
        if (table_angle_off(u->facing, table_bearing(u->at, s->at)) < BEHIND_ANGLE) continue;
        /* "able to reach it in two turns by normal movement" */
        if (!table_within(s->at, u->at, 2 * s->movement)) continue;
        int64_t d = table_dist2(s->at, u->at);
        if (!best || d < best_d) {
            best = s;
            best_d = d;
        }
    }
    return best;
}

int hm_morale_test(const rules_ctx *ctx, hm_army *a, hm_unit *u, const char *why, hm_test *t) {
    static const int need[] = {[HM_ELITE] = 3, [HM_REGULAR] = 4, [HM_POOR] = 5, [HM_MILITIA] = 5};
    memset(t, 0, sizeof *t);
    snprintf(t->unit, sizeof t->unit, "%s", u->id);
    snprintf(t->why, sizeof t->why, "%s", why);
    t->need = need[u->quality];
    if (u->general[0]) rules_terms_add(&t->terms, 1, "general %s", u->general);
    hm_unit *s = find_supporter(a, u);
    if (s) {
        rules_terms_add(&t->terms, 1, "supported by %s", s->id);
        snprintf(t->supporter, sizeof t->supporter, "%s", s->id);
        snprintf(s->supporting, sizeof s->supporting, "%s", u->id);
        s->changed = true;
    }
    if (dice_roll(ctx->dice, "morale", "1d6", 1, 6, &t->roll) != 0) return -1;
    dice_set_value(ctx->dice, t->roll);
    t->passed = t->roll + t->terms.total >= t->need;
    if (!t->passed) {
        hm_lose_quarters(u, 1); /* "remove a further 25 per cent effectiveness" */
        t->eliminated = u->state == HM_ELIMINATED;
    }
    return 0;
}

json_t *hm_test_json_new(const hm_test *t) {
    json_t *o = json_pack("{s:s, s:s, s:i, s:o, s:i, s:i, s:b, s:b}", "unit", t->unit, "test",
                          t->why, "roll", t->roll, "modifiers", rules_terms_json_new(&t->terms),
                          "modifier", t->terms.total, "need", t->need, "passed", t->passed,
                          "eliminated", t->eliminated);
    if (o && t->supporter[0]) json_object_set_new(o, "supporter", json_string(t->supporter));
    return o;
}

void hm_test_text(const hm_test *t, char *out, size_t cap) {
    char terms[160];
    rules_terms_text(&t->terms, terms, sizeof terms);
    rules_say(out, cap, "%s tests (%s): d6 %d, %s = %d, needs %d+: %s", t->unit, t->why, t->roll,
              terms, t->roll + t->terms.total, t->need,
              t->passed       ? "passes"
              : t->eliminated ? "fails, loses a further 25%: eliminated"
                              : "fails, loses a further 25%");
}

/* ---- retreats ------------------------------------------------------------------------------- */

int hm_retreat(const rules_ctx *ctx, hm_army *a, hm_unit *u, table_pt enemy, json_t *log,
               char *text, size_t cap) {
    /* "retreats a full move - with the usual possible distance-variation adjustment": the
     * adjustment is the game's, not in our source, so the setup gives it as a dice notation
     * (state.retreat_variation, checked when the session was made) and the umpire rolls it;
     * without one a retreat is exactly a full move. */
    int64_t variation = 0;
    const char *vexpr = json_string_value(json_object_get(ctx->state, "retreat_variation"));
    api_error verr = {0};
    if (vexpr && hm_roll_total(ctx->dice, vexpr, "retreat variation", &variation, &verr) != 0) {
        api_error_clear(&verr);
        return -1;
    }
    if (variation > TABLE_COORD_MAX) variation = TABLE_COORD_MAX;
    if (variation < -TABLE_COORD_MAX) variation = -TABLE_COORD_MAX;
    int64_t distance = u->movement + variation;
    if (distance < 0) distance = 0;
    /* Exactly away from the enemy: along the vector from its centre to u's, not a bearing rounded
     * to the degree; the end is the grid point nearest the exact one. On the same point: straight
     * back (the facing, a whole degree, turned round), along the step actually taken. */
    table_pt d = {u->at.x - enemy.x, u->at.y - enemy.y}, dest;
    if (d.x == 0 && d.y == 0) {
        int back = (u->facing + 180) % 360;
        dest = table_step(u->at, back, distance);
        d = (table_pt){dest.x - u->at.x, dest.y - u->at.y};
        if (d.x == 0 && d.y == 0) d = table_step((table_pt){0, 0}, back, TABLE_COORD_MAX);
    } else {
        dest = table_step_along(u->at, d, distance);
    }
    /* A retreat off the edge of the world stops at it, so the state stays readable. */
    dest.x = dest.x > TABLE_COORD_MAX    ? TABLE_COORD_MAX
             : dest.x < -TABLE_COORD_MAX ? -TABLE_COORD_MAX
                                         : dest.x;
    dest.y = dest.y > TABLE_COORD_MAX    ? TABLE_COORD_MAX
             : dest.y < -TABLE_COORD_MAX ? -TABLE_COORD_MAX
                                         : dest.y;
    /* "obstructed by another unit that is not light infantry or artillery": the first such unit
     * the retreating base would touch, sweeping its disc along the retreat (touching counts;
     * units it backs or slides away from are not in the way; light infantry and artillery are
     * passed through). Of two touched at the same distance, the first in the setup. */
    int64_t contact = hm_base_contact(ctx->options);
    hm_unit *block = NULL;
    for (size_t i = 0; i < a->n; i++) {
        hm_unit *w = &a->units[i];
        if (w == u || w->state == HM_ELIMINATED) continue;
        if (w->type == HM_LIGHT_INFANTRY || w->type == HM_ARTILLERY) continue;
        if (!table_sweep_touches(u->at, d, distance, w->at, contact)) continue;
        if (!block || table_sweep_cmp(u->at, d, w->at, block->at, contact) < 0) block = w;
    }
    table_measure m;
    table_measure_read(ctx->options, &m);
    char len[32];
    table_length_text(&m, distance, len, sizeof len);
    json_t *entry = json_pack("{s:s, s:I}", "unit", u->id, "distance", (json_int_t)distance);
    if (vexpr) json_object_set_new(entry, "variation", json_integer(variation));
    if (block) {
        hm_lose_quarters(u, u->quarters);
        rules_say(text, cap, "; %s retreats %s but %s is in the way: eliminated", u->id, len,
                  block->id);
        json_object_set_new(entry, "blocked_by", json_string(block->id));
        json_object_set_new(entry, "eliminated", json_true());
        bool friendly = strcmp(block->side, u->side) == 0;
        bool exempt = block->type == HM_CAVALRY &&
                      (u->type == HM_LINE_INFANTRY || u->type == HM_LIGHT_INFANTRY);
        if (friendly && !exempt) {
            /* "If the blocking unit is friendly, it must take a morale test" */
            hm_test t;
            if (hm_morale_test(ctx, a, block, "retreated into", &t) != 0) {
                json_decref(entry);
                return -1;
            }
            rules_say(text, cap, "; ");
            hm_test_text(&t, text, cap);
            json_object_set_new(entry, "blocker_test", hm_test_json_new(&t));
        } else if (friendly) {
            rules_say(text, cap, "; %s is cavalry retreated into by infantry: no test", block->id);
        }
    } else {
        u->at = dest;
        /* "ends the move with its back to the enemy" */
        u->facing = table_facing_away(dest, enemy);
        u->state = HM_RETREATING;
        u->retreat_from = enemy;
        u->engaged[0] = '\0';
        u->changed = true;
        rules_say(text, cap, "; %s retreats %s to [%lld, %lld], its back to the enemy (facing %d)",
                  u->id, len, (long long)dest.x, (long long)dest.y, u->facing);
        json_object_set_new(entry, "to", table_pt_json(dest));
        json_object_set_new(entry, "facing", json_integer(u->facing));
    }
    json_array_append_new(log, entry);
    return 0;
}

/* "A retreating unit will be diced for at the start of each move of retreat, needing a 5 or
 * better to return to normal action. A general present with the unit adds 1 to the die throw."
 * "Elite units are treated the same as other units": 5 whatever the quality. A failure retreats
 * another full move, from the enemy it retreats from. */
int hm_recover(const rules_ctx *ctx, hm_army *a, hm_unit *u, json_t *log, json_t *retreats,
               char *text, size_t cap) {
    rules_terms terms = {0};
    if (u->general[0]) rules_terms_add(&terms, 1, "general %s", u->general);
    int roll = 0;
    if (dice_roll(ctx->dice, "recover", "1d6", 1, 6, &roll) != 0) return -1;
    dice_set_value(ctx->dice, roll);
    bool passed = roll + terms.total >= 5;
    char tt[120];
    rules_terms_text(&terms, tt, sizeof tt);
    rules_say(text, cap, "; %s rolls to recover: d6 %d, %s = %d, needs 5+: %s", u->id, roll, tt,
              roll + terms.total,
              passed ? "returns to normal action" : "fails and retreats another full move");
    json_array_append_new(log, json_pack("{s:s, s:i, s:o, s:i, s:b}", "unit", u->id, "roll", roll,
                                         "modifiers", rules_terms_json_new(&terms), "need", 5,
                                         "passed", passed));
    if (passed) {
        u->state = HM_NORMAL;
        u->changed = true;
        return 0;
    }
    return hm_retreat(ctx, a, u, u->retreat_from, retreats, text, cap);
}

/* ---- rolled hits ------------------------------------------------------------------------------
 */

int hm_check_hits(const char *expr, const char *field, api_error *err) {
    return notation_check(expr, field, err);
}

int hm_roll_hits(dice_source *ds, const char *expr, const char *field, int *hits, api_error *err) {
    int64_t total = 0;
    if (notation_roll_total(ds, expr, field, "hits", &total, err) != 0) return -1;
    *hits = total < 0 ? 0 : total > 99 ? 99 : (int)total;
    return 0;
}

int hm_roll_total(dice_source *ds, const char *expr, const char *purpose, int64_t *total,
                  api_error *err) {
    return notation_roll_total(ds, expr, purpose, purpose, total, err);
}
