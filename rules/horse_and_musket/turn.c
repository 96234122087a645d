/* end_phase of horse-and-musket: the sequence of play moves on (sequence.c), and with it what the
 * rule ties to turns and moves:
 * - "A tie results in another round of meleeing on the following turn": a Melee phase of a later
 *   turn is not ended while a pair locked by a tie, one of them the player's, has not fought that
 *   round (409 melee_pending; the referee may end it anyway, and the pair stays locked);
 * - a new turn clears the hits of the turn (the melee counts "any inflicted by firing" this turn)
 *   and support ("can only give support to one unit", for the turn), and unlocks a pair of which
 *   one is gone or retreating;
 * - "A retreating unit will be diced for at the start of each move of retreat": when a side's
 *   player-turn begins, each of its retreating units rolls to recover (hm_recover), in the order
 *   of the setup. */
#include "rules/horse_and_musket/hm.h"

#include <string.h>

static const hm_unit *partner_of(const hm_army *a, const hm_unit *u) {
    for (size_t j = 0; j < a->n; j++)
        if (strcmp(a->units[j].id, u->engaged) == 0) return &a->units[j];
    return NULL;
}

/* Locked together, both still able to fight: the tie's next round is still to come. */
static bool still_locked(const hm_army *a, const hm_unit *u) {
    if (!u->engaged[0] || u->state != HM_NORMAL) return false;
    const hm_unit *p = partner_of(a, u);
    return p && p->state == HM_NORMAL && strcmp(p->engaged, u->id) == 0;
}

/* The player's first pair locked by an earlier turn's tie that has not fought again. */
static const hm_unit *melee_due(const hm_army *a, const seq_turn *t) {
    const char *player = seq_player(t);
    for (size_t i = 0; i < a->n; i++) {
        const hm_unit *u = &a->units[i];
        if (strcmp(u->side, player) == 0 && still_locked(a, u) && u->engaged_turn < t->number)
            return u;
    }
    return NULL;
}

static void new_turn(hm_army *a, int *engaged) {
    for (size_t i = 0; i < a->n; i++) {
        hm_unit *u = &a->units[i];
        if (u->hits_this_turn || u->supporting[0]) u->changed = true;
        u->hits_this_turn = 0;
        u->supporting[0] = '\0';
    }
    /* Unlocked only after every unit is looked at: the pair's test reads both. */
    bool unlock[UNITS_MAX] = {false};
    for (size_t i = 0; i < a->n; i++)
        unlock[i] = a->units[i].engaged[0] && !still_locked(a, &a->units[i]);
    for (size_t i = 0; i < a->n; i++) {
        hm_unit *u = &a->units[i];
        if (unlock[i]) {
            u->engaged[0] = '\0';
            u->engaged_turn = 0;
            u->changed = true;
        } else if (u->engaged[0]) {
            (*engaged)++;
        }
    }
}

static void after_add(json_t *after, const hm_army *a, const json_t *id) {
    const char *s = json_string_value(id);
    for (size_t i = 0; s && i < a->n; i++)
        if (strcmp(a->units[i].id, s) == 0)
            json_array_append_new(after, json_pack("{s:s, s:i, s:s}", "unit", s, "effectiveness",
                                                   a->units[i].quarters * 25, "state",
                                                   hm_state_name(a->units[i].state)));
}

int hm_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err) {
    (void)action;
    seq_turn turn;
    seq_change chg;
    hm_army army;
    if (hm_army_load(ctx->state, &army, err) != 0) return -1;
    int got = seq_turn_read(&hm_sequence, ctx->state, &turn, err);
    bool referee = !ctx->actor || strncmp(ctx->actor, "side:", 5) != 0;
    const hm_unit *due =
        got == 1 && !referee && strcmp(seq_phase_name(&hm_sequence, &turn), "melee") == 0
            ? melee_due(&army, &turn)
            : NULL;
    if (got < 0) goto fail;
    if (due) {
        api_error_set(err, 409, "melee_pending",
                      json_pack("{s:s, s:s}", "unit", due->id, "engaged", due->engaged),
                      "'%s' and '%s' tied in an earlier turn: they fight another round of melee "
                      "this turn before the Melee phase ends",
                      due->id, due->engaged);
        goto fail;
    }
    if (seq_end_phase_begin(&hm_sequence, ctx, &turn, &chg, out, err) != 0) goto fail;
    int engaged = 0;
    if (chg.new_turn) {
        new_turn(&army, &engaged);
        rules_say(out->summary, sizeof out->summary,
                  "; the hits of the last turn and support "
                  "are cleared");
        if (engaged)
            rules_say(out->summary, sizeof out->summary,
                      "; %d unit%s still locked in melee fight%s again this turn", engaged,
                      engaged == 1 ? "" : "s", engaged == 1 ? "s" : "");
    }
    json_t *recoveries = json_array(), *retreats = json_array(), *after = json_array();
    if (chg.new_player_turn) {
        const char *player = seq_player(&turn);
        for (size_t i = 0; i < army.n; i++) {
            hm_unit *u = &army.units[i];
            if (u->state != HM_RETREATING || strcmp(u->side, player) != 0) continue;
            if (hm_recover(ctx, &army, u, recoveries, retreats, out->summary,
                           sizeof out->summary) != 0) {
                json_decref(recoveries);
                json_decref(retreats);
                json_decref(after);
                api_error_set(err, 422, "too_many_dice", NULL, "the dice ran out");
                goto fail;
            }
        }
        /* The units the rolls decided (each recovering unit, a blocker that tested), for the
         * odds' outcomes. */
        size_t k;
        json_t *e;
        json_array_foreach(recoveries, k, e) after_add(after, &army, json_object_get(e, "unit"));
        json_array_foreach(retreats, k, e)
            after_add(after, &army, json_object_get(e, "blocked_by"));
    }
    out->result = seq_end_phase_result_new(&hm_sequence, &turn, &chg);
    json_object_set_new(out->result, "engaged", json_integer(engaged));
    json_object_set_new(out->result, "recoveries", recoveries);
    json_object_set_new(out->result, "retreats", retreats);
    if (json_array_size(after))
        json_object_set_new(out->result, "after", after);
    else
        json_decref(after);
    if (hm_finish(ctx, &army, out, err) != 0) return -1;
    json_object_set_new(out->new_state, "turn", seq_turn_json(&hm_sequence, &turn));
    return 0;
fail:
    hm_army_free(&army);
    return -1;
}
