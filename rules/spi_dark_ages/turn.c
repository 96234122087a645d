/* The sequence of play and the session around the units: reading the state at the start of an
 * action, writing it back at the end, and the `end_phase` action.
 *
 * HOW TO SET-UP THE GAME (Clarification): "the second Player listed always moves first". A
 * Game-Turn is two Player-Turns, the second listed side's then the first's; each Player-Turn is
 * the phases Movement, Attack Allocation, Defensive Fire, (offensive) Fire and Melee. The errata
 * names the Movement, Attack Allocation and Defensive Fire Phases; their order here is a house
 * default (docs/rules/spi-dark-ages.md). A phase is numbered player_turn * 5 + phase within its
 * Game-Turn, which is how demoralization's "until the end of the same Phase ... in the following
 * Game-Turn" is measured (errata.c: da_still_demoralized). */
#include "rules/spi_dark_ages/da.h"

#include "protocol/json_in.h"
#include "rules/common/fields.h"
#include "rules/common/units.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const phase_names[] = {"movement", "allocation", "defensive_fire",
                                          "fire",     "melee",      NULL};

const char *da_phase_name(int phase) {
    return phase >= 0 && phase < DA_PHASES ? phase_names[phase] : "?";
}

da_when da_now(const da_turn *t) {
    return (da_when){t->game_turn, t->player_turn * DA_PHASES + t->phase};
}

int da_player_turn_index(const da_turn *t) {
    return t->game_turn * 2 + t->player_turn;
}

/* state.turn in the shared form (rules/common/sequence.h), with the names this module always
 * wrote (game_turn, player_turn, side) kept for readers of older states. */
static int read_shared_turn(const json_t *turn, da_game *g, api_error *err) {
    da_turn *t = &g->turn;
    if (seq_turn_read(&da_sequence, g->state, &g->seq, err) != 1 || g->seq.norder != 2 ||
        g->seq.nphases != DA_PHASES ||
        rules_in_bool(turn, "state.turn", "rallying", &t->rallying, err) != 0) {
        if (!err->status) api_error_field(err, "state.turn", "this ruleset's turn record");
        err->status = 422;
        return -1;
    }
    g->has_seq = true;
    t->game_turn = g->seq.number;
    t->player_turn = g->seq.player;
    t->phase = g->seq.phases[g->seq.phase];
    snprintf(t->side, sizeof t->side, "%.*s", SIDE_NAME_MAX, g->seq.order[g->seq.player]);
    snprintf(t->other, sizeof t->other, "%.*s", SIDE_NAME_MAX, g->seq.order[1 - g->seq.player]);
    return 0;
}

static int read_turn(const json_t *state, da_game *g, api_error *err) {
    const json_t *turn = json_object_get(state, "turn"),
                 *players = json_object_get(state, "players");
    da_turn *t = &g->turn;
    memset(t, 0, sizeof *t);
    if (json_object_get(turn, "number")) return read_shared_turn(turn, g, err);
    if (!json_is_object(turn) || json_array_size(players) != 2 ||
        rules_in_int(turn, "state.turn", "game_turn", true, 1, DA_GAME_TURN_MAX, &t->game_turn,
                     err) != 0 ||
        rules_in_int(turn, "state.turn", "player_turn", true, 0, 1, &t->player_turn, err) != 0 ||
        rules_in_enum(turn, "state.turn", "phase", true, phase_names, 0, &t->phase, err) != 0 ||
        rules_in_bool(turn, "state.turn", "rallying", &t->rallying, err) != 0) {
        if (!err->status) api_error_field(err, "state.turn", "this ruleset's turn record");
        err->status = 422;
        return -1;
    }
    /* The second listed side moves first. */
    const char *first = json_string_value(json_array_get(players, 1 - t->player_turn));
    const char *second = json_string_value(json_array_get(players, t->player_turn));
    snprintf(t->side, sizeof t->side, "%s", first ? first : "");
    snprintf(t->other, sizeof t->other, "%s", second ? second : "");
    return 0;
}

int da_begin(const rules_ctx *ctx, da_game *g, api_error *err) {
    memset(g, 0, sizeof *g);
    g->state = ctx->state;
    g->map = json_object_get(ctx->state, "map");
    g->charts = json_object_get(ctx->state, "charts");
    g->streams = json_object_get(ctx->state, "streams");
    if (!json_is_object(g->map)) {
        api_error_set(err, 422, "invalid_state", NULL, "the state has no map");
        return -1;
    }
    hex_map_grid(g->map, &g->grid);
    if (read_turn(ctx->state, g, err) != 0) return -1;
    if (da_army_load(ctx->state, &g->army, err) != 0) return -1;
    for (size_t i = 0; i < g->army.n; i++)
        if (!hex_on_grid(&g->grid, g->army.units[i].at)) {
            api_error_set(err, 422, "invalid_state", NULL, "unit '%s' stands off the map",
                          g->army.units[i].id);
            da_army_free(&g->army);
            return -1;
        }
    const json_t *armies = json_object_get(ctx->state, "armies");
    g->armies = json_is_object(armies) ? json_deep_copy(armies) : json_object();
    const json_t *tries = json_object_get(json_object_get(ctx->state, "turn"), "rally_attempts");
    g->rally_attempts = json_is_array(tries) ? json_deep_copy(tries) : json_array();
    /* DEMORALIZATION: "The effects of demoralization last until the end of the same Phase (in
     * which the unit was demoralized) in the following Game-Turn." */
    da_when now = da_now(&g->turn);
    for (size_t i = 0; i < g->army.n; i++) {
        da_unit *u = &g->army.units[i];
        if (u->demoralized && !da_still_demoralized(u->demoralized_since, now)) {
            u->demoralized = false;
            u->changed = true;
        }
    }
    return 0;
}

void da_game_free(da_game *g) {
    da_army_free(&g->army);
    json_decref(g->armies);
    json_decref(g->rally_attempts);
    g->armies = g->rally_attempts = NULL;
}

json_t *da_army_state(da_game *g, const char *side) {
    json_t *a = json_object_get(g->armies, side);
    if (!a) {
        a = json_pack("{s:i, s:b, s:i}", "losses", 0, "panicked", 0, "vp", 0);
        json_object_set_new(g->armies, side, a);
    }
    g->armies_changed = true;
    return a;
}

int da_panic_level(const da_game *g, const char *side) {
    const char *k;
    const json_t *v;
    json_object_foreach((json_t *)json_object_get(g->charts, "armies"), k, v) {
        if (da_same_army(k, side))
            return (int)json_integer_value(json_object_get(v, "panic_level"));
    }
    return -1;
}

/* state.turn: the shared record (number, player, phase, acting, order) and this module's names
 * for the same (game_turn, player_turn, side), then the rally rolls of the phase. */
json_t *da_turn_json_new(const da_turn *dt, seq_turn *seq) {
    json_t *t = NULL;
    if (seq) {
        seq->number = dt->game_turn;
        seq->player = dt->player_turn;
        seq->phase = dt->phase; /* every phase, in the table's order */
        memset(seq->done, 0, sizeof seq->done);
        t = seq_turn_json(&da_sequence, seq);
    } else {
        t = json_pack("{s:s}", "phase", da_phase_name(dt->phase));
    }
    json_object_set_new(t, "game_turn", json_integer(dt->game_turn));
    json_object_set_new(t, "player_turn", json_integer(dt->player_turn));
    json_object_set_new(t, "side", json_string(dt->side));
    return t;
}

json_t *da_turn_first_new(const json_t *players) {
    /* "the second Player listed always moves first" (HOW TO SET-UP THE GAME, Clarification).
     * The order is the Players' (setup.players), whether or not each has units yet. */
    seq_turn seq;
    memset(&seq, 0, sizeof seq);
    seq.norder = 2;
    for (int i = 0; i < 2; i++) {
        const char *side = json_string_value(json_array_get(players, (size_t)(1 - i)));
        snprintf(seq.order[i], sizeof seq.order[i], "%s", side ? side : "");
    }
    seq.nphases = DA_PHASES;
    for (int i = 0; i < DA_PHASES; i++)
        seq.phases[i] = i;
    da_turn dt = {.game_turn = 1, .player_turn = 0, .phase = DA_PH_MOVEMENT};
    snprintf(dt.side, sizeof dt.side, "%.*s", SIDE_NAME_MAX, seq.order[0]);
    snprintf(dt.other, sizeof dt.other, "%.*s", SIDE_NAME_MAX, seq.order[1]);
    return da_turn_json_new(&dt, &seq);
}

static json_t *turn_json(da_game *g) {
    json_t *t = da_turn_json_new(&g->turn, g->has_seq ? &g->seq : NULL);
    if (g->turn.rallying) json_object_set_new(t, "rallying", json_true());
    if (json_array_size(g->rally_attempts)) json_object_set(t, "rally_attempts", g->rally_attempts);
    return t;
}

int da_finish(const rules_ctx *ctx, da_game *g, rules_outcome *out, api_error *err) {
    json_t *units = NULL, *next = rules_state_units_copy_new(ctx->state, &units);
    if (next) {
        for (size_t i = 0; i < g->army.n; i++) {
            const da_unit *u = &g->army.units[i];
            if (!u->changed) continue;
            if ((size_t)u->index < json_array_size(units))
                json_array_set_new(units, (size_t)u->index, da_unit_to_json(u));
            else
                json_array_append_new(units, da_unit_to_json(u));
        }
        if (g->armies_changed) json_object_set(next, "armies", g->armies);
        if (g->turn_changed) json_object_set_new(next, "turn", turn_json(g));
    }
    da_game_free(g);
    return rules_outcome_take_state(out, next, err);
}

int da_require_phase(const da_game *g, int phase, const char *side, const char *what,
                     api_error *err) {
    /* With the shared turn record, rules_resolve has checked the action against da_sequence
     * (409 not_your_turn, 422 wrong_phase) and let the referee through as an override. */
    if (g->has_seq) return 0;
    if (g->turn.phase == phase && (!side || strcmp(side, g->turn.side) == 0)) return 0;
    api_error_set(err, 422, "wrong_phase",
                  json_pack("{s:s, s:s, s:i}", "phase", da_phase_name(g->turn.phase), "side",
                            g->turn.side, "game_turn", g->turn.game_turn),
                  "%s only in the %s Phase of %s; it is the %s Phase of %s's Player-Turn, "
                  "Game-Turn %d",
                  what, da_phase_name(phase), side ? side : "either side",
                  da_phase_name(g->turn.phase), g->turn.side, g->turn.game_turn);
    return -1;
}

/* ---- end_phase ------------------------------------------------------------------------------ */

int da_end_phase_decode(const json_t *fields, void *out, api_error *err) {
    static const char *const keys[] = {NULL};
    (void)out;
    return json_in_only_keys(fields, "", keys, err);
}

json_t *da_end_phase_encode(const void *action) {
    (void)action;
    return json_object();
}

int da_end_phase_resolve(const rules_ctx *ctx, const void *action, rules_outcome *out,
                         api_error *err) {
    (void)action;
    da_game g;
    if (da_begin(ctx, &g, err) != 0) return -1;
    const char *actor = ctx->actor;
    /* The side that acts in the phase ends it: the other side's Defensive Fire, else the
     * phasing side's. */
    const char *owner = g.turn.phase == DA_PH_DEFENSIVE_FIRE ? g.turn.other : g.turn.side;
    if (actor && strncmp(actor, "side:", 5) == 0 && strcmp(actor + 5, owner) != 0) {
        api_error_set(err, 403, "forbidden", NULL,
                      "only %s (who acts in it) or the referee ends the %s Phase", owner,
                      da_phase_name(g.turn.phase));
        da_game_free(&g);
        return -1;
    }
    /* PANIC: panicked units "must be moved their full Movement Allowance" each Friendly Movement
     * Phase, before any other unit: the phase cannot end with one left unmoved that can move. */
    const da_unit *runner = g.turn.phase == DA_PH_MOVEMENT && !g.turn.rallying
                                ? da_panicked_to_move(&g, g.turn.side)
                                : NULL;
    if (runner) {
        da_rule_error(err, "type",
                      "panicked unit '%s' must first move toward the %s map edge (PANIC)",
                      runner->id, da_edge_name(runner->panic_edge));
        da_game_free(&g);
        return -1;
    }
    if (g.turn.game_turn >= DA_GAME_TURN_MAX && g.turn.player_turn == 1 &&
        g.turn.phase == DA_PH_MELEE) {
        da_rule_error(err, "type", "the session has reached its last Game-Turn (%d)",
                      DA_GAME_TURN_MAX);
        da_game_free(&g);
        return -1;
    }
    char from[80];
    snprintf(from, sizeof from, "%s Phase of %s, Game-Turn %d", da_phase_name(g.turn.phase),
             g.turn.side, g.turn.game_turn);
    bool new_player_turn = false;
    if (++g.turn.phase == DA_PHASES) {
        g.turn.phase = DA_PH_MOVEMENT;
        new_player_turn = true;
        if (++g.turn.player_turn == 2) {
            g.turn.player_turn = 0;
            g.turn.game_turn++;
        }
        char tmp[SIDE_NAME_MAX + 1];
        memcpy(tmp, g.turn.side, sizeof tmp);
        memcpy(g.turn.side, g.turn.other, sizeof tmp);
        memcpy(g.turn.other, tmp, sizeof tmp);
    }
    g.turn.rallying = false;
    json_array_clear(g.rally_attempts);
    g.turn_changed = true;
    json_t *expired = json_array();
    da_when now = da_now(&g.turn);
    for (size_t i = 0; i < g.army.n; i++) {
        da_unit *u = &g.army.units[i];
        if (u->demoralized && !da_still_demoralized(u->demoralized_since, now)) {
            u->demoralized = false;
            u->changed = true;
            if (da_alive(u)) json_array_append_new(expired, json_string(u->id));
        }
        /* A new Movement Phase: who moved is forgotten; a new Player-Turn: the attacks made and
         * allocated (COMBAT (L): one missile and one melee attack per Player-Turn). */
        if (g.turn.phase == DA_PH_MOVEMENT && (u->moved || u->charge)) {
            u->moved = false;
            u->charge = 0;
            u->changed = true;
        }
        if (new_player_turn &&
            (u->fired || u->meleed || u->missile_target || u->alloc_fire || u->alloc_melee)) {
            u->fired = u->meleed = u->missile_target = u->alloc_fire = u->alloc_melee = false;
            u->changed = true;
        }
    }
    rules_say(out->summary, sizeof out->summary, "%s ends; the %s Phase of %s, Game-Turn %d begins",
              from, da_phase_name(g.turn.phase), g.turn.side, g.turn.game_turn);
    if (json_array_size(expired)) {
        rules_say(out->summary, sizeof out->summary, "; no longer demoralized:");
        size_t i;
        json_t *id;
        json_array_foreach(expired, i, id) rules_say(out->summary, sizeof out->summary, "%s %s",
                                                     i ? "," : "", json_string_value(id));
    }
    out->result = json_pack("{s:s, s:i, s:s, s:s, s:o}", "action", "end_phase", "game_turn",
                            g.turn.game_turn, "phase", da_phase_name(g.turn.phase), "side",
                            g.turn.side, "demoralization_ended", expired);
    return da_finish(ctx, &g, out, err);
}
