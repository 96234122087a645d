/* The actions of horse-and-musket: fire, melee, move, morale, recover, attach, new_turn.
 *
 * Fire: "Test when a unit loses 25 percent effectiveness or more from firing"; a unit that fails
 * retreats a full move, its back to the enemy, "not applicable if an enemy unit with which fire
 * has been exchanged also loses effectiveness and fails a morale test" (exchange: hits_back).
 * Melee: "the unit suffering the most hits, including any inflicted by firing, retreats a full
 * move ... A tie results in another round of meleeing on the following turn"; losing a melee is
 * a test too. Recover: "A retreating unit will be diced for at the start of each move of retreat,
 * needing a 5 or better to return to normal action. A general present with the unit adds 1."
 * Hits are given (options.hits "given", the default) or rolled from a dice notation ("rolled"):
 * the firing and melee tables are the game's, not in our source. */
#include "rules/horse_and_musket/hm.h"

#include "protocol/json_in.h"
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
    static const char *const keys[] = {"target", "hits", "hits_back", "variation", NULL};
    bool has_hits = false, has_back = false;
    if (json_in_only_keys(fields, "", keys, err) != 0 ||
        rules_in_text(fields, "", "target", true, a->target, sizeof a->target, err) != 0 ||
        read_hits(fields, "hits", &a->hits, a->hits_expr, sizeof a->hits_expr, &has_hits, err) !=
            0 ||
        read_hits(fields, "hits_back", &a->hits_back, a->back_expr, sizeof a->back_expr, &has_back,
                  err) != 0 ||
        rules_in_int(fields, "", "variation", false, -TABLE_COORD_MAX, TABLE_COORD_MAX,
                     &a->variation, err) != 0)
        return -1;
    if (!has_hits) {
        api_error_field(err, "hits",
                        "the hits scored: an integer, or a dice notation when "
                        "options.hits is rolled");
        return -1;
    }
    if (melee && !has_back) {
        api_error_field(err, "hits_back",
                        "the hits on the attacker: an integer, or a dice "
                        "notation when options.hits is rolled");
        return -1;
    }
    a->exchange = has_back || melee;
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
    json_object_set_new(o, "hits",
                        a->hits_expr[0] ? json_string(a->hits_expr) : json_integer(a->hits));
    if (a->exchange)
        json_object_set_new(o, "hits_back",
                            a->back_expr[0] ? json_string(a->back_expr)
                                            : json_integer(a->hits_back));
    if (a->variation) json_object_set_new(o, "variation", json_integer(a->variation));
    return o;
}

/* The hits of one side, checked before any die is rolled (rules/ruleset.h: a refusal never
 * follows a die, so hits_back is checked before hits are rolled): given, or rolled when
 * options.hits says so, as a notation that parses. */
static int hits_check(const rules_ctx *ctx, const char *expr, const char *field, api_error *err) {
    bool rolled = hm_hits_rolled(ctx->options);
    if (rolled != (expr[0] != '\0')) {
        api_error_set(err, 422, rolled ? "hits_must_be_rolled" : "hits_must_be_given",
                      json_pack("{s:s}", "field", field),
                      rolled ? "options.hits is rolled: send %s as a dice notation (\"2d6-4\")"
                             : "options.hits is given: send %s as an integer",
                      field);
        return -1;
    }
    return rolled ? hm_check_hits(expr, field, err) : 0;
}

/* The hits of one side, once checked: given, or rolled. */
static int hits_of(const rules_ctx *ctx, int given, const char *expr, const char *field, int *out,
                   api_error *err) {
    if (!hm_hits_rolled(ctx->options)) {
        *out = given;
        return 0;
    }
    return hm_roll_hits(ctx->dice, expr, field, out, err);
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
                      "unit '%s' is retreating: it returns to normal action only by recovering "
                      "(action recover)",
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

/* ---- fire ----------------------------------------------------------------------------------- */

int hm_fire_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    const hm_combat_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    json_t *tests = json_array(), *retreats = json_array();
    hm_unit *u = hm_acting(ctx, &army, err), *t = u ? enemy(&army, u, a->target, err) : NULL;
    int hits = 0, back = 0;
    if (!t || hits_check(ctx, a->hits_expr, "hits", err) != 0 ||
        (a->exchange && hits_check(ctx, a->back_expr, "hits_back", err) != 0))
        goto fail;
    if (a->exchange && t->state == HM_RETREATING) {
        hm_rule_error(err, "hits_back",
                      "unit '%s' is retreating and does not fire back until it recovers", t->id);
        goto fail;
    }
    /* The fire is legal: from here on it commits with whatever the dice say. */
    if (hits_of(ctx, a->hits, a->hits_expr, "hits", &hits, err) != 0 ||
        (a->exchange && hits_of(ctx, a->hits_back, a->back_expr, "hits_back", &back, err) != 0))
        goto fail;
    table_pt u_at = u->at, t_at = t->at;
    hm_unit *side[2] = {t, u};
    int lost[2] = {hm_take_hits(t, hits), a->exchange ? hm_take_hits(u, back) : 0};
    bool failed[2] = {false, false};
    char *s = out->summary;
    size_t cap = sizeof out->summary;
    rules_say(s, cap, "%s fires at %s: %d hit%s", u->id, t->id, hits, hits == 1 ? "" : "s");
    if (a->exchange)
        rules_say(s, cap, ", %s fires back: %d hit%s", t->id, back, back == 1 ? "" : "s");
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
        if (hm_retreat(ctx, &army, side[i], i == 0 ? u_at : t_at, a->variation, retreats, s, cap) !=
            0)
            goto dice;
    }
    out->result =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:b, s:o, s:o, s:o}", "action", "fire", "unit", u->id,
                  "target", t->id, "hits", hits, "hits_back", back, "exchange", a->exchange,
                  "tests", tests, "retreats", retreats, "after", after_json(side, 2));
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
    if (!t || hits_check(ctx, a->hits_expr, "hits", err) != 0 ||
        hits_check(ctx, a->back_expr, "hits_back", err) != 0)
        goto fail;
    /* The melee is legal: from here on it commits with whatever the dice say. */
    if (hits_of(ctx, a->hits, a->hits_expr, "hits", &hits, err) != 0 ||
        hits_of(ctx, a->hits_back, a->back_expr, "hits_back", &back, err) != 0)
        goto fail;
    hm_take_hits(t, hits);
    hm_take_hits(u, back);
    char *s = out->summary;
    size_t cap = sizeof out->summary;
    rules_say(s, cap, "melee %s vs %s: %d and %d hits; this turn (fire included) %s %d, %s %d",
              u->id, t->id, hits, back, u->id, u->hits_this_turn, t->id, t->hits_this_turn);
    hm_unit *both[2] = {u, t};
    const char *outcome;
    if (u->hits_this_turn == t->hits_this_turn) {
        outcome = "tie";
        rules_say(s, cap, ": a tie, the melee goes on next turn");
        snprintf(u->engaged, sizeof u->engaged, "%s", t->id);
        snprintf(t->engaged, sizeof t->engaged, "%s", u->id);
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
                hm_retreat(ctx, &army, loser, winner->at, a->variation, retreats, s, cap) != 0)
                goto dice;
        }
    }
    out->result =
        json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:o, s:o, s:o}", "action", "melee", "unit", u->id,
                  "target", t->id, "hits", hits, "hits_back", back, "outcome", outcome, "tests",
                  tests, "retreats", retreats, "after", after_json(both, 2));
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
                      "unit '%s' is retreating: it rolls to recover at the start of its move "
                      "(action recover)",
                      u->id);
        goto fail;
    }
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

/* ---- morale, recover, attach, new_turn ---------------------------------------------------------
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

int hm_recover_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {"variation", NULL};
    hm_simple_action *a = out;
    return json_in_only_keys(fields, "", keys, err) != 0 ||
                   rules_in_int(fields, "", "variation", false, -TABLE_COORD_MAX, TABLE_COORD_MAX,
                                &a->variation, err) != 0
               ? -1
               : 0;
}

json_t *hm_recover_encode(const void *action) {
    const hm_simple_action *a = action;
    json_t *o = json_object();
    if (o && a->variation) json_object_set_new(o, "variation", json_integer(a->variation));
    return o;
}

int hm_recover_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                       api_error *err) {
    const hm_simple_action *a = action;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    json_t *retreats = json_array();
    hm_unit *u = hm_acting(ctx, &army, err);
    if (!u) goto fail;
    if (u->state != HM_RETREATING) {
        hm_rule_error(err, "unit", "unit '%s' is not retreating", u->id);
        goto fail;
    }
    rules_terms terms = {0};
    if (u->general[0]) rules_terms_add(&terms, 1, "general %s", u->general);
    int roll = 0;
    if (dice_roll(ctx->dice, "recover", "1d6", 1, 6, &roll) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    dice_set_value(ctx->dice, roll);
    bool passed = roll + terms.total >= 5; /* "needing a 5 or better" */
    char tt[120];
    rules_terms_text(&terms, tt, sizeof tt);
    rules_say(out->summary, sizeof out->summary,
              "%s rolls to recover: d6 %d, %s = %d, needs 5+: %s", u->id, roll, tt,
              roll + terms.total,
              passed ? "returns to normal action" : "fails and retreats another full move");
    if (passed) {
        u->state = HM_NORMAL;
        u->changed = true;
    } else if (hm_retreat(ctx, &army, u, u->retreat_from, a->variation, retreats, out->summary,
                          sizeof out->summary) != 0) {
        api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
        goto fail;
    }
    hm_unit *after[1] = {u};
    out->result =
        json_pack("{s:s, s:s, s:i, s:o, s:i, s:b, s:o, s:o}", "action", "recover", "unit", u->id,
                  "roll", roll, "modifiers", rules_terms_json_new(&terms), "need", 5, "passed",
                  passed, "retreats", retreats, "after", after_json(after, 1));
    return hm_finish(ctx, &army, out, err);
fail:
    json_decref(retreats);
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

int hm_turn_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {NULL};
    (void)out;
    return json_in_only_keys(fields, "", keys, err);
}

json_t *hm_turn_encode(const void *action) {
    (void)action;
    return json_object();
}

int hm_turn_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out, api_error *err) {
    (void)action;
    if (strncmp(ctx->actor ? ctx->actor : "", "side:", 5) == 0) {
        api_error_set(err, 403, "forbidden", NULL, "only the referee starts a new turn");
        return -1;
    }
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    int engaged = 0;
    for (size_t i = 0; i < army.n; i++) {
        hm_unit *u = &army.units[i];
        if (u->hits_this_turn || u->supporting[0]) u->changed = true;
        u->hits_this_turn = 0;
        u->supporting[0] = '\0';
        if (!u->engaged[0]) continue;
        /* A tie fights on only while both are still there, normal, and locked together. */
        const hm_unit *p = NULL;
        for (size_t j = 0; j < army.n; j++)
            if (strcmp(army.units[j].id, u->engaged) == 0) p = &army.units[j];
        if (u->state != HM_NORMAL || !p || p->state != HM_NORMAL ||
            strcmp(p->engaged, u->id) != 0) {
            u->engaged[0] = '\0';
            u->changed = true;
        } else {
            engaged++;
        }
    }
    rules_say(out->summary, sizeof out->summary,
              "new turn: hits of the turn and support cleared; %d unit(s) still locked in melee",
              engaged);
    out->result = json_pack("{s:s, s:i}", "action", "new_turn", "engaged", engaged);
    return hm_finish(ctx, &army, out, err);
}
